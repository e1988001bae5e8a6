"""Confidence levels carried as ln(1/delta) (decision D150): every threshold family, initial
time and run setting accepts ``log_inv_delta``; the values equal the delta-space ones where
delta is a double, follow the paper's closed forms (recomputed here with scipy root finding)
at ln(1/delta) = 1000, and grow like ln(1/delta) far out (asymptotic tightness of the
heuristic, KL and BoB thresholds; Definition def:asymptotically_tight_threshold)."""

import math

import numpy as np
import pytest
from scipy import optimize
from scipy.special import zeta

from baiuv.model.validate import log_inv_delta_of
from baiuv.registry import THRESHOLD_FAMILIES
from baiuv.thresholds import (
    FAMILIES,
    ThresholdParams,
    arm_state_from_samples,
    box_initial_count,
    eps_mu,
    initial_count,
    make_threshold,
    monotonicity_initial_count,
    one_minus_eps_minus,
    pair_threshold,
    student_log_ratio,
)
from baiuv.thresholds.families import STUDENT_LOG_ALPHA_MIN, student_max_log_inv_delta

RNG = np.random.default_rng(11)
XA = RNG.normal(0.0, 1.0, 60_000)
XB = RNG.normal(-0.3, 0.7, 60_000)


def wbar_m1_ref(x):
    """``w >= 1`` with ``w - ln w = x`` by bracketed root finding (independent of the Newton
    iteration of baiuv.thresholds.lambert)."""
    return optimize.brentq(lambda w: w - math.log(w) - x, 1.0, 2 * x + 10, xtol=1e-14, rtol=1e-15)


def wbar_0_ref(x):
    return optimize.brentq(
        lambda w: w - math.log(w) - x, 1e-300, 1.0, xtol=1e-300, rtol=1e-15, maxiter=500
    )


def box_ref(n, L, s, eta, ev=False):
    """One arm's term of the Box threshold (Lemma lem:delta_correct_box_thresholds) with log
    term ``L = ln(4(K-1)zeta(s)/delta)``."""
    em = wbar_m1_ref(1 + 2 * L + 2 * s + 2 * s * math.log(1 + math.log(n) / (2 * s))) / n
    t = n - 1
    om = wbar_0_ref(1 + 2 * (1 + eta) / t * (L + s * math.log(1 + math.log(t) / math.log1p(eta))))
    om -= 1 / t
    return n * em / (2 * om) if ev else n / 2 * math.log1p(em / om)


def _states(name, na, nb, **kw):
    return (
        arm_state_from_samples(name, XA[:na], K=2, **kw),
        arm_state_from_samples(name, XB[:nb], K=2, **kw),
    )


def _pair(name, na, nb, **kw):
    st = {}
    if name in ("kl", "bob", "ev-bob"):
        st = dict(zip(("state_a", "state_b"), _states(name, na, nb, **kw), strict=True))
    return pair_threshold(name, n_a=na, n_b=nb, K=2, **kw, **st)


# ----------------------------------------------------------------------------- argument
def test_log_inv_delta_of():
    assert log_inv_delta_of(0.01) == math.log(100.0)
    assert log_inv_delta_of(None, 1000) == 1000.0
    # 1/delta overflows for a subnormal delta: -ln(delta) is used
    assert log_inv_delta_of(5e-324) == pytest.approx(744.44007, rel=1e-7)
    for kw, match in [
        ({}, "exactly one of delta and log_inv_delta"),
        ({"delta": 0.1, "log_inv_delta": 2.0}, "exactly one"),
        ({"log_inv_delta": 0.0}, "log_inv_delta must be a finite number > 0"),
        ({"log_inv_delta": math.inf}, "log_inv_delta"),
        ({"log_inv_delta": "x"}, "log_inv_delta"),
        ({"delta": 1.0}, "delta must be in"),
    ]:
        with pytest.raises(ValueError, match=match):
            log_inv_delta_of(**kw)


@pytest.mark.parametrize("name", FAMILIES)
@pytest.mark.parametrize("delta", [0.1, 1e-3, 1e-10, 1e-200])
def test_spec_in_log_space_equals_delta_space(name, delta):
    """Where delta is a double, ``log_inv_delta = ln(1/delta)`` builds the same spec (every
    log term ``ln(c/delta) = ln c + ln(1/delta)`` up to rounding) and initial times."""
    L = math.log(1 / delta)
    student = name in ("student", "ev-student")  # the families with a Student table
    kw = {"n_table": 200} if student else {}
    if student and L > student_max_log_inv_delta(199, K=3):
        for arg in ({"delta": delta}, {"log_inv_delta": L}):
            with pytest.raises(ValueError, match="smaller delta"):
                make_threshold(name, 3, **arg, **kw)
        return
    a = make_threshold(name, 3, delta, **kw)
    b = make_threshold(name, 3, log_inv_delta=L, **kw)
    assert a.code == b.code
    np.testing.assert_allclose(a.fparams, b.fparams, rtol=1e-13, equal_nan=True)
    np.testing.assert_allclose(a.table, b.table, rtol=1e-12)
    if THRESHOLD_FAMILIES[name].kernel is None:  # a registered kernel has its own
        assert initial_count(name, 3, delta) == initial_count(name, 3, log_inv_delta=L)


@pytest.mark.parametrize("name", ["heuristic", "box", "kl", "bob", "ev-box", "ev-bob"])
def test_pair_threshold_log_space_equals_delta_space(name):
    for delta in (0.05, 1e-8):
        v_d = _pair(name, 3000, 1500, delta=delta)
        v_l = _pair(name, 3000, 1500, log_inv_delta=math.log(1 / delta))
        assert v_l == pytest.approx(v_d, rel=1e-12)


# ----------------------------------------------------------------------------- far out
def test_heuristic_closed_form_and_tightness():
    """ln((1 + ln t)/delta) = ln(1 + ln t) + ln(1/delta): exact at ln(1/delta) = 1000; the
    ratio to ln(1/delta) tends to 1."""
    t = 4000
    for L in (1000.0, 1e4, 1e6):
        v = pair_threshold("heuristic", n_a=2000, n_b=2000, t=t, K=2, log_inv_delta=L)
        assert v == pytest.approx(math.log1p(math.log(t)) + L, rel=1e-15)
    ratios = [
        pair_threshold("heuristic", n_a=2000, n_b=2000, t=t, K=2, log_inv_delta=L) / L
        for L in (10.0, 100.0, 1000.0, 1e5)
    ]
    assert np.all(np.diff(ratios) < 0) and ratios[-1] - 1 < 1e-4


@pytest.mark.parametrize("ev", [False, True])
def test_box_closed_form_at_log_inv_delta_1000(ev):
    """Box / EV-Box thresholds at ln(1/delta) = 1000 (delta = e^-1000 underflows) against
    Lemma lem:delta_correct_box_thresholds with Lambert branches by root finding."""
    L = 1000.0
    K, s = 3, 2.0
    Lbox = math.log(4 * (K - 1) * zeta(s)) + L
    name = "ev-box" if ev else "box"
    for na, nb in [(5000, 2000), (40_000, 40_000)]:
        got = pair_threshold(name, n_a=na, n_b=nb, K=K, log_inv_delta=L)
        ref = box_ref(na, Lbox, s, 1 / L, ev) + box_ref(nb, Lbox, s, 1 / L, ev)
        assert got == pytest.approx(ref, rel=1e-10)
    # the concentration terms take log_inv_delta as well
    assert eps_mu(5000, K=K, log_inv_delta=L) == pytest.approx(
        wbar_m1_ref(1 + 2 * Lbox + 2 * s + 2 * s * math.log(1 + math.log(5000) / (2 * s))) / 5000,
        rel=1e-12,
    )
    t, eta = 4999, 1 / L
    om = one_minus_eps_minus(t, K=K, eta0=eta, log_inv_delta=L)
    arg = 1 + 2 * (1 + eta) / t * (Lbox + s * math.log(1 + math.log(t) / math.log1p(eta)))
    assert om == pytest.approx(wbar_0_ref(arg) - 1 / t, rel=1e-10)
    assert 0 < om < 1


def test_initial_counts_in_log_space():
    """t^Box at ln(1/delta) = 1000 from its definition (first n with n > 1 + exp(1 +
    W0(...))), the delta/3 and delta/6 splits as ln(1/delta) + ln 3, + ln 6, and
    monotonicity of every initial count in ln(1/delta)."""
    from scipy.special import lambertw

    L = 1000.0
    eta = 1 / L
    Lbox = math.log(4 * zeta(2.0)) + L

    def cond(n):
        z = 2 * (1 + eta) / math.e * (Lbox + 2 * math.log(1 + math.log(n - 1) / math.log1p(eta)))
        return n > 1 + math.exp(1 + lambertw(z - 1 / math.e, 0).real)

    n = 3
    while not cond(n):
        n += 1
    assert box_initial_count(log_inv_delta=L, eta0=eta) == n
    p = ThresholdParams(eta0=eta, eta1=eta)
    assert initial_count("box", 2, log_inv_delta=L) == n
    assert initial_count("ev-bob", 2, log_inv_delta=L) == box_initial_count(
        log_inv_delta=L + math.log(6), eta0=eta
    )
    assert initial_count("kl", 2, log_inv_delta=L) == max(
        box_initial_count(log_inv_delta=L + math.log(3), eta0=eta),
        monotonicity_initial_count(log_inv_delta=L, eta0=eta, eta1=eta),
    )
    assert initial_count("bob", 2, log_inv_delta=L) == initial_count(
        "kl", 2, params=p, log_inv_delta=L + math.log(2)
    )
    grid = [1.0, 10.0, 100.0, 1000.0, 3000.0]
    for name in ("box", "kl", "bob", "ev-box", "ev-bob"):
        counts = [initial_count(name, 2, log_inv_delta=x) for x in grid]
        assert all(np.diff(counts) >= 0), (name, counts)
        assert counts[-1] < 0.5 * grid[-1]  # vanishing compared with T* ln(1/delta)


@pytest.mark.parametrize("name", ["kl", "bob", "ev-bob"])
def test_data_dependent_thresholds_linear_in_log_inv_delta(name):
    """KL and BoB are asymptotically tight: at fixed counts and samples, c(L)/L decreases
    to 1 and the increments c(L + 1000) - c(L) approach 1000 (slope 1 + O(1/L)); EV-BoB,
    which cannot be tight, still grows linearly (slope between 1 and 2). No overflow."""
    na, nb = 60_000, 30_000
    L = np.array([100.0, 1000.0, 2000.0, 5000.0])
    v = np.array([_pair(name, na, nb, log_inv_delta=x) for x in L])
    assert np.all(np.isfinite(v)) and np.all(np.diff(v) > 0)
    slope = (v[-1] - v[-2]) / (L[-1] - L[-2])
    if name == "ev-bob":
        assert 1.0 <= slope <= 2.0
    else:
        assert np.all(np.diff(v / L) < 0)
        assert 1.0 <= slope < 1.01
        assert v[1] / L[1] < 1.1


def test_box_is_not_tight_far_out():
    """Box ~ 2 ln(1/delta) for counts much larger than ln(1/delta): the ratio to
    ln(1/delta) stays near 2, not 1 (App. app:ss_asymptotically_tight_thresholds)."""
    r = [
        pair_threshold("box", n_a=10**9, n_b=10**9, K=2, log_inv_delta=x) / x
        for x in (1000.0, 4000.0)
    ]
    assert 1.9 < r[0] < 2.2 and 1.9 < r[1] < 2.1


# ----------------------------------------------------------------------------- Student
def test_student_refuses_below_its_smallest_delta():
    """The Student families need alpha_n >= e^-300 at every tabulated count; beyond, they
    refuse with a message naming the smallest delta; at the limit they still work."""
    n_table = 50
    lmax = student_max_log_inv_delta(n_table - 1, K=2, s=2.0)
    assert lmax == pytest.approx(
        -STUDENT_LOG_ALPHA_MIN - math.log(4 * zeta(2.0)) - 2 * math.log(n_table - 1)
    )
    for name in ("student", "ev-student"):
        spec = make_threshold(name, 2, n_table=n_table, log_inv_delta=lmax - 1e-9)
        assert np.all(np.isfinite(spec.table[2:]))
        with pytest.raises(ValueError, match=r"delta >= .*ln\(1/delta\) <= "):
            make_threshold(name, 2, n_table=n_table, log_inv_delta=lmax + 1e-6)
        with pytest.raises(ValueError, match="cannot be evaluated at ln\\(1/delta\\) = 1000"):
            make_threshold(name, 2, log_inv_delta=1000.0)
        with pytest.raises(ValueError, match="Student"):
            pair_threshold(name, n_a=5, n_b=5, K=2, log_inv_delta=1000.0)


def test_student_tail_at_the_floor_scipy_roundtrip_and_closed_forms():
    """At alpha = e^-300 (the floor) scipy's quantiles are accurate for every count of the
    table (log survival function at the quantile), and match the closed forms of the
    Student tails with 1 and 2 degrees of freedom: y = ln(1 + Q^2/nu)."""
    from scipy import stats

    nu = np.r_[np.arange(1, 400), np.geomspace(400, 2**17, 60).round()]
    q = stats.t.isf(math.exp(STUDENT_LOG_ALPHA_MIN), nu)
    assert np.all(np.isfinite(q))
    np.testing.assert_allclose(stats.t.logsf(q, nu), STUDENT_LOG_ALPHA_MIN, rtol=1e-8)
    log_alpha = STUDENT_LOG_ALPHA_MIN + 1e-9
    L2 = -log_alpha - math.log(4 * zeta(2.0)) - 2 * math.log(2)  # n = 2 (nu = 1)
    y2 = student_log_ratio(2, log_inv_delta=L2)
    # nu = 1: P(T > q) = atan(1/q)/pi ~ 1/(pi q)  =>  y = ln(1 + q^2) ~ 2 ln(1/(pi alpha))
    q1 = 1 / math.tan(math.pi * math.exp(log_alpha))
    assert y2 == pytest.approx(2 * math.log(q1), rel=1e-9)
    L3 = -log_alpha - math.log(4 * zeta(2.0)) - 2 * math.log(3)  # n = 3 (nu = 2)
    y3 = student_log_ratio(3, log_inv_delta=L3)
    # nu = 2: P(T > q) = (1 - q/sqrt(2 + q^2))/2 ~ 1/(2 q^2)  =>  1 + q^2/2 ~ 1/(4 alpha)
    assert y3 == pytest.approx(-math.log(4.0) - log_alpha, rel=1e-9)


@pytest.mark.parametrize("delta", [0.3, 0.05, 1e-4])
def test_splits_against_delta_space_statements(delta):
    """The delta/2, delta/3, delta/6 splits taken in log space match the statements written
    with delta/2, delta/3, delta/6 in delta space (initial times of Theorem
    thm:delta_correct_complex_threshold_glrt and Corollaries cor:delta_correct_Kinf_thresholds
    and _ev; log terms of the spec)."""
    L = math.log(1 / delta)
    eta = 1 / L
    z = zeta(2.0)
    for K in (2, 4):
        kl = max(
            box_initial_count(delta / 3, K=K, eta0=eta),
            monotonicity_initial_count(delta, K=K, eta0=eta, eta1=eta),
        )
        assert initial_count("kl", K, log_inv_delta=L) == kl
        bob = max(
            box_initial_count(delta / 6, K=K, eta0=eta),
            monotonicity_initial_count(delta / 2, K=K, eta0=eta, eta1=eta),
        )
        assert initial_count("bob", K, log_inv_delta=L) == bob
        assert initial_count("ev-bob", K, log_inv_delta=L) == box_initial_count(
            delta / 6, K=K, eta0=eta
        )
        from baiuv.thresholds import kernels as k

        fp = make_threshold("bob", K, log_inv_delta=L).fparams
        assert fp[k.P_LBOX] == pytest.approx(math.log(4 * (K - 1) * z / (delta / 2)), rel=1e-14)
        assert fp[k.P_LPRE] == pytest.approx(math.log(12 * (K - 1) * z / (delta / 2)), rel=1e-14)
        assert fp[k.P_LMAIN] == pytest.approx(math.log(2 * z * z / (delta / 2)), rel=1e-14)
        assert fp[k.P_NMIN_KL] == initial_count(
            "kl", K, delta / 2, ThresholdParams(eta0=eta, eta1=eta)
        )
        fp = make_threshold("kl", K, log_inv_delta=L).fparams
        assert fp[k.P_LPRE] == pytest.approx(math.log(12 * (K - 1) * z / delta), rel=1e-14)
