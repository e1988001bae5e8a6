"""Threshold families: each checked against the formula of its statement, recomputed here
independently with scipy, plus the orderings stated in the paper."""

import math

import numpy as np
import pytest
from scipy import optimize, stats
from scipy.special import lambertw, zeta

from baiuv.registry import THRESHOLD_FAMILIES
from baiuv.thresholds import (
    FAMILIES,
    ThresholdParams,
    arm_state_from_samples,
    initial_count,
    kernels,
    make_threshold,
    new_arm_state,
    pair_threshold,
    solve_bob,
    student_log_ratio,
    update_arm_state,
)


def wm1(x):
    return float(-lambertw(-math.exp(-x), -1).real)


def w0(x):
    return float(-lambertw(-math.exp(-x), 0).real)


def ref_box_terms(n, delta, K, s, eta):
    """(eps_mu(n), 1 - eps_{-,sigma}(n-1)) from Lemma lem:delta_correct_box_thresholds."""
    L = math.log(4 * (K - 1) * zeta(s) / delta)
    em = wm1(1 + 2 * L + 2 * s + 2 * s * math.log(1 + math.log(n) / (2 * s))) / n
    t = n - 1
    om = w0(1 + 2 * (1 + eta) / t * (L + s * math.log(1 + math.log(t) / math.log(1 + eta)))) - 1 / t
    return em, om


def ref_box(na, nb, delta, K=2, s=2.0, ev=False):
    eta = 1 / math.log(1 / delta)
    out = 0.0
    for n in (na, nb):
        em, om = ref_box_terms(n, delta, K, s, eta)
        out += n * em / (2 * om) if ev else n / 2 * math.log(1 + em / om)
    return out


def ref_student(n, delta, K=2, s=2.0, ev=False):
    q = stats.t.isf(delta / (4 * (K - 1) * zeta(s) * n**s), n - 1)
    return n / (n - 1) * q**2 if ev else n * math.log(1 + q**2 / (n - 1))


# ----------------------------------------------------------------------------- Student
@pytest.mark.parametrize("alpha", [1e-5, 1e-20, 1e-60])
def test_student_far_tail_closed_forms(alpha):
    """T_1 quantile is cot(pi alpha); T_2 quantile is (1-2a)/sqrt(2a(1-a))."""
    K, s = 2, 2.0
    # choose delta so that alpha_n = alpha at n = 2 / n = 3
    for n, q in (
        (2, 1 / math.tan(math.pi * alpha)),
        (3, (1 - 2 * alpha) / math.sqrt(2 * alpha * (1 - alpha))),
    ):
        delta = alpha * 4 * (K - 1) * zeta(s) * n**s
        if delta >= 1:
            continue
        y = student_log_ratio(n, delta, K=K, s=s)
        assert y == pytest.approx(math.log1p(q * q / (n - 1)), rel=1e-12)


def test_student_pair_and_kernel_table():
    delta = 0.01
    for na, nb in ((2, 2), (2, 50), (700, 300), (5000, 5000)):
        expect = max(ref_student(na, delta), ref_student(nb, delta))
        assert pair_threshold("student", n_a=na, n_b=nb, K=2, delta=delta) == pytest.approx(
            expect, rel=1e-12
        )
        ev = max(ref_student(na, delta, ev=True), ref_student(nb, delta, ev=True))
        assert pair_threshold("ev-student", n_a=na, n_b=nb, K=2, delta=delta) == pytest.approx(
            ev, rel=1e-12
        )
        spec = make_threshold("student", 2, delta)
        st = new_arm_state()
        k = kernels.pair_threshold_kernel(
            spec.code, spec.fparams, spec.table, na + nb, na, nb, st, st
        )
        assert k == pytest.approx(expect, rel=1e-12)
    assert pair_threshold("student", n_a=1, n_b=5, K=2, delta=delta) == math.inf


def test_student_bound_beyond_table_is_safe_and_tight():
    delta = 0.01
    n = np.array([3, 10, 100, 1000, 10_000, 100_000])
    exact = student_log_ratio(n, delta)
    spec = make_threshold("student", 2, delta)
    bound = np.array(
        [kernels.student_y_bound(float(m), spec.fparams[kernels.P_LSTUD], 2.0) for m in n]
    )
    assert np.all(bound >= exact * (1 - 1e-12))
    assert np.all((bound - exact) / exact < np.where(n >= 1000, 2e-3, 0.5))
    small = make_threshold("student", 2, delta, n_table=50)
    st = new_arm_state()
    v = kernels.pair_threshold_kernel(
        small.code, small.fparams, small.table, 2000.0, 1000, 1000, st, st
    )
    assert v >= 1000 * exact[3] and v == pytest.approx(1000 * exact[3], rel=2e-3)


# ----------------------------------------------------------------------------- Box
@pytest.mark.parametrize("delta", [0.1, 0.01, 1e-6])
@pytest.mark.parametrize("counts", [(40, 40), (25, 300), (2500, 2500)])
def test_box_matches_statement(delta, counts):
    na, nb = counts
    assert pair_threshold("box", n_a=na, n_b=nb, K=2, delta=delta) == pytest.approx(
        ref_box(na, nb, delta), rel=1e-9
    )
    assert pair_threshold("ev-box", n_a=na, n_b=nb, K=2, delta=delta) == pytest.approx(
        ref_box(na, nb, delta, ev=True), rel=1e-9
    )


def test_box_is_optimum_of_its_separable_nlp():
    """Proof of Lemma lem:delta_correct_box_thresholds: the Box threshold is the optimum of
    max sum N/2 ln(1+y) s.t. y >= 0, x y <= C, x >= D. Solved here with scipy (SLSQP) and with
    the Pyomo/cyipopt path of solve_bob (E = inf).

    SLSQP's status flag is not asserted: releases differ in how they end at this optimum
    (scipy 1.17 reports "Positive directional derivative for linesearch" at a point within
    4e-12 of the closed form). What is checked is release-independent: the point it returns
    is feasible and attains the closed form, and no feasible point of a dense sample of the
    box does better."""
    delta, na, nb = 0.01, 300, 120
    eta = 1 / math.log(1 / delta)
    (ca, da), (cb, db) = (
        ref_box_terms(na, delta, 2, 2.0, eta),
        ref_box_terms(nb, delta, 2, 2.0, eta),
    )
    N, C, D = np.array([na, nb]), np.array([ca, cb]), np.array([da, db])
    closed = pair_threshold("box", n_a=na, n_b=nb, K=2, delta=delta)

    # scaled variables: x = D * u, y = (C / D) * v, so that u, v are O(1)
    def neg(z):
        return -0.5 * np.sum(N * np.log1p(C / D * z[2:]))

    cons = [{"type": "ineq", "fun": lambda z: 1.0 - z[:2] * z[2:]}]  # x y <= C  <=>  u v <= 1
    bounds = [(1, 10), (1, 10), (0, 10), (0, 10)]
    res = optimize.minimize(
        neg,
        x0=[1.5, 1.5, 0.1, 0.1],
        bounds=bounds,
        constraints=cons,
        method="SLSQP",
        options={"ftol": 1e-14, "maxiter": 500},
    )
    z = res.x
    assert np.all(z[:2] >= 1 - 1e-9) and np.all(z[2:] >= -1e-12)  # x >= D, y >= 0
    assert np.all(z[:2] * z[2:] <= 1 + 1e-9)  # x y <= C
    assert -neg(z) == pytest.approx(closed, rel=1e-7)
    # the closed form is an upper bound on every feasible point (u v <= 1, u >= 1 => v <= 1)
    rng = np.random.default_rng(3)
    u = rng.uniform(1, 10, (20_000, 2))
    v = rng.uniform(0, 1, (20_000, 2)) / u
    vals = -np.array([neg(np.concatenate([a, b])) for a, b in zip(u, v, strict=True)])
    assert vals.max() <= closed * (1 + 1e-12)
    assert solve_bob(N, C, D, math.inf, backend="cyipopt") == pytest.approx(closed, rel=1e-8)
    ev = pair_threshold("ev-box", n_a=na, n_b=nb, K=2, delta=delta)
    assert solve_bob(N, C, D, math.inf, ev=True, backend="cyipopt") == pytest.approx(ev, rel=1e-8)


def test_box_infinite_before_initial_time():
    delta = 0.1
    n0 = initial_count("box", 2, delta)
    assert n0 == 16
    assert pair_threshold("box", n_a=n0 - 1, n_b=100, K=2, delta=delta) == math.inf
    assert math.isfinite(pair_threshold("box", n_a=n0, n_b=n0, K=2, delta=delta))


# ----------------------------------------------------------------------------- KL
def ref_kl(xa, xb, delta, K=2, s=2.0, gamma=1.2):
    """Theorem thm:delta_correct_complex_threshold_glrt recomputed from the samples."""
    eta = 1 / math.log(1 / delta)
    d3 = delta / 3

    def logR(x):
        N = len(x)
        i = math.floor(math.log(N) / math.log(gamma) + 1e-12)
        while gamma ** (i + 1) <= N:
            i += 1
        while gamma**i > N:
            i -= 1
        n = gamma**i
        first = math.ceil(n - 1e-9)  # first count >= gamma^i
        mu, var = np.mean(x[:first]), np.var(x[:first])
        em, om = ref_box_terms(n, d3, K, s, eta)
        L = math.log(4 * (K - 1) * zeta(s) / d3)
        t = n - 1
        op = (
            wm1(1 + 2 * (1 + eta) / t * (L + s * math.log(1 + math.log(t) / math.log(1 + eta))))
            - 1 / t
        )
        mpp2 = max(
            (mu + 2 * math.sqrt(var) * math.sqrt(em / om)) ** 2,
            (mu - 2 * math.sqrt(var) * math.sqrt(em / om)) ** 2,
        )
        sp2, sm2 = var * op / om, var * om / op

        def g(x_, y_):
            return 2 * x_ / (x_ + 2 * y_ + 0.5) ** 2

        def fpm(x_, sign):
            return (1 + sign * math.sqrt(1 - x_)) / math.sqrt(x_)

        R = sp2**1.5 * fpm(g(sp2, mpp2), 1) / (sm2**1.5 * fpm(g(sm2, mpp2), -1))
        return math.log(gamma * R)

    arg = 1 + math.log(2 * zeta(s) ** 2 / delta) / 4
    arg += s / 4 * sum(math.log(1 + math.log(len(x)) / math.log(gamma)) for x in (xa, xb))
    arg += 0.5 * (logR(xa) + logR(xb))
    return 4 * wm1(arg)


@pytest.mark.parametrize("delta", [0.1, 1e-4])
@pytest.mark.parametrize("counts", [(30, 30), (100, 57), (2500, 2500)])
def test_kl_matches_statement(delta, counts):
    rng = np.random.default_rng(1)
    xa = rng.normal(0.0, 1.0, counts[0])
    xb = rng.normal(-0.2, math.sqrt(0.5), counts[1])
    sa = arm_state_from_samples("kl", xa, K=2, delta=delta)
    sb = arm_state_from_samples("kl", xb, K=2, delta=delta)
    got = pair_threshold(
        "kl", n_a=counts[0], n_b=counts[1], K=2, delta=delta, state_a=sa, state_b=sb
    )
    assert got == pytest.approx(ref_kl(xa, xb, delta), rel=1e-9)


def test_kl_state_records_first_count_of_level():
    gamma = 1.2
    spec = make_threshold("kl", 2, 0.1)
    st = new_arm_state()
    x = np.arange(1, 200, dtype=float)
    for n in range(1, 200):
        kernels.update_state(
            spec.code, spec.fparams, st, n, float(np.mean(x[:n])), float(np.var(x[:n]))
        )
        i = int(st[kernels.S_LEVEL])
        assert gamma**i <= n < gamma ** (i + 1)
        c = int(st[kernels.S_COUNT])
        assert c == math.ceil(gamma**i - 1e-12) and st[kernels.S_MEAN] == np.mean(x[:c])


def test_stale_state_raises():
    rng = np.random.default_rng(0)
    sa = arm_state_from_samples("kl", rng.normal(size=100), K=2, delta=0.1)
    with pytest.raises(ValueError, match="stale"):
        pair_threshold("kl", n_a=200, n_b=100, K=2, delta=0.1, state_a=sa, state_b=sa)


# ----------------------------------------------------------------------------- orderings
def _states(name, n, delta, seed=3, params=None):
    rng = np.random.default_rng(seed)
    xa, xb = rng.normal(0, 1, n), rng.normal(-0.2, math.sqrt(0.5), n)
    return (
        arm_state_from_samples(name, xa, K=2, delta=delta, params=params),
        arm_state_from_samples(name, xb, K=2, delta=delta, params=params),
    )


@pytest.mark.parametrize("delta", [0.1, 1e-3, 1e-8])
@pytest.mark.parametrize("n", [60, 400, 3000])
def test_orderings(delta, n):
    """BoB <= min(Box(delta/2), KL(delta/2)) (Section ssec:beyond_box); EV versions >= GLR
    versions built the same way (Appendix app:sss_exp_thresholds). "Same way" includes the
    same eta's: BoB(delta) uses eta = 1/ln(1/delta) (D12), so Box/KL(delta/2) are built with
    it too."""
    eta = 1 / math.log(1 / delta)
    p = ThresholdParams(eta0=eta, eta1=eta)
    kw = dict(n_a=n, n_b=n, K=2, params=p)
    sa, sb = _states("bob", n, delta)
    ka, kb = _states("kl", n, delta / 2, params=p)
    bob = pair_threshold("bob", delta=delta, state_a=sa, state_b=sb, **kw)
    evbob = pair_threshold("ev-bob", delta=delta, state_a=sa, state_b=sb, **kw)
    box2 = pair_threshold("box", delta=delta / 2, **kw)
    kl2 = pair_threshold("kl", delta=delta / 2, state_a=ka, state_b=kb, **kw)
    assert bob <= min(box2, kl2) * (1 + 1e-6)
    assert evbob >= bob
    assert evbob <= pair_threshold("ev-box", delta=delta / 2, **kw) * (1 + 1e-6)
    for g, e in (("student", "ev-student"), ("box", "ev-box")):
        assert pair_threshold(e, delta=delta, **kw) >= pair_threshold(g, delta=delta, **kw)


def test_bob_stateful_python_equals_kernel_constants():
    """The C, D, E handed to solve_bob are the kernel's box constants and KL(delta/2)."""
    from baiuv.thresholds import bob_constants

    delta, n = 0.01, 500
    sa, sb = _states("bob", n, delta)
    C, D, E = bob_constants("bob", n, n, sa, sb, K=2, delta=delta)
    eta = 1 / math.log(1 / delta)  # eta of the nominal delta (D12)
    em, om = ref_box_terms(n, delta / 2, 2, 2.0, eta)
    np.testing.assert_allclose(C, em, rtol=1e-10)
    np.testing.assert_allclose(D, om, rtol=1e-9)
    p = ThresholdParams(eta0=eta, eta1=eta)
    ka, kb = _states("kl", n, delta / 2, params=p)
    kl2 = pair_threshold("kl", n_a=n, n_b=n, K=2, delta=delta / 2, state_a=ka, state_b=kb, params=p)
    assert E == pytest.approx(kl2, rel=1e-12)


def test_heuristic():
    for t in (1, 10, 5000):
        v = pair_threshold("heuristic", n_a=1, n_b=1, t=t, K=2, delta=0.01)
        assert v == pytest.approx(math.log((1 + math.log(t)) / 0.01))


@pytest.mark.parametrize("name", [f for f in FAMILIES if THRESHOLD_FAMILIES[f].kernel is None])
def test_kernel_equals_python(name):
    """The built-in kernel against the Python entry point (a family registered with its own
    kernel is its kernel in both)."""
    delta, n = 0.01, 300
    sa, sb = _states(name, n, delta) if name in ("kl", "bob", "ev-bob") else (new_arm_state(),) * 2
    spec = make_threshold(name, 2, delta)
    k = kernels.pair_threshold_kernel(spec.code, spec.fparams, spec.table, 2.0 * n, n, n, sa, sb)
    p = pair_threshold(name, n_a=n, n_b=n, K=2, delta=delta, state_a=sa, state_b=sb)
    assert k == pytest.approx(p, rel=1e-6)


def test_params_and_bad_input():
    p = ThresholdParams()
    assert (p.s, p.gamma) == (2.0, 1.2)
    assert p.etas(0.01) == pytest.approx((1 / math.log(100), 1 / math.log(100)))
    with pytest.raises(ValueError, match="gamma"):
        ThresholdParams(gamma=1.0)
    with pytest.raises(ValueError, match="eta0"):
        ThresholdParams(eta0=-1.0)
    with pytest.raises(ValueError, match="family"):
        pair_threshold("nope", n_a=5, n_b=5, K=2, delta=0.1)
    with pytest.raises(ValueError, match="n_a"):
        pair_threshold("box", n_a=0, n_b=5, K=2, delta=0.1)
    with pytest.raises(ValueError, match="delta"):
        pair_threshold("box", n_a=5, n_b=5, K=2, delta=2.0)
    with pytest.raises(ValueError, match="state_a"):
        pair_threshold("kl", n_a=5, n_b=5, K=2, delta=0.1)
    with pytest.raises(ValueError, match="n"):
        update_arm_state("kl", new_arm_state(), 0, 0.0, 1.0, K=2, delta=0.1)


def test_kl_union_over_pairs_option():
    delta, n = 0.01, 400
    p = ThresholdParams(kl_union_over_pairs=True)
    rng = np.random.default_rng(0)
    x = rng.normal(size=n)
    s = arm_state_from_samples("kl", x, K=5, delta=delta)
    a = pair_threshold("kl", n_a=n, n_b=n, K=5, delta=delta, state_a=s, state_b=s)
    b = pair_threshold("kl", n_a=n, n_b=n, K=5, delta=delta, state_a=s, state_b=s, params=p)
    assert b - a > 0  # ln(K-1) added to the main term only (preliminary terms have K-1)
    with pytest.raises(ValueError, match="another"):  # state built for another delta
        pair_threshold("kl", n_a=n, n_b=n, K=5, delta=delta / 4, state_a=s, state_b=s)
