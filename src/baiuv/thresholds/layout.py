"""The layout every threshold kernel reads: the slots of a spec's ``fparams`` (written by
:func:`baiuv.thresholds.make_threshold`), the modes of the stopping check's lower bounds,
and the per-arm state of the families with a data-dependent term (KL, BoB, EV-BoB), with
its peeling levels.

State layout (see decision D15 in docs/decisions/architecture.md): ``[level, count, mean, var, logGR, tag]``
where ``level = i`` is the peeling index ``floor(log_gamma N)`` at which the statistics were
recorded, ``count`` the arm count at that moment (the first integer ``>= gamma^i``), ``mean``
and ``var`` the empirical mean and (1/n) variance at that count, and ``logGR =
ln(gamma R_{t,a}(delta))`` of Theorem thm:delta_correct_complex_threshold_glrt (``+inf``
when the preliminary box is not informative), ``tag`` the preliminary log term of the spec
that wrote it (a state is tied to one family, ``K``, ``delta`` and parameters; using it with
another spec raises). The slots after ``tag`` memoize per-arm terms of the BoB programs,
each with the inputs it was computed from (D418: reused while their inputs are). A fresh
state is :func:`new_state`.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

# fparams layout
P_DELTA = 0
P_K = 1
P_S = 2
P_GAMMA = 3
P_ETA0 = 4
P_ETA1 = 5
P_NMIN = 6  # smallest per-arm count with a finite threshold (initial times)
P_LOGINVDELTA = 7  # ln(1/delta) (heuristic)
P_LBOX = 8  # log term of the box part: ln(4(K-1)zeta/delta') with delta' the box level
P_LPRE = 9  # log term of the KL preliminary concentration: ln(12(K-1)zeta/delta'')
P_LMAIN = 10  # main KL log term: ln(2 zeta^2 / delta'') (+ ln(K-1) if union over pairs)
P_LSTUD = 11  # ln(delta / (2(K-1)zeta(s))) = ln(2 alpha_n) + s ln n (Student)
P_NMIN_KL = 12  # smallest per-arm count at which the KL part is finite (BoB: KL(delta/2))
P_STATEFUL = 13  # 1.0: the family keeps a per-arm state (the registry's ThresholdFamily.stateful)
P_T_ONLY = 14  # 1.0: the threshold depends on t alone (the registry's ThresholdFamily.t_only)
# smallest count (of both arms) from which a computed pair threshold, widened by
# LB_MARGIN, is a lower bound of the pair's threshold at any later counts, the arms' states
# at the same peeling levels; inf: none (decision D254)
P_LB_NMIN = 15
# the lower bound below P_LB_NMIN (decision D254): LB_NONE; LB_WINDOW, the pair threshold is
# a non-decreasing function of one per-arm term of each count, non-increasing in the count
# from the initial count to P_LB_NMIN, so its value at the larger counts of a window below
# P_LB_NMIN bounds it over the window; LB_FLOOR, the threshold is at least
# ln(1 + ln(N_a + N_b)) + ln(1/delta) (lower_bound_floor); LB_PROGRAM, the BoB programs:
# program_lower_bound over a window
P_LB_MODE = 16
# the indifference zone epsilon >= 0 of the stopping rule (0: the paper's problem); read by
# the stopping check only, never by a threshold (D290: the epsilon-GLR is the GLR with the
# challenger's mean shifted by -epsilon)
P_EPS = 17
FPARAMS_SIZE = 18
LB_NONE = 0.0
LB_WINDOW = 1.0
LB_FLOOR = 2.0
LB_PROGRAM = 3.0
#: relative widening of a cached threshold used as a lower bound: ``c - LB_MARGIN (1 + |c|)``
#: (far above the kernels' rounding; a statistic that close to the threshold computes it)
LB_MARGIN = 1e-6
#: largest count of an arm at which the lower bounds are used: far beyond any run, below
#: the counts where the kernels' rounding (the Student bound's ``lgamma`` differences)
#: approaches the margin
LB_MAX_COUNT = 2**30

# state layout
S_LEVEL = 0
S_COUNT = 1
S_MEAN = 2
S_VAR = 3
S_LOGGR = 4
S_TAG = 5  # log term P_LPRE of the spec that wrote the state (guards against mixing deltas)
# the BoB programs' memo of the arm's last per-arm terms, keyed on every input of each term
# (D418: reused while the inputs are; nan: none): the box constants C = S_BOX_C,
# D = S_BOX_D at the count S_BOX_N and the spec's (P_LBOX, P_S, P_ETA0); the KL part's
# ln(1 + log_gamma N) = S_KL_U at the count S_KL_N and gamma = S_KL_G
S_BOX_N = 6
S_BOX_L = 7
S_BOX_S = 8
S_BOX_ETA0 = 9
S_BOX_C = 10
S_BOX_D = 11
S_KL_N = 12
S_KL_G = 13
S_KL_U = 14
STATE_SIZE = 15
#: the slots ``S_LEVEL .. S_TAG`` that the threshold reads as inputs; the others are the memo
#: of D418, recomputed when stale, so a copy of these slots gives the same thresholds
S_INPUTS = 6


def new_state() -> np.ndarray:
    """A fresh per-arm state (no level recorded yet)."""
    st = np.full(STATE_SIZE, np.nan)
    st[S_LEVEL] = -1.0
    st[S_LOGGR] = np.inf
    return st


@njit(cache=True)
def peeling_level(n: float, gamma: float) -> int:
    """``i = floor(log_gamma n)`` for ``n >= 1``, exact w.r.t. ``gamma ** i`` (decision D14)."""
    i = int(math.floor(math.log(n) / math.log(gamma)))
    while gamma ** (i + 1) <= n:
        i += 1
    while i > 0 and gamma**i > n:
        i -= 1
    return i


@njit(cache=True)
def upper_window(n: int) -> int:
    """The largest count ``n + n // 16 + 1`` of an arm's window of the cached upper bounds
    (D348: an upper bound of a pair threshold holds over windows of both counts)."""
    return n + n // 16 + 1
