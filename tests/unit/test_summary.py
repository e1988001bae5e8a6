"""Wilson interval of the error-rate tables against scipy's independent implementation."""

import pytest
from scipy.stats import binomtest

from baiuv.experiments.stopping_times import wilson_interval


@pytest.mark.parametrize(
    "errors,n", [(0, 1), (0, 100), (1, 100), (8, 100), (50, 100), (3, 7), (7, 7), (12, 5000)]
)
@pytest.mark.parametrize("level", [0.9, 0.95, 0.99])
def test_wilson_matches_scipy(errors, n, level):
    ci = binomtest(errors, n).proportion_ci(confidence_level=level, method="wilson")
    lo, hi = wilson_interval(errors, n, level)
    assert lo == pytest.approx(ci.low, abs=1e-12)
    assert hi == pytest.approx(ci.high, abs=1e-12)


@pytest.mark.parametrize(
    "bad",
    [
        dict(errors=-1, n=5),
        dict(errors=6, n=5),
        dict(errors=1, n=0),
        dict(errors=1, n=5, level=1.0),
    ],
)
def test_wilson_rejects_bad_input(bad):
    with pytest.raises(ValueError):
        wilson_interval(**bad)


def test_wilson_interval_contains_the_rate_exactly():
    """Rounding must not put a bound on the wrong side of errors/n (plots use the
    differences as error bars, which must be >= 0); 0 and n errors give exact 0 and 1."""
    for level in (0.9, 0.95, 0.99):
        for n in range(1, 120):
            for errors in range(n + 1):
                lo, hi = wilson_interval(errors, n, level)
                assert 0.0 <= lo <= errors / n <= hi <= 1.0, (errors, n, level, lo, hi)
            assert wilson_interval(0, n, level)[0] == 0.0
            assert wilson_interval(n, n, level)[1] == 1.0
