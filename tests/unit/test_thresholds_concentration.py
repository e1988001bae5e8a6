"""Concentration terms and initial times (Lemma lem:delta_correct_box_thresholds, Theorem
thm:delta_correct_complex_threshold_glrt, Appendix app:box_concentration)."""

import math

import numpy as np
import pytest
from scipy.special import lambertw, zeta

from baiuv.thresholds import (
    box_initial_count,
    eps_mu,
    mean_deviation_bound,
    monotonicity_initial_count,
    one_minus_eps_minus,
    one_plus_eps_plus,
    variance_lower_bound,
    variance_lower_initial_time,
    variance_upper_bound,
)
from baiuv.thresholds.concentration import box_initial_condition


def wm1(x):  # independent reference through scipy (fine away from x = 1)
    return -lambertw(-np.exp(-np.asarray(x, float)), -1).real


def w0(x):
    return -lambertw(-np.exp(-np.asarray(x, float)), 0).real


T = np.array([2.0, 5.0, 17.0, 100.0, 2500.0, 1e5])


@pytest.mark.parametrize("delta", [0.1, 1e-3, 1e-8])
@pytest.mark.parametrize("K", [2, 5])
def test_box_terms_match_statement(delta, K):
    s, eta = 2.0, 0.4
    L = math.log(4 * (K - 1) * zeta(s) / delta)
    ref_mu = wm1(1 + 2 * L + 2 * s + 2 * s * np.log(1 + np.log(T) / (2 * s))) / T
    ref_m = w0(1 + 2 * (1 + eta) / T * (L + s * np.log(1 + np.log(T) / np.log(1 + eta)))) - 1 / T
    ref_p = wm1(1 + 2 * (1 + eta) / T * (L + s * np.log(1 + np.log(T) / np.log(1 + eta)))) - 1 / T
    np.testing.assert_allclose(eps_mu(T, delta, K=K, s=s), ref_mu, rtol=1e-11)
    np.testing.assert_allclose(one_minus_eps_minus(T, delta, K=K, s=s, eta0=eta), ref_m, rtol=1e-9)
    np.testing.assert_allclose(one_plus_eps_plus(T, delta, K=K, s=s, eta1=eta), ref_p, rtol=1e-11)


@pytest.mark.parametrize("s", [1.5, 2.0, 3.0])
def test_mean_bound_is_lemma_with_g(s):
    """Lemma lem:uniform_upper_lower_tails_concentration_mean: W(1 + 2 ln(1/delta) + 2g(s) +
    2s ln(2s + ln t)) / t with g(s) = ln zeta(s) + s(1 - ln 2s)."""
    delta = 0.05
    g = math.log(zeta(s)) + s * (1 - math.log(2 * s))
    ref = wm1(1 + 2 * math.log(1 / delta) + 2 * g + 2 * s * np.log(2 * s + np.log(T))) / T
    np.testing.assert_allclose(mean_deviation_bound(T, delta, s=s), ref, rtol=1e-11)


def test_variance_bounds_match_corollary():
    delta, s, eta = 0.1, 2.0, 0.3
    L = math.log(zeta(s) / delta)
    arg = 1 + 2 * (1 + eta) / T * (L + s * np.log(1 + np.log(T) / np.log(1 + eta)))
    np.testing.assert_allclose(variance_upper_bound(T, delta, s=s, eta1=eta), wm1(arg) - 1 / T)
    np.testing.assert_allclose(
        variance_lower_bound(T, delta, s=s, eta0=eta), w0(arg) - 1 / T, rtol=1e-9
    )


@pytest.mark.parametrize("delta", [0.3, 0.1, 1e-2, 1e-3, 1e-6, 1e-12])
@pytest.mark.parametrize("K", [2, 10])
def test_box_initial_count_is_positivity_of_lower_variance_factor(delta, K):
    """Lemma lem:lambert_branches_properties (last item): the initial condition
    eq:def_initial_time_box_thresholds at N is equivalent to 1 - eps_{-,sigma}(N-1) > 0, and
    once true it stays true (checked up to N = 2e5)."""
    eta = 1 / math.log(1 / delta)
    n0 = box_initial_count(delta, K=K, eta0=eta)
    n = np.arange(3, 200_000, dtype=float)
    pos = one_minus_eps_minus(n - 1, delta, K=K, eta0=eta) > 0
    assert not pos[: n0 - 3].any()
    assert pos[n0 - 3 :].all()
    for m in (n0 - 1, n0, n0 + 1, 1000):
        assert box_initial_condition(m, delta, K=K, eta0=eta) == (m >= n0)


def test_paper_initial_times():
    """Section sec:calibration_stopping_rules: the Box condition holds after 16 samples per
    arm at delta = 0.1 (we also get 16) and the monotonicity condition after 2 (first count 3)
    for s = 2, eta = 1/ln(1/delta), K = 2. At delta = 0.001 we get 19 (paper: 20), see D21."""
    for delta, expect in ((0.1, 16), (0.001, 19)):
        eta = 1 / math.log(1 / delta)
        assert box_initial_count(delta, K=2, s=2, eta0=eta) == expect
    for delta in (0.1, 0.01, 0.001, 1e-6):
        eta = 1 / math.log(1 / delta)
        assert monotonicity_initial_count(delta, K=2, s=2, eta0=eta, eta1=eta) == 3


def test_variance_lower_initial_time():
    delta, eta = 0.1, 0.4
    t0 = variance_lower_initial_time(delta, eta0=eta)
    lb = variance_lower_bound(np.arange(1, 400, dtype=float), delta, eta0=eta)
    assert np.all(lb[: t0 - 1] <= 0) and np.all(lb[t0 - 1 :] > 0)


def test_monotone_in_t():
    t = np.geomspace(1, 1e7, 500)
    assert np.all(np.diff(eps_mu(t, 0.01)) < 0)
    t1 = t[t >= 2]  # ln(1 + ln t / ln(1+eta)) grows fast just above t = 1
    assert np.all(np.diff(one_plus_eps_plus(t1, 0.01, eta1=0.2)) < 0)
    t2 = t[t > 20]
    assert np.all(np.diff(one_minus_eps_minus(t2, 0.01, eta0=0.2)) > 0)


@pytest.mark.parametrize(
    "call,arg",
    [
        (lambda: eps_mu(0.5, 0.1), "t"),
        (lambda: eps_mu(2, 1.5), "delta"),
        (lambda: eps_mu(2, 0.1, K=1), "K"),
        (lambda: eps_mu(2, 0.1, s=1.0), "s"),
        (lambda: one_minus_eps_minus(2, 0.1, eta0=0), "eta0"),
        (lambda: one_plus_eps_plus(2, 0.1, eta1=-1), "eta1"),
        (lambda: box_initial_count(0.0, eta0=0.1), "delta"),
    ],
)
def test_bad_input(call, arg):
    with pytest.raises(ValueError, match=arg):
        call()
