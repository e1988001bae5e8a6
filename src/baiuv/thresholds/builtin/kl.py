"""The KL threshold ``kl`` (Theorem thm:delta_correct_complex_threshold_glrt, GLR) and the
per-arm state of its data-dependent term, which the BoB thresholds share.

``c^KL = 4 Wbar_{-1}(1 + lmain/4 + s/4 sum ln(1 + log_gamma N) + 1/2 sum ln(gamma R))``
with ``lmain = ln(2 zeta(s)^2 / delta)`` and ``ln(gamma R_{t,a}(delta))`` of each arm,
recorded in its state (layout :mod:`baiuv.thresholds.layout`) at the first count of each
peeling level.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
from numba import njit

from ..concentration import (
    _box_initial_count_lid,
    _monotonicity_initial_count_lid,
    eps_mu_L,
    one_minus_eps_minus_L,
    one_plus_eps_plus_L,
    riemann_zeta,
)
from ..lambert import wbar_m1_scalar
from ..layout import (
    LB_NONE,
    P_ETA0,
    P_ETA1,
    P_GAMMA,
    P_LMAIN,
    P_LPRE,
    P_NMIN,
    P_S,
    S_COUNT,
    S_KL_G,
    S_KL_N,
    S_KL_U,
    S_LEVEL,
    S_LOGGR,
    S_MEAN,
    S_TAG,
    S_VAR,
    peeling_level,
    upper_window,
)

NAMES = ("kl",)
LN2, LN3 = math.log(2.0), math.log(3.0)


# ----------------------------------------------------------------------------- numba
@njit(cache=True)
def log_gamma_R(
    level: int, mean: float, var: float, L: float, s: float, eta0: float, eta1: float, gamma: float
) -> float:
    """``ln(gamma R_{t,a}(delta))`` of Theorem thm:delta_correct_complex_threshold_glrt.

    ``n = gamma^level``; ``L`` is the preliminary log term ``ln(12(K-1)zeta(s)/delta)``.
    Returns ``+inf`` when the box at ``n`` is not informative (``1 - eps_{-,sigma}(n-1) <= 0``,
    ``n - 1 < 1`` or ``var <= 0``), decision D16.
    """
    n = gamma**level
    if not (var > 0.0) or n - 1.0 < 1.0:
        return math.inf
    em = eps_mu_L(n, L, s)
    om = one_minus_eps_minus_L(n - 1.0, L, s, eta0)
    op = one_plus_eps_plus_L(n - 1.0, L, s, eta1)
    if not (om > 0.0) or not (op > 0.0) or math.isnan(em):
        return math.inf
    sd = math.sqrt(var)
    mpp = abs(mean) + 2.0 * sd * math.sqrt(em / om)
    mpp2 = mpp * mpp
    s2p = var * op / om
    s2m = var * om / op
    gp = 2.0 * s2p / (s2p + 2.0 * mpp2 + 0.5) ** 2
    gm = 2.0 * s2m / (s2m + 2.0 * mpp2 + 0.5) ** 2
    gp = min(gp, 1.0)
    gm = min(gm, 1.0)
    fp = (1.0 + math.sqrt(1.0 - gp)) / math.sqrt(gp)
    fm = math.sqrt(gm) / (1.0 + math.sqrt(1.0 - gm))  # = (1 - sqrt(1-g))/sqrt(g)
    # R = sigma_+^3 f_+ / (sigma_-^3 f_-)
    return math.log(gamma) + 1.5 * math.log(s2p / s2m) + math.log(fp) - math.log(fm)


@njit(cache=True)
def kl_value(
    n_a: float, n_b: float, lgr_a: float, lgr_b: float, lmain: float, s: float, gamma: float
) -> float:
    """Eq. def_complex_threshold_glrt: ``4 Wbar_{-1}(1 + lmain/4 + s/4 sum ln(1 + log_gamma N)
    + 1/2 sum ln(gamma R))`` with ``lmain = ln(2 zeta(s)^2 / delta)``."""
    if math.isinf(lgr_a) or math.isinf(lgr_b):
        return math.inf
    lg = math.log(gamma)
    return kl_value_terms(count_term(n_a, lg), count_term(n_b, lg), lgr_a, lgr_b, lmain, s)


@njit(cache=True)
def count_term(n: float, lg: float) -> float:
    """An arm's ``ln(1 + log_gamma N)`` of :func:`kl_value`, ``lg = ln(gamma)``."""
    return math.log1p(math.log(n) / lg)


@njit(cache=True)
def kl_value_terms(
    u_a: float, u_b: float, lgr_a: float, lgr_b: float, lmain: float, s: float
) -> float:
    """:func:`kl_value` from the arms' :func:`count_term` ``u_a``, ``u_b`` (the same
    operations, bit for bit)."""
    if math.isinf(lgr_a) or math.isinf(lgr_b):
        return math.inf
    arg = 1.0 + 0.25 * lmain
    arg += 0.25 * s * (u_a + u_b)
    arg += 0.5 * (lgr_a + lgr_b)
    return 4.0 * wbar_m1_scalar(arg)


@njit(cache=True)
def arm_count_term(state: np.ndarray, n: float, gamma: float) -> float:
    """:func:`count_term` of the arm, memoized in its state with its inputs (slots
    ``S_KL_*``; D418: per-arm terms memoized in the arm's state)."""
    if state[S_KL_N] == n and state[S_KL_G] == gamma:
        return state[S_KL_U]
    u = count_term(n, math.log(gamma))
    state[S_KL_N] = n
    state[S_KL_G] = gamma
    state[S_KL_U] = u
    return u


@njit(cache=True)
def check_state(state: np.ndarray, n: int, fparams: np.ndarray) -> float:
    """``ln(gamma R)`` of an arm's state after ``n`` samples; ``ValueError`` when the state is
    stale or was written by another spec."""
    lvl = peeling_level(float(n), fparams[P_GAMMA])
    if state[S_LEVEL] != lvl:
        raise ValueError("stale KL/BoB arm state: call update_state after every sample of the arm")
    if state[S_TAG] != fparams[P_LPRE]:
        raise ValueError("KL/BoB arm state was built for another family, K, delta or params")
    return state[S_LOGGR]


@njit(cache=True)
def value(code, fparams, table, t, n_a, n_b, state_a, state_b) -> float:
    """``c^KL`` at the pair's counts and the arms' states; ``+inf`` before the initial
    count or while a state's box is not informative (D16)."""
    nmin = fparams[P_NMIN]
    if n_a < nmin or n_b < nmin:
        return math.inf
    s = fparams[P_S]
    gamma = fparams[P_GAMMA]
    lgr_a = check_state(state_a, n_a, fparams)
    lgr_b = check_state(state_b, n_b, fparams)
    return kl_value(float(n_a), float(n_b), lgr_a, lgr_b, fparams[P_LMAIN], s, gamma)


@njit(cache=True)
def upper_bound(code, fparams, table, n_a, n_b, state_a, state_b):
    """``Wbar_{-1}`` and ``ln(1 + log_gamma N)`` increase, ``ln(gamma R)`` is the state's,
    constant while its level is: the value at the windows' largest counts (D348)."""
    hi_a = upper_window(n_a)
    hi_b = upper_window(n_b)
    lgr_a = check_state(state_a, n_a, fparams)
    lgr_b = check_state(state_b, n_b, fparams)
    v = kl_value(
        float(hi_a), float(hi_b), lgr_a, lgr_b, fparams[P_LMAIN], fparams[P_S], fparams[P_GAMMA]
    )
    return v, float(hi_a), float(hi_b)


@njit(cache=True)
def update_state(code, fparams, state, n, mean, var) -> None:
    """Records ``(mean, var)`` (empirical mean and 1/n variance after ``n`` samples) when
    ``n`` is the first count of a new peeling level ``i = floor(log_gamma n)``, i.e. the
    first count ``>= gamma^i`` (``bar t_a`` of Theorem
    thm:delta_correct_complex_threshold_glrt, decision D14), and stores ``ln(gamma R)`` for
    that level."""
    if n < 1:
        return
    gamma = fparams[P_GAMMA]
    if state[S_LEVEL] >= 0.0:
        # D413: the recorded level i holds when gamma^i <= n < gamma^(i + 1), the powers
        # computed as peeling_level computes them (no logarithm)
        held = int(state[S_LEVEL])
        if gamma**held <= n and n < gamma ** (held + 1):
            return
    lvl = peeling_level(float(n), gamma)
    if state[S_LEVEL] == lvl:
        return
    state[S_LEVEL] = lvl
    state[S_TAG] = fparams[P_LPRE]
    state[S_COUNT] = n
    state[S_MEAN] = mean
    state[S_VAR] = var
    state[S_LOGGR] = log_gamma_R(
        lvl, mean, var, fparams[P_LPRE], fparams[P_S], fparams[P_ETA0], fparams[P_ETA1], gamma
    )


# ----------------------------------------------------------------------------- Python
def initial_count(name: str, K: int, lid: float, params) -> int:
    """``max(t^Box(delta/3), t^m(delta))``; the data-dependent term can still be infinite
    later (decision D16)."""
    e0, e1 = params._etas(lid)
    s = params.s
    return max(
        _box_initial_count_lid(lid + LN3, K, s, e0),
        _monotonicity_initial_count_lid(lid, K, s, e0, e1),
    )


def with_etas(params, lid: float):
    """``params`` with ``eta0``, ``eta1`` resolved at ``ln(1/delta) = lid`` (the KL part of
    BoB keeps the etas of the BoB level)."""
    e0, e1 = params._etas(lid)
    return replace(params, eta0=e0, eta1=e1)


def kl_constants(fp: np.ndarray, K: int, lk: float, params) -> None:
    """``P_LPRE = ln(12(K-1)zeta(s)) + lk`` and ``P_LMAIN = ln(2 zeta(s)^2) + lk`` (``+
    ln(K-1)`` with ``kl_union_over_pairs``, D11) at ``lk = ln(1/delta'')`` of the KL part."""
    z = riemann_zeta(params.s)
    union = math.log(K - 1) if params.kl_union_over_pairs else 0.0
    fp[P_LPRE] = math.log(12.0 * (K - 1) * z) + lk
    fp[P_LMAIN] = math.log(2.0 * z * z) + lk + union


def constants(name: str, fp: np.ndarray, K: int, lid: float, params, n_table: int):
    """:func:`kl_constants` at ``delta``; no table."""
    kl_constants(fp, K, lid, params)
    return np.empty(0)


def lower_bound(name: str, fp: np.ndarray, table: np.ndarray):
    """Non-decreasing in each count from the initial count on (``Wbar_{-1}`` and ``ln(1 +
    log_gamma N)`` increase; ``ln(gamma R)`` is constant while the level is; D254)."""
    return LB_NONE, float(fp[P_NMIN])
