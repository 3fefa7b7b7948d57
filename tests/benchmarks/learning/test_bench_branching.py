"""The branched-vs-whole comparison's own pieces (it imported helpers the learning benchmark no
longer has; its runs need Chromium: `python -m gui_gym.benchmarks.learning.branching`)."""

import pytest

from gui_gym.benchmarks.learning import branching


def test_it_has_a_localweb_setting_of_its_own():
    assert branching.SETTING.tasks == ("shop.cheapest-in-category",)
    assert branching.SETTING.instances == 1 and branching.SETTING.eval_instances == 4


def test_mean_std_formats_a_column():
    assert branching.mean_std([0.5, 1.0]) == "0.75 +- 0.35"
    assert branching.mean_std([0.25]) == "0.25 +- 0.00" and branching.mean_std([]) == "-"


def test_a_bad_method_is_refused_before_any_run():
    with pytest.raises(SystemExit):
        branching.main(["--algos", "grpo", "--steps", "not-a-number"])
