"""Transportation costs against brute-force minimisation (Lemma lem:calcul)."""

import math

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from numba import njit
from scipy.optimize import minimize_scalar

from baiuv.model.transport import (
    _cubic_real_roots,
    _h_scaled,
    lambda_unknown,
    tc_known,
    tc_unknown,
    tc_unknown_bounds,
    tc_unknown_rational_bounds,
)


def unknown_objective(ma, sa, wa, mb, sb, wb):
    """``lambda -> w_a/2 ln(1 + (m_a - lambda)^2/s_a) + w_b/2 ln(1 + (m_b - lambda)^2/s_b)``."""
    return lambda l: wa / 2 * np.log1p((ma - l) ** 2 / sa) + wb / 2 * np.log1p((mb - l) ** 2 / sb)


def brute_unknown(ma, sa, wa, mb, sb, wb):
    f = unknown_objective(ma, sa, wa, mb, sb, wb)
    grid = np.linspace(mb, ma, 40001)
    v = f(grid)
    j = int(np.argmin(v))
    lo, hi = grid[max(j - 1, 0)], grid[min(j + 1, grid.size - 1)]
    r = minimize_scalar(f, bounds=(lo, hi), method="bounded", options={"xatol": 1e-14})
    return min(r.fun, v.min())


pos = st.floats(1e-2, 1e2)
#: Two-arm programs ``(mu_a = mb + gap, s_a, w_a, mu_b, s_b, w_b)`` for the hypothesis tests.
PROGRAMS = dict(
    gap=st.floats(1e-3, 50.0),
    mb=st.floats(-10, 10),
    sa=pos,
    sb=pos,
    wa=st.floats(1e-3, 1e3),
    wb=st.floats(1e-3, 1e3),
)


@given(**PROGRAMS)
@example(gap=0.001, mb=2.0, sa=1.0, sb=1.0, wa=24.0, wb=0.001)  # cost 5e-10
def test_unknown_cost_matches_brute_force(gap, mb, sa, sb, wa, wb):
    ma = mb + gap
    got = tc_unknown(ma, sa, wa, mb, sb, wb)
    ref = brute_unknown(ma, sa, wa, mb, sb, wb)
    lam, val = lambda_unknown(ma, sa, wa, mb, sb, wb)
    assert mb <= lam <= ma
    assert val == got
    # the value is attained at lam, and no brute-force point is lower: got is the minimum
    # (the brute force itself is only accurate to about 1e-6 relative for costs near 1e-10,
    # e.g. gap = 1e-3, wb = 1e-3, where it stops 1.7e-6 above the attained minimum)
    assert unknown_objective(ma, sa, wa, mb, sb, wb)(lam) == pytest.approx(got, rel=1e-12)
    assert got <= ref * (1 + 1e-9) + 1e-300


def test_unknown_cost_nonconvex_regime():
    # large gap, small variances: log(1+z^2) is far from convex, several stationary points
    for ma, sa, wa, mb, sb, wb in [
        (0.0, 1.0, 0.5, -20.0, 0.5, 0.5),
        (0.0, 1.0, 0.9, -5.0, 0.01, 0.1),
        (3.0, 0.05, 1.0, -3.0, 0.05, 1.3),
    ]:
        assert tc_unknown(ma, sa, wa, mb, sb, wb) == pytest.approx(
            brute_unknown(ma, sa, wa, mb, sb, wb), rel=1e-7
        )


@given(gap=st.floats(1e-3, 50.0), sa=pos, sb=pos, wa=st.floats(1e-3, 1e3), wb=st.floats(1e-3, 1e3))
# minimiser next to the bound: the bounded search stops 1.5e-8 from it, 6.8e-12 above the
# minimum 6.76e-6 (1e-6 relative)
@example(gap=1.0, sa=0.01171875, sb=74.0, wa=714.0, wb=0.001)
def test_known_cost_closed_form(gap, sa, sb, wa, wb):
    f = lambda l: wa * (gap - l) ** 2 / (2 * sa) + wb * l**2 / (2 * sb)  # noqa: E731
    r = minimize_scalar(f, bounds=(0, gap), method="bounded", options={"xatol": 1e-14})
    # scipy's bounded Brent search stops within 2 (sqrt(eps) |x| + xatol / 3) of the
    # minimiser, so its value can exceed the minimum by f'' dx^2 / 2 (f is quadratic,
    # f'' = wa/sa + wb/sb): that is the absolute tolerance; rel 1e-9 covers rounding
    dx = 2 * (math.sqrt(np.finfo(float).eps) * gap + 1e-14 / 3)
    tol = 0.5 * (wa / sa + wb / sb) * dx**2
    assert tc_known(gap, sa, wa, 0.0, sb, wb) == pytest.approx(r.fun, rel=1e-9, abs=tol)
    assert tc_known(gap, sa, wa, 0.0, sb, wb) <= r.fun * (1 + 1e-12)


def test_costs_vanish_when_not_ordered_or_no_weight():
    assert tc_unknown(0.0, 1.0, 1.0, 1.0, 1.0, 1.0) == 0.0
    assert tc_known(0.0, 1.0, 1.0, 1.0, 1.0, 1.0) == 0.0
    assert tc_unknown(1.0, 1.0, 0.0, 0.0, 1.0, 1.0) == 0.0
    assert tc_unknown(1.0, 1.0, 1.0, 0.0, 1.0, 0.0) == 0.0
    assert lambda_unknown(1.0, 1.0, 1.0, 0.0, 1.0, 0.0)[0] == 1.0


@njit(cache=False)
def _enclosure_failures(ma, sa, wa, mb, sb, wb):
    """Indices where the computed ``tc_unknown`` leaves ``tc_unknown_bounds``, and the
    bounds' mean relative width where both are finite."""
    bad = []
    width = 0.0
    n = 0
    for i in range(ma.shape[0]):
        z = tc_unknown(ma[i], sa[i], wa[i], mb[i], sb[i], wb[i])
        lo, hi = tc_unknown_bounds(ma[i], sa[i], wa[i], mb[i], sb[i], wb[i])
        if not (lo <= z <= hi):
            bad.append(i)
        if math.isfinite(lo) and z > 0.0:
            width += (hi - lo) / z
            n += 1
    return bad, width / max(n, 1)


def _random_programs(rng, n, log_gap, log_var, log_w):
    """``n`` random arguments of ``tc_unknown`` with log-uniform gaps, variances, weights."""
    mb = rng.uniform(-10.0, 10.0, n)
    ma = mb + 10.0 ** rng.uniform(*log_gap, n)
    sa, sb = 10.0 ** rng.uniform(*log_var, (2, n))
    wa, wb = np.floor(10.0 ** rng.uniform(*log_w, (2, n))) + 1.0
    return ma, sa, wa, mb, sb, wb


@pytest.mark.parametrize(
    "log_gap, log_var, log_w",
    [
        ((-3.0, 0.0), (-1.0, 1.0), (0.0, 4.0)),  # simulation regime: gaps below the noise
        ((-1.0, 1.5), (-2.0, 2.0), (0.0, 3.0)),  # both branches of the lower bound
        ((-8.0, 3.0), (-12.0, 12.0), (0.0, 9.0)),  # extreme scales
    ],
)
def test_unknown_cost_bounds_enclose_the_computed_cost(log_gap, log_var, log_w):
    """``tc_unknown_bounds`` (decision D210) contains the value ``tc_unknown`` computes, the
    value the simulation loop compares, on 200 000 random programs per regime."""
    rng = np.random.default_rng(hash((log_gap, log_var, log_w)) % 2**32)
    args = _random_programs(rng, 200_000, log_gap, log_var, log_w)
    bad, width = _enclosure_failures(*args)
    assert list(bad) == []
    if log_gap == (-3.0, 0.0):  # where the loop relies on them, the bounds are tight
        assert width < 1e-2


@given(**PROGRAMS)
@example(gap=0.001, mb=1.0, sa=1.0, sb=1.0, wa=0.001, wb=66.0)  # brute force 1e-6 above
def test_unknown_cost_bounds_enclose_the_brute_force_minimum(gap, mb, sa, sb, wa, wb):
    ma = mb + gap
    lo, hi = tc_unknown_bounds(ma, sa, wa, mb, sb, wb)
    ref = brute_unknown(ma, sa, wa, mb, sb, wb)
    # the brute force stops above the minimum (by up to about 1e-6 relative for costs near
    # 1e-10, see above): it checks the lower end; the upper end is met within that accuracy
    assert lo <= ref
    assert ref <= hi * (1 + 1e-5)
    assert lo <= tc_unknown(ma, sa, wa, mb, sb, wb) <= hi


@njit(cache=False)
def _rational_enclosure_failures(ma, sa, wa, mb, sb, wb):
    """Indices where the computed ``tc_unknown`` leaves ``tc_unknown_rational_bounds``."""
    bad = []
    for i in range(ma.shape[0]):
        z = tc_unknown(ma[i], sa[i], wa[i], mb[i], sb[i], wb[i])
        lo, hi = tc_unknown_rational_bounds(ma[i], sa[i], wa[i], mb[i], sb[i], wb[i])
        if not (lo <= z <= hi):
            bad.append(i)
    return bad


@pytest.mark.parametrize(
    "log_gap, log_var, log_w",
    [
        ((-3.0, 0.0), (-1.0, 1.0), (0.0, 4.0)),
        ((-1.0, 1.5), (-2.0, 2.0), (0.0, 3.0)),
        ((-8.0, 3.0), (-12.0, 12.0), (0.0, 9.0)),
    ],
)
def test_rational_bounds_enclose_the_computed_cost(log_gap, log_var, log_w):
    """``tc_unknown_rational_bounds`` (decision D216) contains the value ``tc_unknown``
    computes on 200 000 random programs per regime."""
    rng = np.random.default_rng(hash((log_gap, log_var, 7)) % 2**32)
    args = _random_programs(rng, 200_000, log_gap, log_var, log_w)
    assert list(_rational_enclosure_failures(*args)) == []


@given(**PROGRAMS)
def test_rational_bounds_enclose_the_brute_force_minimum(gap, mb, sa, sb, wa, wb):
    ma = mb + gap
    lo, hi = tc_unknown_rational_bounds(ma, sa, wa, mb, sb, wb)
    ref = brute_unknown(ma, sa, wa, mb, sb, wb)
    assert lo <= ref
    assert ref <= hi * (1 + 1e-5)
    assert tc_unknown_rational_bounds(0.0, 1.0, 1.0, 1.0, 1.0, 1.0) == (-math.inf, math.inf)


def test_unknown_cost_bounds_defer_degenerate_programs():
    inf = math.inf
    assert tc_unknown_bounds(0.0, 1.0, 1.0, 1.0, 1.0, 1.0) == (-inf, inf)  # no gap
    assert tc_unknown_bounds(1.0, 0.0, 1.0, 0.0, 1.0, 1.0) == (-inf, inf)  # zero variance
    assert tc_unknown_bounds(1.0, 1.0, 0.0, 0.0, 1.0, 1.0) == (-inf, inf)  # zero weight
    assert tc_unknown_bounds(1e300, 1e-300, 1.0, -1e300, 1.0, 1.0) == (-inf, inf)  # overflow


@njit(cache=False)
def _lambda_unknown_endpoints_first(mu_a, s2_a, w_a, mu_b, s2_b, w_b):
    """``lambda_unknown`` as written before decision D212: both end points evaluated first,
    then the interior roots of the cubic (the same transforms and root finder)."""
    h = 0.5 * (mu_a - mu_b)
    m = 0.5 * (mu_a + mu_b)
    sa = s2_a / (h * h)
    sb = s2_b / (h * h)
    x = w_b / w_a
    inv = 1.0 / (1.0 + x)
    a2 = -(x - 1.0) * inv
    a1 = ((sb - 1.0) + x * (sa - 1.0)) * inv
    a0 = -((1.0 + sb) - x * (1.0 + sa)) * inv
    n, r0, r1, r2 = _cubic_real_roots(a2, a1, a0)
    best_u = 1.0
    best_v = _h_scaled(1.0, sa, sb, x)
    v = _h_scaled(-1.0, sa, sb, x)
    if v < best_v:
        best_u = -1.0
        best_v = v
    for i in range(n):
        u = r0 if i == 0 else (r1 if i == 1 else r2)
        if u > -1.0 and u < 1.0:
            v = _h_scaled(u, sa, sb, x)
            if v < best_v:
                best_v = v
                best_u = u
    return m + h * best_u, 0.5 * w_a * best_v


@njit(cache=False)
def _differences_and_fallbacks(ma, sa, wa, mb, sb, wb):
    """Indices where the two orders differ, and how many programs take the fallback (the
    end points evaluated: the certified bound does not exclude them)."""
    diff = []
    fallbacks = 0
    for i in range(ma.shape[0]):
        lam, val = lambda_unknown(ma[i], sa[i], wa[i], mb[i], sb[i], wb[i])
        ref_lam, ref_val = _lambda_unknown_endpoints_first(ma[i], sa[i], wa[i], mb[i], sb[i], wb[i])
        same = (lam == ref_lam or (math.isnan(lam) and math.isnan(ref_lam))) and (
            val == ref_val or (math.isnan(val) and math.isnan(ref_val))
        )
        if not same:
            diff.append(i)
        h2 = (0.5 * (ma[i] - mb[i])) ** 2
        za = 4.0 / (sa[i] / h2)
        zb = 4.0 / (sb[i] / h2)
        bound = min(wb[i] / wa[i] * 2.0 * zb / (2.0 + zb), 2.0 * za / (2.0 + za))
        if not (2.0 * val / wa[i] < bound * (1.0 - 1e-12)):
            fallbacks += 1
    return diff, fallbacks


@pytest.mark.parametrize(
    "log_gap, log_var, log_w",
    [
        ((-3.0, 0.0), (-1.0, 1.0), (0.0, 4.0)),  # simulation regime
        ((-1.0, 2.0), (-3.0, 1.0), (-3.0, 3.0)),  # large gaps, small variances: fallbacks
        ((-8.0, 3.0), (-12.0, 12.0), (-6.0, 9.0)),  # extreme scales
    ],
)
def test_unknown_cost_is_bit_identical_to_the_end_points_first_order(log_gap, log_var, log_w):
    """Evaluating the interior roots first and the end points only when a certified bound
    does not exclude them returns the same ``(lambda, value)`` bits as the
    previous order, on 300 000 random programs per regime (with and without the fallback)."""
    rng = np.random.default_rng(abs(hash((log_gap, log_var))) % 2**32)
    n = 300_000
    mb = rng.uniform(-10.0, 10.0, n)
    ma = mb + 10.0 ** rng.uniform(*log_gap, n)
    sa, sb = 10.0 ** rng.uniform(*log_var, (2, n))
    wa, wb = 10.0 ** rng.uniform(*log_w, (2, n))
    diff, fallbacks = _differences_and_fallbacks(ma, sa, wa, mb, sb, wb)
    assert list(diff) == []
    if log_gap == (-1.0, 2.0):
        assert fallbacks > 1000  # the end points are evaluated there too
