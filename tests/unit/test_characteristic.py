"""Characteristic times and optimal allocations (Appendix app:characteristic_times)."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.optimize import minimize_scalar

import baiuv
from baiuv.model.oracle import _outer
from baiuv.model.transport import tc_known, tc_unknown


@st.composite
def instances(draw, kmax=8):
    K = draw(st.integers(2, kmax))
    gaps = draw(st.lists(st.floats(0.01, 3.0), min_size=K - 1, max_size=K - 1))
    s2 = draw(st.lists(st.floats(0.05, 10.0), min_size=K, max_size=K))
    return np.r_[0.0, -np.asarray(gaps)], np.asarray(s2)


@pytest.mark.parametrize("K", [2, 3, 5, 10, 20])
@pytest.mark.parametrize("gap", [0.05, 0.7, 4.0])
def test_equal_variance_closed_form(K, gap):
    # proof of Lemma lem:ratio_characteristic_time_large: T*_{s2} Delta^2 / 2 = (1 + sqrt(K-1))^2
    mu = np.r_[0.0, -gap * np.ones(K - 1)]
    t = baiuv.characteristic_time(mu, np.ones(K), known_variance=True)
    assert t * gap**2 / 2 == pytest.approx((1 + np.sqrt(K - 1)) ** 2, rel=1e-10)
    w = baiuv.optimal_allocation(mu, np.ones(K), known_variance=True)
    assert w[0] == pytest.approx(np.sqrt(K - 1) / (K - 1 + np.sqrt(K - 1)), rel=1e-9)


@given(instances())
def test_ratio_inequalities(inst):
    # Lemma lem:complexity_inequalities: 1 < T*/T*_{s2} <= d/ln(1+d), also for beta-versions
    mu, s2 = inst
    for beta in (None, 0.5):
        ratio = baiuv.complexity_ratio(mu, s2, beta=beta)
        assert ratio > 1.0
        assert ratio <= baiuv.ratio_upper_bound(mu, s2) * (1 + 1e-9)


def test_ratio_grows_without_bound():
    ratios = []
    for gap in [1.0, 10.0, 100.0, 1000.0]:
        mu, s2 = np.array([0.0, -gap, -gap]), np.ones(3)
        r = baiuv.complexity_ratio(mu, s2)
        # lower bound from the proof of Lemma lem:ratio_characteristic_time_large
        assert r >= gap**2 / ((1 + np.sqrt(2)) ** 2 * np.log1p(gap**2 / 4)) * (1 - 1e-9)
        ratios.append(r)
    assert np.all(np.diff(ratios) > 0) and ratios[-1] > 1e4


@given(instances())
def test_beta_versions(inst):
    mu, s2 = inst
    for known in (False, True):
        t = baiuv.characteristic_time(mu, s2, known_variance=known)
        t_half = baiuv.characteristic_time(mu, s2, known_variance=known, beta=0.5)
        assert t <= t_half * (1 + 1e-9)
        assert t_half <= 2 * t * (1 + 1e-9)  # Russo (2016): T*_{1/2} <= 2 T*
        w = baiuv.optimal_allocation(mu, s2, known_variance=known)
        # T* = min_beta T*_beta, attained at beta = w*_1
        assert baiuv.characteristic_time(mu, s2, known_variance=known, beta=w[0]) == pytest.approx(
            t, rel=1e-8
        )
        wb = baiuv.optimal_allocation(mu, s2, known_variance=known, beta=0.3)
        assert wb[0] == pytest.approx(0.3)


@given(instances())
def test_allocation_is_equalizing_and_valid(inst):
    mu, s2 = inst
    for known, cost in ((False, tc_unknown), (True, tc_known)):
        t = baiuv.characteristic_time(mu, s2, known_variance=known)
        w = baiuv.optimal_allocation(mu, s2, known_variance=known)
        assert np.all(w > 0) and w.sum() == pytest.approx(1.0, abs=1e-12)
        costs = [cost(mu[0], s2[0], w[0], mu[a], s2[a], w[a]) for a in range(1, mu.size)]
        # at the optimum every transportation cost equals 1/T*
        assert np.allclose(costs, 1 / t, rtol=1e-8)


@pytest.mark.slow  # four nested bisections per example
@given(instances())
def test_fast_agrees_with_bisection(inst):
    mu, s2 = inst
    for known in (False, True):
        for beta in (None, 0.5):
            kw = dict(known_variance=known, beta=beta)
            tf = baiuv.characteristic_time(mu, s2, **kw)
            tb = baiuv.characteristic_time(mu, s2, method="bisection", **kw)
            assert tf == pytest.approx(tb, rel=1e-9)
            wf = baiuv.optimal_allocation(mu, s2, **kw)
            wb = baiuv.optimal_allocation(mu, s2, method="bisection", **kw)
            np.testing.assert_allclose(wf, wb, rtol=1e-8)


def _brute_two_arm(gap, r):
    """2/T* = max_w min_lambda w d_1 + (1-w) d_2 by nested scalar optimisation."""

    def inner(w):
        f = lambda l: w * np.log1p(l**2) + (1 - w) * np.log1p((l + gap) ** 2 / r)  # noqa: E731
        grid = np.linspace(-gap, 0, 4001)
        j = int(np.argmin(f(grid)))
        lo, hi = grid[max(j - 1, 0)], grid[min(j + 1, 4000)]
        return minimize_scalar(f, bounds=(lo, hi), method="bounded", options={"xatol": 1e-13}).fun

    ws = np.linspace(1e-4, 1 - 1e-4, 2001)
    vals = np.array([inner(w) for w in ws])
    j = int(np.argmax(vals))
    res = minimize_scalar(
        lambda w: -inner(w),
        bounds=(ws[max(j - 1, 0)], ws[min(j + 1, 2000)]),
        method="bounded",
        options={"xatol": 1e-12},
    )
    return 2 / max(-res.fun, vals.max())


@pytest.mark.parametrize(
    "gap,r", [(0.2, 0.5), (1.0, 0.5), (1.9, 0.5), (2.1, 0.5), (5.0, 0.5), (0.2, 0.01), (3.0, 40.0)]
)
def test_two_arm_brute_force(gap, r):
    t = baiuv.characteristic_time([0.0, -gap], [1.0, r])
    assert t == pytest.approx(_brute_two_arm(gap, r), rel=1e-6)


def test_F_increasing_from_zero():
    mu, s2 = baiuv.STANDARD.mu, baiuv.STANDARD.sigma2
    ymax = min(np.log1p((mu[0] - mu[a]) ** 2 / s2[0]) for a in range(1, 5))
    ys = np.linspace(0, ymax * 0.999, 200)
    xs = np.zeros(5)
    F = np.array([_outer(mu, s2, 0, y, False, -1.0, xs, True) + 1.0 for y in ys])
    assert F[0] == 0.0
    assert np.all(np.diff(F) > 0)
    assert F[-1] > 1.0


def test_named_instances_ratios():
    # Section ssec:experiments states ~1.015 (standard) and ~1.384 (easy); see docs/decisions/paper.md D1
    assert baiuv.complexity_ratio(baiuv.EASY.mu, baiuv.EASY.sigma2) == pytest.approx(
        1.384, abs=5e-4
    )
    assert baiuv.complexity_ratio(baiuv.STANDARD.mu, baiuv.STANDARD.sigma2) == pytest.approx(
        1.0102, abs=1e-4
    )


@pytest.mark.parametrize(
    "mu,s2,kw,match",
    [
        ([0.0], [1.0], {}, "mu must have at least 2"),
        ([0.0, -1.0, -2.0], [1.0, 1.0], {}, "same length"),
        ([0.0, np.nan], [1.0, 1.0], {}, "mu must be finite"),
        ([0.0, -1.0], [1.0, np.inf], {}, "sigma2 must be finite"),
        ([0.0, -1.0], [1.0, 0.0], {}, "sigma2 must be > 0"),
        ([0.0, 0.0, -1.0], [1.0, 1.0, 1.0], {}, "unique best arm"),
        ([[0.0, -1.0]], [[1.0, 1.0]], {}, "mu must be 1-D"),
        ([0.0, -1.0], [1.0, 1.0], {"beta": 1.0}, "beta must be in"),
        ([0.0, -1.0], [1.0, 1.0], {"method": "newton"}, "method must be"),
    ],
)
def test_bad_input(mu, s2, kw, match):
    with pytest.raises(ValueError, match=match):
        baiuv.characteristic_time(mu, s2, **kw)
    with pytest.raises(ValueError, match=match):
        baiuv.optimal_allocation(mu, s2, **kw)


def _perturbed_sequence(rng, K, steps):
    """Statistics of a Track-and-Stop run in miniature: one arm moves per step, by an
    amount from 1e-5 to 1e-1, the best arm staying the same."""
    mu = np.sort(rng.uniform(0.0, 1.0, K))[::-1].copy()
    s2 = rng.uniform(0.05, 5.0, K)
    out = [(mu.copy(), s2.copy())]
    while len(out) < steps:
        a = int(rng.integers(K))
        eps = 10 ** rng.uniform(-5, -1)
        mu2, s22 = mu.copy(), s2.copy()
        mu2[a] += eps * rng.normal()
        s22[a] *= np.exp(eps * rng.normal())
        if int(np.argmax(mu2)) == 0:
            mu, s2 = mu2, s22
            out.append((mu.copy(), s2.copy()))
    return out


@pytest.mark.parametrize("known", [False, True])
@pytest.mark.parametrize("seed", range(6))
def test_joint_newton_from_a_nearby_root_is_the_nested_bisection_root(seed, known):
    """Warm-started as in Track-and-Stop (EV-TaS with known variances), with the minimisers
    ``l_a`` followed from call to call (a fifth work row), the oracle's joint iteration
    (decision D213) is taken in most calls and returns the root of the paper's nested
    binary searches."""
    from baiuv.model.oracle import _joint_newton, oracle_bisection, oracle_warm_work

    rng = np.random.default_rng(seed)
    K = [2, 3, 5, 8, 10, 20][seed]
    joint = 0
    seq = _perturbed_sequence(rng, K, 40)
    xs = np.zeros(K)
    work = np.full((5, K), np.nan)
    y = -1.0
    for mu, s2 in seq:
        if y > 0.0:
            scratch = np.empty((3, K))
            ls = work[4].copy()
            inst = (mu, s2, 0, known)
            if _joint_newton(inst, np.inf, y, xs.copy(), tuple(scratch), ls, not known) > 0:
                joint += 1
        T, w, y = oracle_warm_work(mu, s2, 0, known, -1.0, y, xs, work)
        Tb, wb = oracle_bisection(mu, s2, 0, known, -1.0)
        assert T == pytest.approx(Tb, rel=1e-9)
        np.testing.assert_allclose(w, wb, rtol=1e-8)
    assert joint >= 0.9 * (len(seq) - 1)


def test_hint_above_the_new_y_max_starts_the_joint_iteration():
    """When the closest challenger moves towards the best arm, ``y_max`` can fall below the
    previous root, which is then no start for the outer equation. With unknown variances
    and the minimisers kept (a fifth work row), the joint iteration starts at the
    safeguarded iteration's start ``y_max / 2`` from the kept ``x_a`` and ``l_a``
    (decision D224): it is taken in most such calls (the minimisers it followed are left
    in the fifth row, the safeguarded iteration leaves ``nan`` there) and returns the root
    of the paper's nested binary searches."""
    from baiuv.model.oracle import _ymax, oracle_bisection, oracle_warm_work

    rng = np.random.default_rng(5)
    calls = joint = 0
    while calls < 200:
        K = int(rng.integers(2, 11))
        mu = np.sort(rng.uniform(0.0, 1.0, K))[::-1].copy()
        s2 = rng.uniform(0.05, 5.0, K)
        xs = np.zeros(K)
        work = np.full((5, K), np.nan)
        _, _, y0 = oracle_warm_work(mu, s2, 0, False, -1.0, -1.0, xs, work)
        # the closest challenger moves towards the best arm, the others a little
        mu2, s22 = mu.copy(), s2.copy()
        a = 1 + int(np.argmax(mu[1:]))
        mu2[a] = mu[0] - (mu[0] - mu[a]) * rng.uniform(0.4, 0.8)
        mu2[1:] += 1e-3 * rng.normal(size=K - 1) * (mu[0] - mu[1:])
        s22 *= np.exp(0.05 * rng.normal(size=K))
        if int(np.argmax(mu2)) != 0 or not (y0 >= _ymax(mu2, s22, 0, False)):
            continue
        calls += 1
        T, w, _ = oracle_warm_work(mu2, s22, 0, False, -1.0, y0, xs, work)
        if np.isfinite(work[4, 1:]).all():
            joint += 1
        Tb, wb = oracle_bisection(mu2, s22, 0, False, -1.0)
        assert T == pytest.approx(Tb, rel=1e-9)
        np.testing.assert_allclose(w, wb, rtol=1e-8)
    assert joint >= 0.7 * calls


def test_followed_minimisers_are_certified():
    """A followed ``l_a`` is accepted only where the cubic has a single real root: far from
    the last minimiser, in a regime with two local minima (a noisy challenger close to the
    best arm), Newton's method on the first-order condition may land on the other local
    minimum, and the certificate refuses it."""
    from baiuv.model.oracle import _foc_newton
    from baiuv.model.transport import lambda_unknown, single_stationary_point

    refused = 0
    rng = np.random.default_rng(3)
    for _ in range(2000):
        mu1, mua = 0.0, -rng.uniform(0.5, 3.0)
        s21, s2a = rng.uniform(0.01, 0.2), rng.uniform(0.01, 0.2)
        x = 10 ** rng.uniform(-2, 2)
        start = rng.uniform(mua, mu1)
        lam = _foc_newton(mu1, s21, mua, s2a, x, start)
        if not np.isfinite(lam):
            continue
        best = lambda_unknown(mu1, s21, 1.0, mua, s2a, x)[0]
        if single_stationary_point(mu1, s21, mua, s2a, x):
            assert lam == pytest.approx(best, rel=1e-9, abs=1e-12)
        elif abs(lam - best) > 1e-6:
            refused += 1
    assert refused > 0


def _min_point(mu1, s21, mua, s2a, x):
    """``argmin_l d_1(l) + x d_a(l)`` on ``[mu_a, mu_1]``: a grid, then scipy's bounded
    scalar minimiser around the grid's best point."""

    def f(l):
        return np.log1p((l - mu1) ** 2 / s21) + x * np.log1p((l - mua) ** 2 / s2a)

    grid = np.linspace(mua, mu1, 4001)
    j = int(np.argmin(f(grid)))
    res = minimize_scalar(
        f,
        bounds=(grid[max(j - 1, 0)], grid[min(j + 1, 4000)]),
        method="bounded",
        options={"xatol": 1e-14},
    )
    return res.x


def test_joint_newton_root_solves_both_equations():
    """At the returned point every inner equation ``g_a(x_a) = y`` and the outer equation
    ``sum_a d_1(l_a) / d_a(l_a) = 1`` hold to rounding, computed here with scipy's scalar
    minimiser for each ``l_a``."""
    from baiuv.model.oracle import _joint_newton, oracle_warm_work

    rng = np.random.default_rng(11)
    for _ in range(20):
        K = int(rng.integers(2, 9))
        (mu0, s20), (mu, s2) = _perturbed_sequence(rng, K, 2)
        xs = np.zeros(K)
        _, _, y0 = oracle_warm_work(mu0, s20, 0, False, -1.0, -1.0, xs, np.empty((4, K)))
        scratch = tuple(np.empty((3, K)))
        y = _joint_newton((mu, s2, 0, False), np.inf, y0, xs, scratch, np.full(K, np.nan), True)
        assert y > 0.0
        total = 0.0
        for a in range(1, K):
            lam = _min_point(mu[0], s2[0], mu[a], s2[a], xs[a])
            d1 = np.log1p((lam - mu[0]) ** 2 / s2[0])
            da = np.log1p((lam - mu[a]) ** 2 / s2[a])
            assert d1 + xs[a] * da == pytest.approx(y, rel=1e-9)
            total += d1 / da
        assert total == pytest.approx(1.0, rel=1e-6)


#: Fixed instances of the fast oracle checks (best arm first).
_FIXED = [
    (np.array([1.0, 0.5, 0.0, -0.3]), np.array([1.0, 0.3, 2.0, 0.05])),
    (np.array([0.0, -0.2, -1.5]), np.array([0.2, 4.0, 1.0])),
    (np.array(baiuv.STANDARD.mu), np.array(baiuv.STANDARD.sigma2)),
]


def test_bisection_roots_agree_with_brentq_to_a_few_ulps():
    """The reference oracle's inner bisection (``_x_of_y_bisect``) stops at a bracket of
    relative width 1e-16: its roots of ``g_a(x) = y`` agree with scipy's ``brentq`` (relative
    tolerance 4 ulp) to 1e-14 on fixed instances, both variance models, three levels ``y``
    per arm. A 1000x looser bracket leaves errors up to 5e-14 and fails it. Fast, unlike
    :func:`test_fast_agrees_with_bisection`."""
    from scipy.optimize import brentq

    from baiuv.model.oracle import _d, _g, _x_of_y_bisect

    errs = []
    for mu, s2 in _FIXED:
        for known in (False, True):
            for a in range(1, mu.size):
                y_max = _d(mu[a], mu[0], s2[0], known)
                for frac in (0.1, 0.5, 0.9):
                    y = frac * y_max
                    x, _ = _x_of_y_bisect(mu[0], s2[0], mu[a], s2[a], y, known)

                    def f(v, mu=mu, s2=s2, a=a, y=y, known=known):
                        return _g(mu[0], s2[0], mu[a], s2[a], v, known)[0] - y

                    hi = 1.0
                    while f(hi) < 0.0:
                        hi *= 2.0
                    ref = brentq(f, 0.0, hi, xtol=1e-300, rtol=4 * np.finfo(float).eps)
                    errs.append(abs(x - ref) / ref)
    assert max(errs) <= 1e-14, max(errs)


def test_fast_agrees_with_bisection_on_fixed_instances():
    """:func:`test_fast_agrees_with_bisection` on fixed instances, fast: the two oracles'
    ``T`` and ``w`` agree to 1e-11 relative (their measured agreement is about 1e-13)."""
    for mu, s2 in _FIXED:
        for known in (False, True):
            for beta in (None, 0.5):
                kw = dict(known_variance=known, beta=beta)
                tf = baiuv.characteristic_time(mu, s2, **kw)
                tb = baiuv.characteristic_time(mu, s2, method="bisection", **kw)
                assert tf == pytest.approx(tb, rel=1e-11)
                wf = baiuv.optimal_allocation(mu, s2, **kw)
                wb = baiuv.optimal_allocation(mu, s2, method="bisection", **kw)
                np.testing.assert_allclose(wf, wb, rtol=1e-11)
