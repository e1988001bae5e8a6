"""The BoB thresholds: ``bob`` (Corollary cor:delta_correct_Kinf_thresholds, GLR) and
``ev-bob`` (Corollary cor:delta_correct_Kinf_thresholds_ev, EV-GLR).

The value of a program over the pair's mean and variance boxes at ``delta/2`` (the box
constants ``C``, ``D`` of :mod:`.box`) with the KL budget ``E = c^KL(N_t, delta/2)`` (of
:mod:`.kl`, whose per-arm state it shares), solved by the exact numba solver
:mod:`baiuv.thresholds.bob_exact`; the Python reference solves it with
:func:`baiuv.thresholds.bob.solve_bob`.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from baiuv.registry import EV_BOB

from ..bob import solve_bob
from ..bob_exact import bob_exact as _bob_exact
from ..concentration import _box_initial_count_lid, riemann_zeta
from ..layout import (
    LB_MAX_COUNT,
    LB_PROGRAM,
    P_ETA0,
    P_GAMMA,
    P_LBOX,
    P_LMAIN,
    P_NMIN,
    P_NMIN_KL,
    P_S,
)
from . import kl
from .box import arm_box_constants, box_bound_of, box_constants
from .kl import (  # noqa: F401 (the KL state)
    LN2,
    arm_count_term,
    check_state,
    kl_value,
    kl_value_terms,
    update_state,
)

NAMES = ("bob", "ev-bob")
LN6 = math.log(6.0)
#: the lower bound of a pair threshold that is ``+inf`` (D412): finite, so that the cache's
#: widening ``c - LB_MARGIN (1 + |c|)`` stays finite, and far above any statistic
UNREACHABLE = 1e300


# ----------------------------------------------------------------------------- numba
@njit(cache=True)
def value(code, fparams, table, t, n_a, n_b, state_a, state_b) -> float:
    """The program's value at the pair's counts (``E = +inf`` before the KL part's initial
    count, decision D18); ``+inf`` before the initial count or where a ``D <= 0``."""
    nmin = fparams[P_NMIN]
    if n_a < nmin or n_b < nmin:
        return math.inf
    s = fparams[P_S]
    L = fparams[P_LBOX]
    eta0 = fparams[P_ETA0]
    gamma = fparams[P_GAMMA]
    lgr_a = check_state(state_a, n_a, fparams)
    lgr_b = check_state(state_b, n_b, fparams)
    # the per-arm terms memoized in the arms' states (D418: reused while the count is)
    ca, da = arm_box_constants(state_a, float(n_a), L, s, eta0)
    cb, db = arm_box_constants(state_b, float(n_b), L, s, eta0)
    if not (da > 0.0) or not (db > 0.0):
        return math.inf
    e = math.inf
    if n_a >= fparams[P_NMIN_KL] and n_b >= fparams[P_NMIN_KL]:
        if not (math.isinf(lgr_a) or math.isinf(lgr_b)):
            u_a = arm_count_term(state_a, float(n_a), gamma)
            u_b = arm_count_term(state_b, float(n_b), gamma)
            e = kl_value_terms(u_a, u_b, lgr_a, lgr_b, fparams[P_LMAIN], s)
    return _bob_exact(float(n_a), float(n_b), ca, cb, da, db, e, code == EV_BOB)


@njit(cache=True)
def upper_bound(code, fparams, table, n_a, n_b, state_a, state_b):
    """At most the Box bound with the BoB constants: the BoB program adds a constraint to
    the box program's (BoB(δ) ≤ Box(δ/2), Section 3.2 of the paper; D348); the constants
    memoized in the arms' states (D418: the value's, at the same counts)."""
    L = fparams[P_LBOX]
    s = fparams[P_S]
    eta0 = fparams[P_ETA0]
    ca, da = arm_box_constants(state_a, float(n_a), L, s, eta0)
    cb, db = arm_box_constants(state_b, float(n_b), L, s, eta0)
    return box_bound_of(code == EV_BOB, n_a, n_b, (ca, da, cb, db))


@njit(cache=True)
def program_lower_bound(
    code: int,
    fparams: np.ndarray,
    n_a: int,
    n_b: int,
    state_a: np.ndarray,
    state_b: np.ndarray,
):
    """``(lb, hi_a, hi_b)``: a lower bound ``lb`` of the BoB (EV-BoB) threshold at every
    pair of counts in ``[n_a, hi_a] x [n_b, hi_b]``, ``hi = n + n // 64 + 1``, the states at
    their current peeling levels (decision D254); ``(-inf, -1, -1)`` before the KL part's
    initial count and beyond ``LB_MAX_COUNT``.

    The program at counts ``hi`` with the box bounds ``C(hi)``, ``D(hi)`` and the KL budget
    ``E`` at ``(n_a, n_b)`` has a feasible set inside the program's at every pair of the
    window (``C`` does not increase with the count, ``D`` does not decrease, ``E`` does not
    decrease at fixed levels, and ``N f <= hi f``), and its objective times
    ``r = min(n_a/hi_a, n_b/hi_b)`` is at most theirs: ``lb = r bob_exact(...)``.

    With an arm below the initial count the threshold is ``+inf`` while that arm stays
    below it (D412): ``lb = UNREACHABLE`` (finite, above every statistic), the window of
    that arm ending one count before the initial count, the other's at ``LB_MAX_COUNT``."""
    nmin = fparams[P_NMIN]
    if n_a < nmin or n_b < nmin:
        if n_a > LB_MAX_COUNT or n_b > LB_MAX_COUNT:
            return -math.inf, -1.0, -1.0
        hi_a = nmin - 1.0 if n_a < nmin else float(LB_MAX_COUNT)
        hi_b = nmin - 1.0 if n_b < nmin else float(LB_MAX_COUNT)
        return UNREACHABLE, hi_a, hi_b
    if n_a < fparams[P_NMIN_KL] or n_b < fparams[P_NMIN_KL]:
        return -math.inf, -1.0, -1.0
    if n_a > LB_MAX_COUNT or n_b > LB_MAX_COUNT:
        return -math.inf, -1.0, -1.0
    hi_a = n_a + n_a // 64 + 1
    hi_b = n_b + n_b // 64 + 1
    L = fparams[P_LBOX]
    s = fparams[P_S]
    eta0 = fparams[P_ETA0]
    ca, da = box_constants(float(hi_a), L, s, eta0)
    cb, db = box_constants(float(hi_b), L, s, eta0)
    if not (da > 0.0) or not (db > 0.0):
        return -math.inf, -1.0, -1.0
    lgr_a = check_state(state_a, n_a, fparams)
    lgr_b = check_state(state_b, n_b, fparams)
    e = kl_value(float(n_a), float(n_b), lgr_a, lgr_b, fparams[P_LMAIN], s, fparams[P_GAMMA])
    v = _bob_exact(float(hi_a), float(hi_b), ca, cb, da, db, e, code == EV_BOB)
    r = min(n_a / hi_a, n_b / hi_b)
    return r * v, float(hi_a), float(hi_b)


# ----------------------------------------------------------------------------- Python
def initial_count(name: str, K: int, lid: float, params) -> int:
    """bob: ``max(t^Box(delta/6), t^m(delta/2))``, the KL initial count at ``delta/2``;
    ev-bob: ``t^Box(delta/6)`` (splits taken in log space, decision D150)."""
    if name == "bob":
        return kl.initial_count("kl", K, lid + LN2, kl.with_etas(params, lid))
    e0, _ = params._etas(lid)
    return _box_initial_count_lid(lid + LN6, K, params.s, e0)


def constants(name: str, fp: np.ndarray, K: int, lid: float, params, n_table: int):
    """The KL part's log terms at ``delta/2`` (:func:`kl.kl_constants`), ``P_LBOX`` of the
    box part at ``delta/2`` and ``P_NMIN_KL``, the KL part's initial count; no table."""
    lk = lid + LN2  # ln(1/delta'') of the KL part
    kl.kl_constants(fp, K, lk, params)
    fp[P_LBOX] = math.log(4.0 * (K - 1) * riemann_zeta(params.s)) + lid + LN2
    fp[P_NMIN_KL] = kl.initial_count("kl", K, lk, kl.with_etas(params, lid))
    return np.empty(0)


def lower_bound(name: str, fp: np.ndarray, table: np.ndarray):
    """Decreasing within the peeling levels while the box constraints bind: a relaxed
    program over windows instead (:func:`program_lower_bound`, ``LB_PROGRAM``; D254)."""
    return LB_PROGRAM, math.inf


def bob_constants_at(fp: np.ndarray, n_a, n_b, state_a, state_b):
    """``(C, D, E)`` of the program at counts ``(n_a, n_b)`` of the spec ``fp``: ``E =
    +inf`` before the KL part's initial count (decision D18)."""
    s, e0, gamma = fp[P_S], fp[P_ETA0], fp[P_GAMMA]
    ca, da = box_constants(float(n_a), fp[P_LBOX], s, e0)
    cb, db = box_constants(float(n_b), fp[P_LBOX], s, e0)
    e = math.inf
    if n_a >= fp[P_NMIN_KL] and n_b >= fp[P_NMIN_KL]:
        lgr_a = check_state(state_a, int(n_a), fp)
        lgr_b = check_state(state_b, int(n_b), fp)
        e = kl_value(float(n_a), float(n_b), lgr_a, lgr_b, fp[P_LMAIN], s, gamma)
    return np.array([ca, cb]), np.array([da, db]), e


def reference(name, spec, *, n_a, n_b, state_a, state_b, K, lid, params, backend, on_failure):
    """The program solved by :func:`baiuv.thresholds.bob.solve_bob` (``backend``,
    ``on_failure``)."""
    if n_a < spec.fparams[P_NMIN] or n_b < spec.fparams[P_NMIN]:
        return math.inf
    C, D, E = bob_constants_at(spec.fparams, n_a, n_b, state_a, state_b)
    if not np.all(D > 0):
        return math.inf
    return solve_bob(
        [n_a, n_b], C, D, E, ev=name == "ev-bob", backend=backend, on_failure=on_failure
    )
