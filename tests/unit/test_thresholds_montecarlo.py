"""Monte Carlo checks of the calibrations (Section sec:calibration_stopping_rules and
Appendix app:box_concentration). Each check is paired with a deliberately miscalibrated
threshold on the same streams, to show that the harness detects a wrong calibration."""

import math

import numpy as np
import pytest
from numba import njit
from scipy import stats

from baiuv.thresholds import (
    kernels,
    make_threshold,
    mean_deviation_bound,
    new_arm_state,
    variance_lower_bound,
    variance_lower_initial_time,
    variance_upper_bound,
)

pytestmark = pytest.mark.slow

MU = np.array([0.0, -0.2])
SIG2 = np.array([1.0, 0.5])
T = 10_000
DELTA = 0.1


@njit(cache=False)
def _violations_log(seed, R, T, mu, sig2, thr):
    """Per stream: does sum_b N_b/2 ln(1 + (mu_{t,b} - mu_b)^2 / sigma_{t,b}^2) exceed thr[t]
    for some t <= T (alternating arms, thr indexed by t)? eq:log_based_concentration."""
    np.random.seed(seed)  # noqa: NPY002 (numba-internal RNG)
    out = np.zeros(R, dtype=np.bool_)
    for r in range(R):
        n = np.zeros(2)
        m = np.zeros(2)
        m2 = np.zeros(2)
        for t in range(1, T + 1):
            a = (t - 1) % 2
            x = mu[a] + math.sqrt(sig2[a]) * np.random.standard_normal()  # noqa: NPY002
            n[a] += 1
            d = x - m[a]
            m[a] += d / n[a]
            m2[a] += d * (x - m[a])
            if n[0] < 2 or n[1] < 2 or not math.isfinite(thr[t]):
                continue
            s = 0.0
            for b in range(2):
                s += 0.5 * n[b] * math.log1p((m[b] - mu[b]) ** 2 / (m2[b] / n[b]))
            if s > thr[t]:
                out[r] = True
                break
    return out


@njit(cache=False)
def _violations_kl(seed, R, T, mu, sig2, code, fparams, table):
    """eq:kl_based_concentration with the KL threshold (states updated every sample)."""
    np.random.seed(seed)  # noqa: NPY002 (numba-internal RNG)
    out = np.zeros(R, dtype=np.bool_)
    for r in range(R):
        n = np.zeros(2)
        m = np.zeros(2)
        m2 = np.zeros(2)
        sa = np.full(kernels.STATE_SIZE, np.nan)
        sb = np.full(kernels.STATE_SIZE, np.nan)
        sa[0] = -1.0
        sb[0] = -1.0
        for t in range(1, T + 1):
            a = (t - 1) % 2
            x = mu[a] + math.sqrt(sig2[a]) * np.random.standard_normal()  # noqa: NPY002
            n[a] += 1
            d = x - m[a]
            m[a] += d / n[a]
            m2[a] += d * (x - m[a])
            if a == 0:
                kernels.update_state(code, fparams, sa, int(n[0]), m[0], m2[0] / n[0])
            else:
                kernels.update_state(code, fparams, sb, int(n[1]), m[1], m2[1] / n[1])
            if n[0] < 2 or n[1] < 2:
                continue
            c = kernels.pair_threshold_kernel(code, fparams, table, t, int(n[0]), int(n[1]), sa, sb)
            if not math.isfinite(c):
                continue
            s = 0.0
            for b in range(2):
                v = m2[b] / n[b]
                # N KL((m, v), (mu, s2)) = N/2 (v/s2 + (m-mu)^2/s2 - 1 - ln(v/s2))
                s += (
                    0.5
                    * n[b]
                    * (v / sig2[b] + (m[b] - mu[b]) ** 2 / sig2[b] - 1 - math.log(v / sig2[b]))
                )
            if s > c:
                out[r] = True
                break
    return out


def _thr_by_time(name):
    spec = make_threshold(name, 2, DELTA)
    st = new_arm_state()
    thr = np.full(T + 1, np.inf)
    for t in range(1, T + 1):
        na, nb = (t + 1) // 2, t // 2
        if nb >= 1:
            thr[t] = kernels.pair_threshold_kernel(
                spec.code, spec.fparams, spec.table, t, na, nb, st, st
            )
    return thr


@pytest.mark.parametrize("name", ["student", "box"])
def test_glr_calibration_event(name):
    R = 2000
    freq = _violations_log(11, R, T, MU, SIG2, _thr_by_time(name)).mean()
    assert freq < DELTA  # observed: 0 for both


def test_harness_detects_a_miscalibrated_threshold():
    """Fixed-time Student quantile (no union bound over time): fails on the same event."""
    R = 1000
    thr = np.full(T + 1, np.inf)
    for t in range(4, T + 1):
        na, nb = (t + 1) // 2, t // 2
        vals = []
        for n in (na, nb):
            q = float(stats.t.isf(DELTA / 4, n - 1))  # fixed-time level, no 1/(zeta(s) n^s)
            vals.append(n * math.log1p(q * q / (n - 1)))
        thr[t] = max(vals)
    freq = _violations_log(12, R, T, MU, SIG2, thr).mean()
    assert freq > DELTA


def test_kl_calibration_event():
    R = 400
    spec = make_threshold("kl", 2, DELTA)
    freq = _violations_kl(13, R, T, MU, SIG2, spec.code, spec.fparams, spec.table).mean()
    assert freq < DELTA


@njit(cache=False)
def _variance_mean_failures(seed, R, T, up, lo, t0, mean_r2):
    """Per stream of T+1 N(0,1) samples: (upper variance bound fails, lower fails, mean fails)
    at some t in [1, T] (Corollary cor:uniform_time_upper_lower_tail_concentration_variance,
    Lemma lem:uniform_upper_lower_tails_concentration_mean)."""
    np.random.seed(seed)  # noqa: NPY002 (numba-internal RNG)
    out = np.zeros((R, 3), dtype=np.bool_)
    for r in range(R):
        m = 0.0
        m2 = 0.0
        for i in range(T + 1):
            x = np.random.standard_normal()  # noqa: NPY002
            n = i + 1
            d = x - m
            m += d / n
            m2 += d * (x - m)
            if m * m > mean_r2[n]:
                out[r, 2] = True
            if n >= 2:
                t = n - 1
                v = m2 / n  # sigma^2_{t+1}
                if v > up[t]:
                    out[r, 0] = True
                if t >= t0 and v < lo[t]:
                    out[r, 1] = True
    return out


def test_time_uniform_variance_and_mean_bounds():
    R, s, eta = 2000, 2.0, 1 / math.log(1 / DELTA)
    t = np.arange(0, T + 2, dtype=float)
    t[0] = 1.0
    up = variance_upper_bound(t, DELTA, s=s, eta1=eta)
    lo = variance_lower_bound(t, DELTA, s=s, eta0=eta)
    t0 = variance_lower_initial_time(DELTA, s=s, eta0=eta)
    mean_r2 = mean_deviation_bound(t, DELTA, s=s)
    fails = _variance_mean_failures(21, R, T, up, lo, t0, mean_r2)
    assert (1 - fails.mean(axis=0) >= 1 - DELTA).all()
    # power: fixed-time bounds at level delta (no peeling) applied at all t fail more often
    from baiuv.thresholds import lambert_wbar_0, lambert_wbar_m1

    up_fixed = lambert_wbar_m1(1 + 2 * math.log(1 / DELTA) / t) - 1 / t
    lo_fixed = lambert_wbar_0(1 + 2 * math.log(1 / DELTA) / t) - 1 / t
    mean_fixed = 2 * math.log(2 / DELTA) / t
    fails_fixed = _variance_mean_failures(21, R, T, up_fixed, lo_fixed, 1, mean_fixed)
    assert (fails_fixed.mean(axis=0) > DELTA).all()
