"""Concentration terms of Section "Calibration of the Stopping Thresholds" and Appendix
"Box Concentration" (app:box_concentration).

All terms depend on ``delta`` only through a logarithmic term ``L``. The numba scalar
kernels (``*_L``) take ``L`` directly; the public functions take ``delta`` or, equivalently,
``log_inv_delta = ln(1/delta)`` (exactly one of them: levels far below the
smallest double, e.g. ``ln(1/delta) = 1000``, are exact), resolve it once
(:func:`~baiuv.model.validate.log_inv_delta_of`) and build ``L = ln(c) + ln(1/delta)``
as the statement they implement does; the log terms and the ``_*_lid`` cores take
``ln(1/delta)`` only (decision D252):

* Lemma lem:delta_correct_box_thresholds (Box thresholds) uses ``L = ln(4(K-1) zeta(s)/delta)``
  for ``eps_mu``, ``eps_{-,sigma}`` and the initial time ``t^Box``;
* Theorem thm:delta_correct_complex_threshold_glrt (KL thresholds) uses the same functions
  at ``delta/3``, i.e. ``L = ln(12(K-1) zeta(s)/delta)``, also for ``eps_{+,sigma}`` and ``t^m``;
* Corollary cor:uniform_time_upper_lower_tail_concentration_variance and
  Lemma lem:uniform_upper_lower_tails_concentration_mean (single arm) use
  ``L = ln(zeta(s)/delta)``.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from baiuv.model.validate import check_integer, check_real, log_inv_delta_of

from .lambert import log_wbar_0_scalar, wbar_m1_scalar

__all__ = [
    "riemann_zeta",
    "box_log_term",
    "single_arm_log_term",
    "eps_mu",
    "one_minus_eps_minus",
    "one_plus_eps_plus",
    "mean_deviation_bound",
    "variance_upper_bound",
    "variance_lower_bound",
    "variance_lower_initial_time",
    "box_initial_count",
    "box_initial_condition",
    "monotonicity_initial_count",
    "eps_mu_L",
    "one_minus_eps_minus_L",
    "one_plus_eps_plus_L",
]


# --------------------------------------------------------------------------- numba kernels
@njit(cache=True)
def eps_mu_L(t: float, L: float, s: float) -> float:
    """``eps_mu(t) = Wbar_{-1}(1 + 2L + 2s + 2s ln(1 + ln(t)/(2s))) / t`` (nan if ``t < 1``).

    Lemma lem:delta_correct_box_thresholds with ``L = ln(4(K-1) zeta(s)/delta)``; with
    ``L = ln(zeta(s)/delta)`` it is the squared radius of
    Lemma lem:uniform_upper_lower_tails_concentration_mean divided by ``sigma^2``.
    """
    if not (t >= 1.0):
        return math.nan
    return (
        wbar_m1_scalar(1.0 + 2.0 * L + 2.0 * s + 2.0 * s * math.log1p(math.log(t) / (2.0 * s))) / t
    )


@njit(cache=True)
def one_minus_eps_minus_L(t: float, L: float, s: float, eta0: float) -> float:
    """``1 - eps_{-,sigma}(t) = Wbar_0(1 + 2(1+eta0)/t (L + s ln(1 + ln_{1+eta0} t))) - 1/t``.

    Lemma lem:delta_correct_box_thresholds (lower variance factor); nan if ``t < 1``. May be
    ``<= 0`` before the Box initial time (eq:def_initial_time_box_thresholds).
    """
    if not (t >= 1.0):
        return math.nan
    arg = 1.0 + 2.0 * (1.0 + eta0) / t * (L + s * math.log1p(math.log(t) / math.log1p(eta0)))
    return math.exp(log_wbar_0_scalar(arg)) - 1.0 / t


@njit(cache=True)
def one_plus_eps_plus_L(t: float, L: float, s: float, eta1: float) -> float:
    """``1 + eps_{+,sigma}(t) = Wbar_{-1}(1 + 2(1+eta1)/t (L + s ln(1 + ln_{1+eta1} t))) - 1/t``.

    Theorem thm:delta_correct_complex_threshold_glrt (upper variance factor); nan if
    ``t < 1``.
    """
    if not (t >= 1.0):
        return math.nan
    arg = 1.0 + 2.0 * (1.0 + eta1) / t * (L + s * math.log1p(math.log(t) / math.log1p(eta1)))
    return wbar_m1_scalar(arg) - 1.0 / t


# --------------------------------------------------------------------------- validation
def check_K(K) -> int:
    """``K`` as an integer ``>= 2`` (``ValueError`` naming ``K`` otherwise)."""
    return check_integer(K, "K", 2)


def _check_s(s) -> float:
    s = check_real(s, "s", "> 1")
    if not (s > 1.0) or math.isinf(s):
        raise ValueError(f"s must be a finite number > 1, got {s!r}")
    return s


def _check_eta(eta, name: str) -> float:
    e = float(eta)
    if not (e > 0.0) or math.isinf(e):
        raise ValueError(f"{name} must be a finite number > 0, got {eta!r}")
    return e


def _check_t(t, name: str = "t") -> np.ndarray:
    arr = np.asarray(t, dtype=np.float64)
    if np.any(np.isnan(arr)) or np.any(arr < 1.0):
        raise ValueError(f"{name} must be >= 1, got {t!r}")
    return arr


def _out(arr):
    return float(arr) if np.ndim(arr) == 0 else arr


def riemann_zeta(s: float) -> float:
    """Riemann zeta function ``zeta(s)`` for ``s > 1`` (``scipy.special.zeta``)."""
    from scipy.special import zeta  # imported on use: scipy.special is slow to import

    return float(zeta(_check_s(s), 1.0))


def box_log_term(K: int = 2, s: float = 2.0, *, log_inv_delta: float) -> float:
    """``L = ln(4(K-1) zeta(s)) + ln(1/delta)``, log term of Lemma
    lem:delta_correct_box_thresholds (``log_inv_delta``: ``ln(1/delta)``, resolved by the
    caller)."""
    return math.log(4.0 * (check_K(K) - 1) * riemann_zeta(s)) + log_inv_delta


def single_arm_log_term(s: float = 2.0, *, log_inv_delta: float) -> float:
    """``L = ln(zeta(s)) + ln(1/delta)`` of the single-arm concentration results
    (``log_inv_delta``: ``ln(1/delta)``, resolved by the caller)."""
    return math.log(riemann_zeta(_check_s(s))) + log_inv_delta


# --------------------------------------------------------------------------- public terms
def eps_mu(t, delta: float | None = None, *, K: int = 2, s: float = 2.0, log_inv_delta=None):
    """``eps_mu(t, delta)`` of Lemma 4 (lem:delta_correct_box_thresholds).

    ``eps_mu(t, delta) = Wbar_{-1}(1 + 2 ln(4(K-1)zeta(s)/delta) + 2s
    + 2s ln(1 + ln(t)/(2s))) / t``.

    Parameters
    ----------
    t : float or array_like
        Number of samples, ``>= 1`` (may be non-integer).
    delta : float
        Confidence level in ``(0, 1)``; pass ``delta/3`` for the KL theorem.
    log_inv_delta : float, optional
        ``ln(1/delta)`` instead of ``delta`` (exactly one of them).
    K : int
        Number of arms (``>= 2``).
    s : float
        Peeling exponent, ``> 1``.

    Raises
    ------
    ValueError
        On invalid ``t``, ``delta``, ``K`` or ``s``.
    """
    arr = _check_t(t)
    L = box_log_term(K, s, log_inv_delta=log_inv_delta_of(delta, log_inv_delta))
    return _out(np.vectorize(lambda x: eps_mu_L(x, L, float(s)))(arr))


def one_minus_eps_minus(
    t, delta: float | None = None, *, K: int = 2, s: float = 2.0, eta0: float, log_inv_delta=None
):
    """``1 - eps_{-,sigma}(t, delta)`` of Lemma 4 (lem:delta_correct_box_thresholds).

    ``Wbar_0(1 + 2(1+eta0)/t (ln(4(K-1)zeta(s)/delta) + s ln(1 + ln(t)/ln(1+eta0)))) - 1/t``;
    positive exactly after the Box initial condition (eq:def_initial_time_box_thresholds,
    with ``t = N - 1``).

    Raises
    ------
    ValueError
        On invalid arguments.
    """
    arr = _check_t(t)
    L = box_log_term(K, s, log_inv_delta=log_inv_delta_of(delta, log_inv_delta))
    e0 = _check_eta(eta0, "eta0")
    return _out(np.vectorize(lambda x: one_minus_eps_minus_L(x, L, float(s), e0))(arr))


def one_plus_eps_plus(
    t, delta: float | None = None, *, K: int = 2, s: float = 2.0, eta1: float, log_inv_delta=None
):
    """``1 + eps_{+,sigma}(t, delta)`` in the convention of Lemma 4 (``4(K-1)zeta(s)/delta``).

    Theorem 6 (thm:delta_correct_complex_threshold_glrt) writes it with
    ``12(K-1)zeta(s)/delta``, i.e. this function at ``delta/3``.

    Raises
    ------
    ValueError
        On invalid arguments.
    """
    arr = _check_t(t)
    L = box_log_term(K, s, log_inv_delta=log_inv_delta_of(delta, log_inv_delta))
    e1 = _check_eta(eta1, "eta1")
    return _out(np.vectorize(lambda x: one_plus_eps_plus_L(x, L, float(s), e1))(arr))


def mean_deviation_bound(t, delta: float | None = None, *, s: float = 2.0, log_inv_delta=None):
    """Squared normalised radius of Lemma lem:uniform_upper_lower_tails_concentration_mean.

    With probability ``>= 1 - delta``, for all ``t``: ``(mu_t - mu)^2 / sigma^2 <=
    Wbar_{-1}(1 + 2 ln(1/delta) + 2 g(s) + 2s ln(2s + ln t)) / t`` with
    ``g(s) = ln zeta(s) + s(1 - ln 2s)``; this equals ``eps_mu_L(t, ln(zeta(s)/delta), s)``.

    Raises
    ------
    ValueError
        On invalid arguments.
    """
    arr = _check_t(t)
    s = _check_s(s)
    L = single_arm_log_term(s, log_inv_delta=log_inv_delta_of(delta, log_inv_delta))
    return _out(np.vectorize(lambda x: eps_mu_L(x, L, s))(arr))


def variance_upper_bound(
    t, delta: float | None = None, *, s: float = 2.0, eta1: float, log_inv_delta=None
):
    """Upper bound of Corollary cor:uniform_time_upper_lower_tail_concentration_variance.

    With probability ``>= 1 - delta``, for all ``t >= 1``, ``sigma^2_{t+1} / sigma^2 <=
    Wbar_{-1}(1 + 2(1+eta1)/t (ln(zeta(s)/delta) + s ln(1 + ln(t)/ln(1+eta1)))) - 1/t``
    where ``sigma^2_{t+1}`` is the (1/n) empirical variance of ``t+1`` samples.

    Raises
    ------
    ValueError
        On invalid arguments.
    """
    arr = _check_t(t)
    s = _check_s(s)
    e1 = _check_eta(eta1, "eta1")
    L = single_arm_log_term(s, log_inv_delta=log_inv_delta_of(delta, log_inv_delta))
    return _out(np.vectorize(lambda x: one_plus_eps_plus_L(x, L, s, e1))(arr))


def variance_lower_bound(
    t, delta: float | None = None, *, s: float = 2.0, eta0: float, log_inv_delta=None
):
    """Lower bound of Corollary cor:uniform_time_upper_lower_tail_concentration_variance.

    With probability ``>= 1 - delta``, for all ``t >= t_0(delta)``, ``sigma^2_{t+1} / sigma^2 >=
    Wbar_0(1 + 2(1+eta0)/t (ln(zeta(s)/delta) + s ln(1 + ln(t)/ln(1+eta0)))) - 1/t``
    (non-positive, hence vacuous, before ``t_0``).

    Raises
    ------
    ValueError
        On invalid arguments.
    """
    arr = _check_t(t)
    s = _check_s(s)
    e0 = _check_eta(eta0, "eta0")
    L = single_arm_log_term(s, log_inv_delta=log_inv_delta_of(delta, log_inv_delta))
    return _out(np.vectorize(lambda x: one_minus_eps_minus_L(x, L, s, e0))(arr))


def _exp_one_plus_w0(L: float, s: float, eta0: float, t: float) -> float:
    """``exp(1 + W_0(2(1+eta0)/e (L + s ln(1 + ln t / ln(1+eta0))) - 1/e))``."""
    z = 2.0 * (1.0 + eta0) / math.e * (L + s * math.log1p(math.log(t) / math.log1p(eta0)))
    z -= 1.0 / math.e
    # scipy.special is slow to import: loaded on first use
    from scipy.special import lambertw

    return math.exp(1.0 + float(lambertw(z, 0).real))


def variance_lower_initial_time(
    delta: float | None = None, *, s: float = 2.0, eta0: float, log_inv_delta=None
) -> int:
    """``t_0(delta)`` of Corollary cor:uniform_time_upper_lower_tail_concentration_variance.

    Smallest integer ``t >= 1`` with ``t > exp(1 + W_0(2(1+eta0)/e (ln(zeta(s)/delta) +
    s ln(1 + ln(t)/ln(1+eta0))) - 1/e))``.

    Raises
    ------
    ValueError
        On invalid arguments.
    """
    s = _check_s(s)
    e0 = _check_eta(eta0, "eta0")
    L = single_arm_log_term(s, log_inv_delta=log_inv_delta_of(delta, log_inv_delta))
    return _first_integer(lambda t: t > _exp_one_plus_w0(L, s, e0, t), 1)


def _first_integer(cond, start: int, limit: int = 10**9) -> int:
    """Smallest integer ``n >= start`` with ``cond(n)``; exponential then binary search,
    valid for conditions that stay true once true (checked in the tests)."""
    if cond(start):
        return start
    hi = start + 1
    step = 1
    while not cond(hi):
        step *= 2
        hi = start + step
        if hi > limit:
            raise ValueError("initial-time condition never satisfied (below limit)")
    lo = hi - step // 2 if step > 1 else start
    lo = max(lo, start)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if cond(mid):
            hi = mid
        else:
            lo = mid
    return hi


def box_initial_condition(
    n, delta: float | None = None, *, K: int = 2, s: float = 2.0, eta0: float, log_inv_delta=None
) -> bool:
    """Condition of eq:def_initial_time_box_thresholds at count ``n``:
    ``n > 1 + exp(1 + W_0(2(1+eta0)/e (L + s ln(1 + ln(n-1)/ln(1+eta0))) - 1/e))`` with
    ``L = ln(4(K-1)zeta(s)/delta)`` (false for ``n <= 2``).
    """
    L = box_log_term(K, s, log_inv_delta=log_inv_delta_of(delta, log_inv_delta))
    e0 = _check_eta(eta0, "eta0")
    return _box_condition_L(float(n), L, float(s), e0)


def _box_condition_L(n: float, L: float, s: float, eta0: float) -> bool:
    if n <= 2.0:
        return False
    return n > 1.0 + _exp_one_plus_w0(L, s, eta0, n - 1.0)


def box_initial_count(
    delta: float | None = None, *, K: int = 2, s: float = 2.0, eta0: float, log_inv_delta=None
) -> int:
    """Smallest per-arm count ``n`` satisfying the Box initial condition
    (eq:def_initial_time_box_thresholds, Lemma lem:delta_correct_box_thresholds).

    ``t^Box_a(delta)`` is the first time at which ``N_{t,a}`` reaches this count. Pass
    ``delta/3`` (KL) or ``delta/6`` (BoB, EV-BoB).

    Raises
    ------
    ValueError
        On invalid arguments.
    """
    return _box_initial_count_lid(log_inv_delta_of(delta, log_inv_delta), K, s, eta0)


def _box_initial_count_lid(log_inv_delta: float, K, s, eta0) -> int:
    """:func:`box_initial_count` at ``ln(1/delta) = log_inv_delta`` (resolved by the caller)."""
    _check_s(s)
    L = box_log_term(K, s, log_inv_delta=log_inv_delta)
    e0 = _check_eta(eta0, "eta0")
    return _first_integer(lambda n: _box_condition_L(float(n), L, float(s), e0), 3)


def monotonicity_initial_count(
    delta: float | None = None,
    *,
    K: int = 2,
    s: float = 2.0,
    eta0: float,
    eta1: float,
    log_inv_delta: float | None = None,
) -> int:
    """Smallest per-arm count satisfying eq:def_initial_time_monotonicity (``t^m``) of
    Theorem thm:delta_correct_complex_threshold_glrt:
    ``n > 1 + max(exp(s/L)/(1+eta0), exp(s/(L - 1/(2(1+eta1))))/(1+eta1))`` with
    ``L = ln(12(K-1)zeta(s)/delta)``.

    Raises
    ------
    ValueError
        On invalid arguments, or if ``L <= 1/(2(1+eta1))``.
    """
    return _monotonicity_initial_count_lid(log_inv_delta_of(delta, log_inv_delta), K, s, eta0, eta1)


def _monotonicity_initial_count_lid(log_inv_delta: float, K, s, eta0, eta1) -> int:
    """:func:`monotonicity_initial_count` at ``ln(1/delta) = log_inv_delta`` (resolved by the
    caller)."""
    s = _check_s(s)
    e0 = _check_eta(eta0, "eta0")
    e1 = _check_eta(eta1, "eta1")
    L = math.log(12.0 * (check_K(K) - 1) * riemann_zeta(s)) + log_inv_delta
    denom = L - 1.0 / (2.0 * (1.0 + e1))
    if denom <= 0:
        raise ValueError("monotonicity initial time undefined: ln(12(K-1)zeta(s)/delta) too small")
    bound = 1.0 + max(math.exp(s / L) / (1.0 + e0), math.exp(s / denom) / (1.0 + e1))
    return int(math.floor(bound)) + 1
