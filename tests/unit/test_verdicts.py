"""The one verdict rule of the comparative claims: each outcome fed an interval that must give
it, heavy tails left unresolved, one-sided bands and dropped intervals shown to change
verdicts, and the bootstrap's coverage checked by Monte Carlo."""

import math

import numpy as np
import pytest
from scipy import stats

from baiuv.claims import (
    DIFFERS,
    NOT_RESOLVED,
    REPRODUCED,
    Band,
    bootstrap_interval,
    bootstrap_ratio,
    combine,
    judge,
    rate_interval,
)

SIMILAR = Band(0.8, 1.2, "similar result")
BETTER = Band(hi=1.0, strict_hi=True, words="outperforms")


def test_three_outcomes_two_sided_and_one_sided():
    assert judge(1.0, (0.9, 1.1), SIMILAR) == REPRODUCED
    assert judge(1.5, (1.3, 1.7), SIMILAR) == DIFFERS
    assert judge(0.5, (0.4, 0.6), SIMILAR) == DIFFERS
    assert judge(1.1, (0.9, 1.3), SIMILAR) == NOT_RESOLVED
    assert judge(0.5, (0.4, 0.99), BETTER) == REPRODUCED
    assert judge(0.9, (0.8, 1.0), BETTER) == NOT_RESOLVED  # 1 itself is not "better"
    assert judge(1.2, (1.0, 1.4), BETTER) == DIFFERS
    assert judge(math.nan, None, SIMILAR) == NOT_RESOLVED
    with pytest.raises(ValueError, match="low <= high"):
        judge(1.0, (1.1, 0.9), SIMILAR)
    with pytest.raises(ValueError, match="lo must be below hi"):
        Band(1.0, 1.0)


def test_one_sided_band_and_dropped_interval_change_verdicts():
    """The same interval: 'differs' against the two-sided band (entirely below it),
    'reproduced' against the one-sided 'faster' band; the same point without its interval
    'reproduced' where the interval leaves it unresolved."""
    assert judge(0.6, (0.55, 0.7), SIMILAR) == DIFFERS
    assert judge(0.6, (0.55, 0.7), BETTER) == REPRODUCED
    assert judge(1.15, (0.95, 1.35), SIMILAR) == NOT_RESOLVED
    assert judge(1.15, None, SIMILAR) == REPRODUCED
    assert SIMILAR.text() == "[0.8, 1.2]" and BETTER.text() == "< 1"
    assert Band(0.8, 1.0, strict_hi=True).text() == "[0.8, 1)"
    assert Band(lo=1.0, strict_lo=True).text() == "> 1" and BETTER.one_sided


def test_combine():
    assert combine([REPRODUCED, REPRODUCED]) == REPRODUCED
    assert combine([REPRODUCED, NOT_RESOLVED]) == NOT_RESOLVED
    assert combine([NOT_RESOLVED, DIFFERS, REPRODUCED]) == DIFFERS
    with pytest.raises(ValueError):
        combine([])


def test_one_heavy_run_leaves_the_ratio_unresolved():
    """1000 runs of two rules with the same typical stopping time; one run of the first is
    1000x the median and moves its mean by 1.5x. Without it the ratio is resolved inside the
    band; with it the point ratio (1.5) is outside, yet the interval straddles 1.2: 'not
    resolved', and the ratio of medians printed beside stays at 1."""
    rng = np.random.default_rng(1)
    a = rng.exponential(100.0, 1000) + 100
    b = rng.exponential(100.0, 1000) + 100
    j = bootstrap_ratio(a, b, SIMILAR, identity=("t", 0))
    assert j.verdict == REPRODUCED
    heavy = a.copy()
    heavy[0] = 0.5 * a.sum()  # one run holds a third of the samples
    j = bootstrap_ratio(heavy, b, SIMILAR, identity=("t", 0))
    assert j.statistic > 1.4 and not SIMILAR.contains(j.statistic)
    assert j.verdict == NOT_RESOLVED, j.text()
    assert judge(j.statistic, None, SIMILAR) == DIFFERS  # the point alone would say differs
    assert 0.85 < j.median < 1.15 and "medians" in j.text()


def test_bootstrap_is_deterministic_per_identity_and_paired_keeps_units():
    x = np.arange(1.0, 51.0)
    f = lambda s: s["x"].mean(axis=1)  # noqa: E731
    i1 = bootstrap_interval({"x": x}, f, identity=("a",))
    assert i1 == bootstrap_interval({"x": x}, f, identity=("a",))
    assert i1 != bootstrap_interval({"x": x}, f, identity=("b",))
    # paired: num = 2 den unit by unit, so every resampled ratio is exactly 2
    lo, hi = bootstrap_interval(
        {"n": 2 * x, "d": x},
        lambda s: s["n"].mean(axis=1) / s["d"].mean(axis=1),
        identity=("p",),
        paired=True,
    )
    assert lo == pytest.approx(2.0) and hi == pytest.approx(2.0)
    lo, hi = bootstrap_interval(
        {"n": 2 * x, "d": x},
        lambda s: s["n"].mean(axis=1) / s["d"].mean(axis=1),
        identity=("p",),
    )
    assert lo < 1.9 and hi > 2.1  # unpaired: the two draws differ
    with pytest.raises(ValueError, match="same length"):
        bootstrap_interval({"n": x, "d": x[:3]}, f, identity=("p",), paired=True)


def test_bootstrap_ratio_covers_the_true_ratio_at_about_its_level():
    """Monte Carlo: 300 pairs of exponential samples (means 150 and 100, 300 runs each);
    the 95% interval of the ratio of means covers 1.5 in about 95% of them. Binomial s.d.
    of the coverage 0.013: [0.89, 0.99] is a margin of more than 4 s.d."""
    rng = np.random.default_rng(7)
    reps, covered = 300, 0
    for r in range(reps):
        a, b = rng.exponential(150.0, 300), rng.exponential(100.0, 300)
        lo, hi = bootstrap_interval(
            {"n": a, "d": b},
            lambda s: s["n"].mean(axis=1) / s["d"].mean(axis=1),
            identity=("cov", r),
            n_boot=500,
        )
        covered += lo <= 1.5 <= hi
    assert 0.89 <= covered / reps <= 0.99


def test_rate_interval_is_clopper_pearson():
    """Against the beta quantiles written out, and the 0-error upper bound 1-(α/2)^(1/n)."""
    lo, hi = rate_interval(3, 100)
    assert lo == pytest.approx(stats.beta.ppf(0.025, 3, 98), rel=1e-9)
    assert hi == pytest.approx(stats.beta.ppf(0.975, 4, 97), rel=1e-9)
    assert rate_interval(0, 100) == (0.0, pytest.approx(1 - 0.025 ** (1 / 100), rel=1e-9))
    assert rate_interval(100, 100)[1] == 1.0
    with pytest.raises(ValueError, match="errors"):
        rate_interval(5, 3)
