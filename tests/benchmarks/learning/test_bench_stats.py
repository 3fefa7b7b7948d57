"""The learning benchmark's statistics against hand-computed values and published t-table
entries (reference p-values computed with SciPy's `scipy.stats.t.sf`)."""

import math

import pytest

from gui_gym.benchmarks.learning.stats import (betainc, bootstrap_diff_ci, holm, power, seeds_needed, t_sf, welch_greater,
                                              welch_two_sided)


def test_welch_by_hand():
    # a: mean 2, var 1 -> 1/3; b: mean 1/3, var 1/3 -> 1/9; t = (5/3) / (2/3) = 2.5;
    # df = (4/9)^2 / ((1/3)^2 / 2 + (1/9)^2 / 2) = 3.2
    test = welch_greater([1, 2, 3], [0, 0, 1])
    assert test.diff == pytest.approx(5 / 3)
    assert test.t == pytest.approx(2.5)
    assert test.df == pytest.approx(3.2)
    assert test.p == pytest.approx(0.04122086858087374, rel=1e-9)
    assert welch_greater([0, 0, 1], [1, 2, 3]).p == pytest.approx(1 - 0.04122086858087374, rel=1e-9)
    # constant samples: the gap is certain, or there is none
    assert welch_greater([1, 1], [0, 0]).p == 0.0 and welch_greater([0, 0], [0, 0]).p == 0.5
    with pytest.raises(ValueError, match="two values per sample"):
        welch_greater([1], [0, 1])


def test_the_two_sided_test_finds_a_gap_of_either_sign():
    """Twice the smaller tail: the same p whichever sample is first, so "worse" is tested as "better" is."""
    better, worse = welch_two_sided([1, 2, 3], [0, 0, 1]), welch_two_sided([0, 0, 1], [1, 2, 3])
    assert better.p == pytest.approx(2 * 0.04122086858087374, rel=1e-9) and worse.p == pytest.approx(better.p)
    assert worse.diff == pytest.approx(-5 / 3) and worse.t == pytest.approx(-2.5)
    assert welch_two_sided([1, 1], [0, 0]).p == 0.0 and welch_two_sided([0, 0], [0, 0]).p == 1.0


def test_t_tail_matches_the_tables():
    assert t_sf(0.0, 5) == pytest.approx(0.5)
    assert t_sf(1.0, 1) == pytest.approx(0.25)  # df 1 is Cauchy: 1/2 - atan(1)/pi
    assert t_sf(2.228, 10) == pytest.approx(0.025, abs=1e-5)  # the two-sided 5 % critical value
    assert t_sf(1.812, 10) == pytest.approx(0.05003763103292357, rel=1e-9)
    assert t_sf(-0.7, 2.5) == pytest.approx(0.728297528405226, rel=1e-9)
    assert betainc(2, 3, 0.4) == pytest.approx(0.5248)  # 1 - sum_{k<2} C(4,k) .4^k .6^(4-k)
    assert betainc(1, 1, 0.3) == pytest.approx(0.3)


def test_holm_adjusts_in_rank_order_and_stays_monotone():
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert holm([0.5, 0.9]) == pytest.approx([1.0, 1.0])


def test_bootstrap_interval_covers_the_gap_and_is_exact_for_constants():
    lo, hi = bootstrap_diff_ci([1, 2, 3, 4], [0, 0, 1, 1])
    assert lo < 2.0 < hi and 0 < lo
    assert bootstrap_diff_ci([0.5] * 4, [0.25] * 3) == (0.25, 0.25)


def test_power_and_seeds_needed_are_two_sided():
    # gap .07, sd .10, 40 seeds: shift = .07 / (.10 sqrt(2/40)) = 3.130; Phi(3.130 - 1.960) + Phi(-3.130 - 1.960) = .879
    assert power(0.07, 0.10, 40) == pytest.approx(0.8791, abs=1e-4)
    assert power(-0.07, 0.10, 40) == power(0.07, 0.10, 40)  # a gap below counts as one above
    assert power(0.0, 0.29, 10) == pytest.approx(0.05)
    # 2 (1.960 + 0.842)^2 (.10/.07)^2 = 32.0 by the closed form; the exact two-tailed n is 33, + 1 for small n
    assert seeds_needed(0.07, 0.10) == 34 and power(0.07, 0.10, 33) >= 0.8 > power(0.07, 0.10, 32)
    assert seeds_needed(0.0, 0.3) is None and seeds_needed(0.1, 0.0) == 3
    assert math.isclose(power(0.1, 0.0, 3), 1.0)
