"""Lambert helpers: Lemma lem:lambert_branches_properties of the paper."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import lambertw

from baiuv.thresholds import lambert_wbar_0, lambert_wbar_m1, log_lambert_wbar_0

xs = st.floats(min_value=1.0 + 1e-9, max_value=1e6, allow_nan=False)


@given(xs)
@settings(max_examples=300, deadline=None)
def test_wbar_m1_bounds(x):
    w = lambert_wbar_m1(x)
    lo = x + math.log(x)
    hi = x + math.log(x) + min(0.5, 1 / math.sqrt(x))
    assert lo * (1 - 1e-14) <= w <= hi * (1 + 1e-14)


@given(st.floats(min_value=1.0 + 1e-9, max_value=700, allow_nan=False))
@settings(max_examples=300, deadline=None)
def test_wbar_0_bounds(x):
    w = lambert_wbar_0(x)
    lo = math.exp(-x + math.exp(-x))
    hi = math.exp(-x + math.exp(1 - x))
    assert lo * (1 - 1e-13) <= w <= hi * (1 + 1e-13)


@given(xs)
@settings(max_examples=300, deadline=None)
def test_both_invert_h(x):
    """Both branches solve w - ln w = x (Lemma part 1), relative residual ~ eps."""
    w = lambert_wbar_m1(x)
    assert abs(w - math.log(w) - x) <= 4e-16 * x
    lw = log_lambert_wbar_0(x)  # W_0 branch in log form: e^l - l = x
    assert abs(math.exp(lw) - lw - x) <= 4e-16 * x


def test_agrees_with_scipy_away_from_branch_point():
    x = np.linspace(1.5, 30, 200)
    ref_m1 = -lambertw(-np.exp(-x), -1).real
    ref_0 = -lambertw(-np.exp(-x), 0).real
    np.testing.assert_allclose(lambert_wbar_m1(x), ref_m1, rtol=1e-12)
    np.testing.assert_allclose(lambert_wbar_0(x), ref_0, rtol=1e-10)


@pytest.mark.parametrize("u", [1e-15, 1e-12, 1e-9, 1e-6, 1e-3])
def test_accurate_near_branch_point(u):
    """Near x = 1: w = 1 +- p + p^2/3 +- p^3/36 + ... with p = sqrt(2u), u = x - 1."""
    x = 1.0 + u
    u = x - 1.0  # exactly representable difference
    p = math.sqrt(2 * u)
    # series of the inverse of d - log1p(d) = u: d = p + p^2/3 + p^3/36 - p^4/270 + ...
    dm1 = p + p**2 / 3 + p**3 / 36 - p**4 / 270
    d0 = -p + p**2 / 3 - p**3 / 36 - p**4 / 270
    assert lambert_wbar_m1(x) - 1 == pytest.approx(dm1, rel=1e-9)
    assert lambert_wbar_0(x) - 1 == pytest.approx(d0, rel=1e-9)


def test_large_arguments():
    x = np.array([1e3, 1e8, 1e15])
    w = lambert_wbar_m1(x)
    np.testing.assert_allclose(w - np.log(w), x, rtol=1e-15)
    lw = log_lambert_wbar_0(x)  # ln Wbar_0 ~ -x + e^{-x}
    np.testing.assert_allclose(lw, -x, rtol=1e-15)
    assert lambert_wbar_m1(1.0) == 1.0 and lambert_wbar_0(1.0) == 1.0
    assert lambert_wbar_m1(math.inf) == math.inf


@given(st.floats(min_value=1.01, max_value=600))
@settings(max_examples=100, deadline=None)
def test_derivative_identities(x):
    """(Wbar)'(x) = (1 - 1/Wbar(x))^{-1} for both branches (Lemma part 2)."""
    h = 1e-6 * x
    for f in (lambert_wbar_m1, lambert_wbar_0):
        num = (f(x + h) - f(x - h)) / (2 * h)
        w = f(x)
        assert num == pytest.approx(1.0 / (1.0 - 1.0 / w), rel=1e-5)


def test_monotonicity_and_curvature():
    x = np.linspace(1.001, 50, 2000)
    wm, w0 = lambert_wbar_m1(x), lambert_wbar_0(x)
    assert np.all(np.diff(wm) > 0) and np.all(np.diff(wm, 2) < 0)  # increasing, concave
    assert np.all(np.diff(w0) < 0) and np.all(np.diff(w0, 2) > 0)  # decreasing, convex


@pytest.mark.parametrize("bad", [0.5, -1.0, math.nan, [1.0, 0.9]])
def test_bad_input(bad):
    for f in (lambert_wbar_m1, lambert_wbar_0, log_lambert_wbar_0):
        with pytest.raises(ValueError, match="x"):
            f(bad)
