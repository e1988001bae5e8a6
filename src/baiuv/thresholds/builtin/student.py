"""The Student thresholds: ``student`` (Lemma lem:delta_correct_student_thresholds, GLR)
and ``ev-student`` (Lemma lem:delta_correct_student_thresholds_ev, EV-GLR).

``beta^S(n, delta) = n y_n`` and ``n/(n-1) Q^2 = n (e^{y_n} - 1)`` with ``y_n = ln(1 +
Q(1 - alpha_n; T_{n-1})^2 / (n - 1))``, ``alpha_n = delta / (4(K-1) zeta(s) n^s)``: the
pair threshold is the larger of the two arms' terms. The kernel reads ``y_n`` from a table
of exact scipy values below ``n_table`` and the safe closed-form bound
:func:`student_y_bound` beyond it (decision D13).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from baiuv.model.validate import log_inv_delta_of
from baiuv.registry import STUDENT

from ..concentration import check_K, riemann_zeta
from ..layout import LB_NONE, P_LB_NMIN, P_LSTUD, P_NMIN, P_S, upper_window

NAMES = ("student", "ev-student")
#: ``constants`` fills a table of ``n_table`` exact values
USES_N_TABLE = True
#: ``ln`` of the smallest Student tail probability ``alpha_n`` evaluated with scipy
#: (``e^-300``; decision D152: scipy's ``t.isf`` returns ``-inf`` or wrong values from about
#: ``e^-400`` on for small degrees of freedom). Below it the Student families refuse.
STUDENT_LOG_ALPHA_MIN = -300.0
#: smallest Student table from which the lower bounds of D254 are used
LB_MIN_TABLE = 2**10


# ----------------------------------------------------------------------------- numba
@njit(cache=True)
def student_y_bound(n: float, lstud: float, s: float) -> float:
    """Upper bound on ``y_n = ln(1 + Q(1 - alpha_n; T_{n-1})^2 / (n-1))`` without scipy.

    With ``a = (n-1)/2`` and ``z = e^{-y}``, ``P(|T_{n-1}| >= q) = I_z(a, 1/2) <= z^a /
    (a B(a, 1/2) sqrt(1 - z))``; solving ``bound = 2 alpha_n`` gives ``y_u >= y_n``, hence
    a larger (safe) Student threshold. Used beyond the precomputed table (decision D13).
    """
    a = 0.5 * (n - 1.0)
    lnB = math.lgamma(a) + math.lgamma(0.5) - math.lgamma(a + 0.5)
    c = math.log(a) + lnB + (lstud - s * math.log(n))  # F(y) = a y + 0.5 ln(1-e^-y) + c
    lo = 0.0
    hi = 1.0
    while a * hi + 0.5 * math.log(-math.expm1(-hi)) + c < 0.0:
        lo = hi
        hi *= 2.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:
            break
        f = a * mid + 0.5 * math.log(-math.expm1(-mid)) + c
        if f < 0.0:
            lo = mid
        else:
            hi = mid
    return hi


@njit(cache=True)
def _student_y(n: int, fparams: np.ndarray, table: np.ndarray) -> float:
    if n < table.shape[0]:
        return table[n]
    return student_y_bound(float(n), fparams[P_LSTUD], fparams[P_S])


@njit(cache=True)
def value(code, fparams, table, t, n_a, n_b, state_a, state_b) -> float:
    """``max(N_a y_{N_a}, N_b y_{N_b})`` (``student``) or ``max(N (e^{y_N} - 1))``
    (``ev-student``); ``+inf`` before the initial count."""
    nmin = fparams[P_NMIN]
    if n_a < nmin or n_b < nmin:
        return math.inf
    ya = _student_y(n_a, fparams, table)
    yb = _student_y(n_b, fparams, table)
    if code == STUDENT:
        return max(n_a * ya, n_b * yb)
    return max(n_a * math.expm1(ya), n_b * math.expm1(yb))


@njit(cache=True)
def upper_bound(code, fparams, table, n_a, n_b, state_a, state_b):
    """``max(g(N_a), g(N_b))``, ``g`` non-decreasing from ``P_LB_NMIN`` on (decision
    D254): the value at the window's largest count for an arm at or beyond it, at the
    count itself (a window of one count) below it; none when both arms are below it."""
    hi_a = upper_window(n_a)
    hi_b = upper_window(n_b)
    n_star = fparams[P_LB_NMIN]
    if n_a < n_star:
        hi_a = n_a
    if n_b < n_star:
        hi_b = n_b
    if hi_a == n_a and hi_b == n_b:
        return math.inf, -1.0, -1.0
    ya = _student_y(hi_a, fparams, table)
    yb = _student_y(hi_b, fparams, table)
    if code == STUDENT:
        v = max(hi_a * ya, hi_b * yb)
    else:
        v = max(hi_a * math.expm1(ya), hi_b * math.expm1(yb))
    return v, float(hi_a), float(hi_b)


# ----------------------------------------------------------------------------- Python
def student_max_log_inv_delta(n_max: float, *, K: int = 2, s: float = 2.0) -> float:
    """Largest ``ln(1/delta)`` for which the Student tail probability ``alpha_n = delta /
    (4(K-1) zeta(s) n^s)`` stays ``>= e^STUDENT_LOG_ALPHA_MIN`` (``e^-300``) for every count
    ``n <= n_max``: the smallest ``delta`` the Student families support is its ``exp(-.)``."""
    return (
        -STUDENT_LOG_ALPHA_MIN
        - math.log(4.0 * (check_K(K) - 1) * riemann_zeta(s))
        - float(s) * math.log(float(n_max))
    )


def _student_log_alpha(arr: np.ndarray, lid: float, K: int, s: float) -> np.ndarray:
    """``ln alpha_n`` at the counts ``arr``; ``ValueError`` naming the smallest supported
    ``delta`` when some ``alpha_n`` is below ``e^-300`` (scipy's Student quantiles are not
    evaluated there; decision D152)."""
    log_alpha = -lid - math.log(4.0 * (K - 1) * riemann_zeta(s)) - float(s) * np.log(arr)
    if np.any(log_alpha < STUDENT_LOG_ALPHA_MIN):
        n_max = float(np.max(arr))
        lmax = student_max_log_inv_delta(n_max, K=K, s=s)
        raise ValueError(
            f"the Student thresholds cannot be evaluated at ln(1/delta) = {lid:.6g}: counts up "
            f"to {n_max:.0f} need delta >= {math.exp(-lmax):.3g} (ln(1/delta) <= {lmax:.6g}; "
            "tail probabilities below e^-300 are not evaluated); use the heuristic, box, kl or "
            "bob thresholds (ev-box, ev-bob for the EV-GLR rule) for smaller delta"
        )
    return log_alpha


def student_log_ratio(
    n, delta: float | None = None, *, K: int = 2, s: float = 2.0, log_inv_delta=None
):
    """``y_n = ln(1 + Q(1 - alpha_n; T_{n-1})^2 / (n - 1))`` with
    ``alpha_n = delta / (4(K-1) zeta(s) n^s)`` (exact, scipy, accurate in the far tail).

    The Student threshold of Lemma lem:delta_correct_student_thresholds is
    ``beta^S(n, delta) = n y_n`` and the EV-Student threshold of Lemma
    lem:delta_correct_student_thresholds_ev is ``n/(n-1) Q^2 = n (e^{y_n} - 1)``.

    Parameters
    ----------
    n : int or array_like of int
        Counts ``>= 2``.
    delta, log_inv_delta : float
        Confidence level or ``ln(1/delta)`` (exactly one).

    Raises
    ------
    ValueError
        On invalid arguments, or when some ``alpha_n < e^-300`` (the message names the
        smallest supported ``delta``, :func:`student_max_log_inv_delta`).
    """
    arr = np.asarray(n, dtype=np.float64)
    if np.any(~np.isfinite(arr)) or np.any(arr < 2) or np.any(arr != np.floor(arr)):
        raise ValueError(f"n must be integers >= 2, got {n!r}")
    return _student_log_ratio_lid(arr, log_inv_delta_of(delta, log_inv_delta), check_K(K), s)


def _student_log_ratio_lid(arr: np.ndarray, lid: float, K: int, s: float):
    """:func:`student_log_ratio` at the float counts ``arr`` (integers ``>= 2``) and
    ``ln(1/delta) = lid`` (resolved by the caller), ``K`` checked."""
    log_alpha = _student_log_alpha(arr, lid, K, s)
    from scipy import stats  # imported on use: scipy.stats is slow to import

    q = stats.t.isf(np.exp(log_alpha), arr - 1.0)
    nu = arr - 1.0
    with np.errstate(over="ignore"):
        big = q > 1e150
        y = np.where(big, 2.0 * np.log(q) - np.log(nu), np.log1p(np.square(q) / nu))
    return float(y) if np.ndim(y) == 0 else y


def student_quantile(
    n, delta: float | None = None, *, K: int = 2, s: float = 2.0, log_inv_delta=None
):
    """``Q(1 - delta / (4(K-1) zeta(s) n^s); T_{n-1})`` of eq:def_student_threshold_glrt
    (same refusal as :func:`student_log_ratio` below ``alpha_n = e^-300``)."""
    arr = np.asarray(n, dtype=np.float64)
    if np.any(arr < 2) or np.any(arr != np.floor(arr)):
        raise ValueError(f"n must be integers >= 2, got {n!r}")
    log_alpha = _student_log_alpha(arr, log_inv_delta_of(delta, log_inv_delta), check_K(K), s)
    # scipy.stats is slow to import: loaded on first use
    from scipy import stats

    out = stats.t.isf(np.exp(log_alpha), arr - 1.0)
    return float(out) if np.ndim(out) == 0 else out


def initial_count(name: str, K: int, lid: float, params) -> int:
    """``max(2, (delta/(4(K-1)zeta(s)))^{1/s})`` (eq:def_initial_time_student_thresholds)."""
    s = params.s
    # (delta/(4(K-1)zeta))^{1/s} < 1 for every delta in (0, 1): the max is 2
    return max(2, math.ceil(math.exp(-(lid + math.log(4.0 * (K - 1) * riemann_zeta(s))) / s)))


def constants(name: str, fp: np.ndarray, K: int, lid: float, params, n_table: int):
    """``P_LSTUD = ln(delta / (2(K-1)zeta(s)))`` and the table of exact ``y_n``, ``n <
    n_table`` (``+inf`` below 2)."""
    z = riemann_zeta(params.s)
    fp[P_LSTUD] = -lid - math.log(2.0 * (K - 1) * z)
    table = np.full(n_table, np.inf)
    if n_table > 2:
        counts = np.arange(2, n_table, dtype=np.float64)
        table[2:] = _student_log_ratio_lid(counts, lid, K, params.s)
    return table


def lower_bound(name: str, fp: np.ndarray, table: np.ndarray):
    """``max(g(N_a), g(N_b))`` with ``g(n) = n y_n`` or ``n (e^{y_n} - 1)``, decreasing at
    small counts: ``P_LB_NMIN`` the count after the table's last descent of ``g``, provided
    ``g`` does not descend where the kernel leaves the table for the closed-form bound
    (non-decreasing beyond, checked by ``tests/unit/test_lower_bound_cache.py``); ``inf``
    for a table shorter than :data:`LB_MIN_TABLE` (decision D254)."""
    if table.shape[0] < LB_MIN_TABLE:
        return LB_NONE, math.inf
    n = np.arange(table.shape[0], dtype=np.float64)
    y = table[2:]
    g = n[2:] * (y if name == "student" else np.expm1(y))
    down = np.nonzero(g[1:] < g[:-1])[0]
    n_star = 2 + (int(down[-1]) + 1 if down.size else 0)
    n_end = table.shape[0]
    y_end = student_y_bound(float(n_end), fp[P_LSTUD], fp[P_S])
    g_end = n_end * (y_end if name == "student" else math.expm1(y_end))
    if n_star >= n_end - 1 or not (g_end >= g[-1]):
        return LB_NONE, math.inf
    return LB_NONE, float(max(n_star, fp[P_NMIN]))


def reference(name, spec, *, n_a, n_b, state_a, state_b, K, lid, params, backend, on_failure):
    """The threshold with exact scipy Student quantiles at every count."""
    nmin = spec.fparams[P_NMIN]
    if n_a < nmin or n_b < nmin:
        return math.inf
    y = _student_log_ratio_lid(np.array([n_a, n_b], dtype=np.float64), lid, check_K(K), params.s)
    n = np.array([n_a, n_b], dtype=float)
    vals = n * y if name == "student" else n * np.expm1(y)
    return float(np.max(vals))
