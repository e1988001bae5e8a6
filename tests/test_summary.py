"""Wilson interval of the error-rate tables against scipy's independent implementation."""

import pytest
from scipy.stats import binomtest

from baiuv.simulation.summary import wilson_interval


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
