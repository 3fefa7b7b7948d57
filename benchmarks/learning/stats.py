"""The learning benchmark's statistics, in the standard library: Welch t-tests (one-sided, and
two-sided, which can find an arm worse as well as better), Holm's correction, bootstrap
intervals, power and the seeds a gap needs.

Seeds are the unit: each run (method, seed) gives one number per split, and a method's
claim over another is a claim about those per-seed numbers.
"""

from __future__ import annotations

import math
import random
import statistics
from dataclasses import dataclass
from typing import Sequence

NORMAL = statistics.NormalDist()


@dataclass(frozen=True)
class Welch:
    """Welch's t-test of mean(a) > mean(b): the difference, t, the Welch-Satterthwaite
    degrees of freedom and the one-sided p-value."""

    diff: float
    t: float
    df: float
    p: float


def welch_greater(a: Sequence[float], b: Sequence[float]) -> Welch:
    """One-sided Welch t-test, H1: mean(a) > mean(b). Two constant samples give t = +-inf
    (p 0 or 1) when their means differ and p = 0.5 when they do not."""
    if len(a) < 2 or len(b) < 2:
        raise ValueError(f"Welch's test needs two values per sample, received {len(a)} and {len(b)}")
    diff = statistics.fmean(a) - statistics.fmean(b)
    va, vb = statistics.variance(a) / len(a), statistics.variance(b) / len(b)
    if va + vb == 0:
        return Welch(diff, math.copysign(math.inf, diff) if diff else 0.0, float(len(a) + len(b) - 2),
                     0.0 if diff > 0 else 1.0 if diff < 0 else 0.5)
    t = diff / math.sqrt(va + vb)
    df = (va + vb) ** 2 / ((va ** 2 / (len(a) - 1) if va else 0.0) + (vb ** 2 / (len(b) - 1) if vb else 0.0))
    return Welch(diff, t, df, t_sf(t, df))


def welch_two_sided(a: Sequence[float], b: Sequence[float]) -> Welch:
    """Two-sided Welch t-test, H1: mean(a) != mean(b); `Welch.p` is the two-sided p-value."""
    one = welch_greater(a, b)
    return Welch(one.diff, one.t, one.df, min(1.0, 2 * min(one.p, 1.0 - one.p)))


def t_sf(t: float, df: float) -> float:
    """P(T > t) for Student's t with `df` degrees of freedom (regularized incomplete beta)."""
    if df <= 0:
        raise ValueError(f"df must be > 0, received {df}")
    tail = 0.5 * betainc(df / 2, 0.5, df / (df + t * t))
    return tail if t >= 0 else 1.0 - tail


def betainc(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta I_x(a, b), by its continued fraction (modified Lentz)."""
    if not 0.0 <= x <= 1.0:
        raise ValueError(f"x must be in [0, 1], received {x}")
    if x in (0.0, 1.0):
        return x
    if x > (a + 1) / (a + b + 2):  # the fraction converges fast only below the mean; use the symmetry
        return 1.0 - betainc(b, a, 1.0 - x)
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    fraction = d
    for m in range(1, 500):
        for numerator in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                          -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            fraction *= c * d
        if abs(c * d - 1.0) < 1e-15:
            break
    return math.exp(log_front) * fraction / a


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm-Bonferroni adjusted p-values (same order as given): the k-th smallest of m is
    multiplied by m - k, made monotone, capped at 1."""
    order = sorted(range(len(pvalues)), key=lambda i: pvalues[i])
    adjusted = [0.0] * len(pvalues)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(pvalues) - rank) * pvalues[i]))
        adjusted[i] = running
    return adjusted


def bootstrap_diff_ci(a: Sequence[float], b: Sequence[float], level: float = 0.95, resamples: int = 10_000,
                      seed: int = 0) -> tuple[float, float]:
    """Percentile bootstrap interval of mean(a) - mean(b), each sample resampled on its own."""
    rng = random.Random(seed)
    diffs = sorted(statistics.fmean(rng.choices(a, k=len(a))) - statistics.fmean(rng.choices(b, k=len(b)))
                   for _ in range(resamples))
    tail = (1 - level) / 2
    return diffs[int(tail * (resamples - 1))], diffs[int(math.ceil((1 - tail) * (resamples - 1)))]


def power(diff: float, sd: float, n: int, alpha: float = 0.05) -> float:
    """Power of the two-sided two-sample test at `n` seeds per arm for a true gap `diff` of
    either sign with per-seed sd `sd` (normal approximation, both tails)."""
    if sd <= 0:
        return 1.0 if diff else alpha
    shift, z = abs(diff) / (sd * math.sqrt(2 / n)), NORMAL.inv_cdf(1 - alpha / 2)
    return NORMAL.cdf(shift - z) + NORMAL.cdf(-shift - z)


def seeds_needed(diff: float, sd: float, alpha: float = 0.05, target: float = 0.8) -> int | None:
    """Seeds per arm for `target` power of the two-sided test at level `alpha` to detect a
    gap of size |`diff`| (None for no gap): the smallest n at which `power` reaches it, plus
    one for the t-distribution's heavier tails at small n."""
    if diff == 0:
        return None
    n = 2
    while power(diff, sd, n, alpha) < target:
        n += 1
    return n + 1
