"""The Box thresholds: ``box`` (Lemma lem:delta_correct_box_thresholds, GLR) and ``ev-box``
(Lemma lem:delta_correct_box_thresholds_ev, EV-GLR).

Each arm's term is ``N f(C(N)/D(N))`` with ``C = eps_mu(N)``, ``D = 1 - eps_{-,sigma}(N -
1)`` at ``L = ln(4(K-1) zeta(s)/delta)``, ``f(x) = ln(1 + x)`` (box) or ``x`` (ev-box);
the pair threshold is half their sum. :func:`box_constants` also serves the BoB programs.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from baiuv.registry import BOX, FAMILY_CODES

from ..concentration import (
    _box_initial_count_lid,
    eps_mu_L,
    one_minus_eps_minus_L,
    riemann_zeta,
)
from ..layout import (
    LB_MAX_COUNT,
    LB_WINDOW,
    P_ETA0,
    P_LBOX,
    P_NMIN,
    P_S,
    S_BOX_C,
    S_BOX_D,
    S_BOX_ETA0,
    S_BOX_L,
    S_BOX_N,
    S_BOX_S,
    new_state,
    upper_window,
)

NAMES = ("box", "ev-box")


@njit(cache=True)
def box_constants(n: float, L: float, s: float, eta0: float):
    """``(C, D) = (eps_mu(n), 1 - eps_{-,sigma}(n - 1))``, Lemma
    lem:delta_correct_box_thresholds."""
    return eps_mu_L(n, L, s), one_minus_eps_minus_L(n - 1.0, L, s, eta0)


@njit(cache=True)
def arm_box_constants(state: np.ndarray, n: float, L: float, s: float, eta0: float):
    """:func:`box_constants` of the arm, memoized in its state with every input (slots
    ``S_BOX_*``; D418: per-arm terms memoized in the arm's state)."""
    if (
        state[S_BOX_N] == n
        and state[S_BOX_L] == L
        and state[S_BOX_S] == s
        and state[S_BOX_ETA0] == eta0
    ):
        return state[S_BOX_C], state[S_BOX_D]
    c, d = box_constants(n, L, s, eta0)
    state[S_BOX_N] = n
    state[S_BOX_L] = L
    state[S_BOX_S] = s
    state[S_BOX_ETA0] = eta0
    state[S_BOX_C] = c
    state[S_BOX_D] = d
    return c, d


@njit(cache=True)
def value(code, fparams, table, t, n_a, n_b, state_a, state_b) -> float:
    """``(N_a f(C_a/D_a) + N_b f(C_b/D_b)) / 2``; ``+inf`` before the initial count or
    where a ``D <= 0``."""
    nmin = fparams[P_NMIN]
    if n_a < nmin or n_b < nmin:
        return math.inf
    s = fparams[P_S]
    L = fparams[P_LBOX]
    eta0 = fparams[P_ETA0]
    ca, da = box_constants(float(n_a), L, s, eta0)
    cb, db = box_constants(float(n_b), L, s, eta0)
    if not (da > 0.0) or not (db > 0.0):
        return math.inf
    if code == BOX:
        return 0.5 * (n_a * math.log1p(ca / da) + n_b * math.log1p(cb / db))
    return 0.5 * (n_a * ca / da + n_b * cb / db)


@njit(cache=True)
def box_upper_bound(ev: bool, fparams, n_a, n_b):
    """Each per-arm term is ``n f(C(n)/D(n))``, ``f`` increasing, ``C`` not increasing and
    ``D`` not decreasing with the count: at most ``hi f(C(n)/D(n))`` over the window
    ``[n, hi]`` (decision D348); with the BoB constants, a bound of the BoB programs."""
    L = fparams[P_LBOX]
    s = fparams[P_S]
    eta0 = fparams[P_ETA0]
    ca, da = box_constants(float(n_a), L, s, eta0)
    cb, db = box_constants(float(n_b), L, s, eta0)
    return box_bound_of(ev, n_a, n_b, (ca, da, cb, db))


@njit(cache=True)
def box_bound_of(ev: bool, n_a, n_b, constants):
    """:func:`box_upper_bound` from the arms' box constants ``(C_a, D_a, C_b, D_b)``."""
    ca, da, cb, db = constants
    hi_a = upper_window(n_a)
    hi_b = upper_window(n_b)
    if not (da > 0.0) or not (db > 0.0):
        return math.inf, -1.0, -1.0
    if not ev:
        v = 0.5 * (hi_a * math.log1p(ca / da) + hi_b * math.log1p(cb / db))
    else:
        v = 0.5 * (hi_a * ca / da + hi_b * cb / db)
    return v, float(hi_a), float(hi_b)


@njit(cache=True)
def upper_bound(code, fparams, table, n_a, n_b, state_a, state_b):
    """:func:`box_upper_bound` of the family."""
    return box_upper_bound(code != BOX, fparams, n_a, n_b)


def initial_count(name: str, K: int, lid: float, params) -> int:
    """``t^Box(delta)`` (eq:def_initial_time_box_thresholds)."""
    e0, _ = params._etas(lid)
    return _box_initial_count_lid(lid, K, params.s, e0)


def constants(name: str, fp: np.ndarray, K: int, lid: float, params, n_table: int):
    """``P_LBOX = ln(4(K-1)zeta(s)) + ln(1/delta)``; no table."""
    fp[P_LBOX] = math.log(4.0 * (K - 1) * riemann_zeta(params.s)) + lid
    return np.empty(0)


_EMPTY_STATE = new_state()


def _valley_count(code: int, fp: np.ndarray) -> float:
    """The count ``n*`` from which the Box (EV-Box) term ``h(n)``, the threshold at equal
    counts ``n``, does not decrease: bisection on the sign of ``h(n + d) - h(n)``,
    ``d = n // 2^14 + 1``, between the initial count and ``LB_MAX_COUNT`` (``h`` decreases,
    then increases; decision D254); ``inf`` when ``h`` still decreases at
    ``LB_MAX_COUNT``. The step ``d`` keeps the differences far above the rounding of
    ``h`` (at large counts ``h(n + 1) - h(n)`` is below it), and ``h`` varies over ``d``
    counts around its minimum by far less than the cache's margin."""
    st0 = _EMPTY_STATE
    empty = np.empty(0)
    empty.setflags(write=False)  # the loop's table type: no second compiled signature

    def rises(n: int) -> bool:
        m = n + n // 2**14 + 1
        h0 = value(code, fp, empty, 0.0, n, n, st0, st0)
        h1 = value(code, fp, empty, 0.0, m, m, st0, st0)
        return bool(h1 >= h0)

    lo = int(fp[P_NMIN])
    if rises(lo):
        return float(lo)
    hi = LB_MAX_COUNT
    if not rises(hi):
        return math.inf
    while hi - lo > 1:  # h(lo + 1) < h(lo), h(hi + 1) >= h(hi)
        mid = (lo + hi) // 2
        if rises(mid):
            hi = mid
        else:
            lo = mid
    return float(hi)


def lower_bound(name: str, fp: np.ndarray, table: np.ndarray):
    """``(h(N_a) + h(N_b))/2`` with ``h`` decreasing from the initial count to a minimum,
    then increasing: ``P_LB_NMIN`` the count of that minimum (:func:`_valley_count`), and
    below it windows (``LB_WINDOW``; decision D254)."""
    return LB_WINDOW, _valley_count(FAMILY_CODES[name], fp)
