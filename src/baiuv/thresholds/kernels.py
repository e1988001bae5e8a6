"""Numba kernels of the stopping thresholds, for the simulation engine.

The engine builds a :class:`~baiuv.thresholds.families.ThresholdSpec` once with
:func:`baiuv.thresholds.make_threshold` and then, before every sample, calls
:func:`pair_threshold_kernel` for the pairs it tests. Families with a data-dependent term (KL,
BoB, EV-BoB) keep a per-arm state (a float64 array of length :data:`STATE_SIZE`, layout
:mod:`baiuv.thresholds.layout`) that :func:`update_state` refreshes after each sample of the
arm; a fresh state is :func:`new_state`.

Each built-in family is one module of :mod:`baiuv.thresholds.builtin`; the entry points
here dispatch to them through :mod:`baiuv.thresholds._dispatch`, generated from the
registry's table (D395: one cached dispatcher, no name chains), and re-export their
helpers and the layout's slots under the names the engine reads.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ._dispatch import family_update_state, family_upper_bound
from ._dispatch import pair_threshold_kernel as pair_threshold_kernel
from .builtin.bob import program_lower_bound  # noqa: F401 (the stopping check's)
from .builtin.box import box_constants  # noqa: F401
from .builtin.ev_heuristic_student import (  # noqa: F401
    _ev_heuristic_student_at,
    ev_heuristic_student,
    log_erfc_sqrt,
    lower_bound_floor,
)
from .builtin.kl import check_state, kl_value, log_gamma_R  # noqa: F401
from .builtin.student import _student_y, student_y_bound  # noqa: F401
from .layout import (  # noqa: F401 (the slots and the state's layout, read by the engine)
    FPARAMS_SIZE,
    LB_FLOOR,
    LB_MARGIN,
    LB_MAX_COUNT,
    LB_NONE,
    LB_PROGRAM,
    LB_WINDOW,
    P_DELTA,
    P_EPS,
    P_ETA0,
    P_ETA1,
    P_GAMMA,
    P_K,
    P_LB_MODE,
    P_LB_NMIN,
    P_LBOX,
    P_LMAIN,
    P_LOGINVDELTA,
    P_LPRE,
    P_LSTUD,
    P_NMIN,
    P_NMIN_KL,
    P_S,
    P_STATEFUL,
    P_T_ONLY,
    S_COUNT,
    S_INPUTS,
    S_LEVEL,
    S_LOGGR,
    S_MEAN,
    S_TAG,
    S_VAR,
    STATE_SIZE,
    new_state,
    peeling_level,
    upper_window,
)


# ----------------------------------------------------------------------------- public kernels
@njit(cache=True)
def has_state(fparams: np.ndarray) -> bool:
    """``True`` for the families whose thresholds read a per-arm state (KL, BoB, EV-BoB):
    :func:`update_state` is a no-op for the others. Read from the spec's ``fparams``, where
    :func:`baiuv.thresholds.make_threshold` wrote the registry's ``stateful`` flag."""
    return fparams[P_STATEFUL] == 1.0


@njit(cache=True)
def depends_on_t_only(fparams: np.ndarray) -> bool:
    """``True`` when :func:`pair_threshold_kernel` of the family depends on ``t`` alone (the
    same value for every pair) and is non-decreasing in ``t`` (heuristic); ``False`` when
    it does not depend on ``t`` but only on the pair's counts and states (every other
    family). The simulator caches thresholds on this basis (decision D160). Read from the
    spec's ``fparams`` (the registry's ``t_only`` flag)."""
    return fparams[P_T_ONLY] == 1.0


@njit(cache=True)
def lower_bound_nmin(fparams: np.ndarray) -> float:
    """Smallest count of both arms from which a pair threshold of the family, once computed,
    bounds from below (widened by :data:`LB_MARGIN`) its values at any later counts of the
    pair (each count not smaller, each arm's state at the same peeling level); ``inf``
    when the family has no such bound (decision D254)."""
    return fparams[P_LB_NMIN]


@njit(cache=True)
def lower_bound_window(n: int, fparams: np.ndarray):
    """``(p, hi)`` for one arm of count ``n`` (decision D254): from ``P_LB_NMIN`` on,
    ``(n, LB_MAX_COUNT)`` (the threshold is non-decreasing in the count); below it, for a family
    with ``P_LB_MODE = LB_WINDOW``, the window ``[n, hi]``, ``hi = min(n + n // 16 + 1, P_LB_NMIN)``,
    over which the threshold is at least its value at ``p = hi``; ``(n, -1)`` (no window)
    otherwise."""
    n_star = fparams[P_LB_NMIN]
    if n > LB_MAX_COUNT:
        return n, -1.0
    if n >= n_star:
        return n, float(LB_MAX_COUNT)
    if fparams[P_LB_MODE] != LB_WINDOW:
        return n, -1.0
    hi = n + n // 16 + 1
    if hi > n_star:
        hi = int(n_star)
    return hi, float(hi)


@njit(cache=True)
def pair_upper_bound(
    code: int,
    fparams: np.ndarray,
    table: np.ndarray,
    n_a: int,
    n_b: int,
    state_a: np.ndarray,
    state_b: np.ndarray,
):
    """``(ub, hi_a, hi_b)``: an upper bound ``ub`` of the pair threshold of a built-in family
    at every pair of counts in ``[n_a, hi_a] x [n_b, hi_b]``, the states at their current
    peeling levels (decision D348: cached upper bounds of the pair thresholds);
    ``(inf, -1, -1)`` where the family has none (the heuristic, a family with its own
    kernel, a spec without lower bounds: ``P_LB_NMIN = inf`` and ``P_LB_MODE = LB_NONE``) or
    a count is below the initial count or beyond ``LB_MAX_COUNT``. The bound of each family
    is its module's ``upper_bound`` (:mod:`baiuv.thresholds.builtin`).
    """
    if fparams[P_LB_NMIN] == math.inf and fparams[P_LB_MODE] == LB_NONE:
        return math.inf, -1.0, -1.0  # a spec without cached bounds (a family's own kernel)
    if n_a > LB_MAX_COUNT or n_b > LB_MAX_COUNT:
        return math.inf, -1.0, -1.0
    nmin = fparams[P_NMIN]
    if n_a < nmin or n_b < nmin:
        return math.inf, -1.0, -1.0
    return family_upper_bound(code, fparams, table, n_a, n_b, state_a, state_b)


@njit(cache=True)
def update_state(
    code: int, fparams: np.ndarray, state: np.ndarray, n: int, mean: float, var: float
) -> None:
    """Refresh one arm's KL/BoB state after its count became ``n`` (no-op otherwise).

    Records ``(mean, var)`` (empirical mean and 1/n variance after ``n`` samples) when ``n``
    is the first count of a new peeling level ``i = floor(log_gamma n)``, i.e. the first
    count ``>= gamma^i`` (``bar t_a`` of Theorem thm:delta_correct_complex_threshold_glrt,
    decision D14), and stores ``ln(gamma R)`` for that level.
    """
    if not has_state(fparams):
        return
    family_update_state(code, fparams, state, n, mean, var)


@njit(cache=True)
def states_at_counts(code: int, fparams: np.ndarray, x: np.ndarray, counts: np.ndarray):
    """Per-arm states after the first ``counts[j]`` samples of the stream ``x``.

    ``counts`` is sorted; row ``j`` of the result is the state :func:`update_state` leaves
    after feeding it the running mean and (biased) variance of ``x[:counts[j]]`` one
    sample at a time (Welford), starting from :func:`new_state`'s layout.
    """
    out = np.empty((counts.shape[0], STATE_SIZE))
    st = np.full(STATE_SIZE, np.nan)
    st[S_LEVEL] = -1.0
    st[S_LOGGR] = np.inf
    m = 0.0
    m2 = 0.0
    j = 0
    for i in range(x.shape[0]):
        if j == counts.shape[0]:
            break
        n = i + 1
        d = x[i] - m
        m += d / n
        m2 += d * (x[i] - m)
        update_state(code, fparams, st, n, m, m2 / n)
        while j < counts.shape[0] and counts[j] == n:
            out[j, :] = st
            j += 1
    return out


@njit(cache=True)
def pair_threshold_loop(code, fparams, table, n, state_a, state_b, reps):
    """Sum of ``reps`` calls of :func:`pair_threshold_kernel` at ``N_a = N_b = n`` (``t``
    alternating between ``2n`` and ``2n + 1``), in one compiled loop: the per-call cost of
    the kernel without a Python call around it
    (:func:`baiuv.experiments.thresholds.threshold_costs`)."""
    acc = 0.0
    for i in range(reps):
        acc += pair_threshold_kernel(
            code, fparams, table, 2.0 * n + (i % 2), n, n, state_a, state_b
        )
    return acc
