"""The workspace of the sampling rules: a float64 array ``ws`` of ``K`` columns and the
scalars ``scal``, owned by one run (or one identifier) and kept between steps, of the size
the rule's registry record declares (:class:`baiuv.registry.Workspace`). The built-in
rules share one layout, :data:`baiuv.registry.BUILTIN_WORKSPACE`, whose rows are named
below; a rule registered with its own step kernel gets a workspace of its own size, zero
at the start."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from baiuv.registry import BUILTIN_WORKSPACE, P_HEDGE_DELTA0

# rows of the built-in rules' ws (float64 array (N_WS + K, K) made by init_workspace)
W_SUMW = 0  # cumulative tracked weights (C-tracking)
W_LOSS = 1  # AdaHedge cumulative losses (DKM)
W_X = 2  # Frank-Wolfe iterate x(t) (FWS)
W_TMP = 3  # scratch
W_TMP2 = 4  # scratch
W_XS = 5  # per-arm solutions x_a of the TaS oracle (warm start, decision D95)
W_GAINS = 6  # DKM gains
W_F = 7  # FWS values f_j
W_ORACLE = 8  # 5 rows: scratch of the TaS oracle (oracle_warm_work), row 4 its l_a
W_XS2 = 13  # TaS oracle: x_a of the previous empirical best arm (decision D213)
W_LS2 = 14  # TaS oracle: l_a of the previous empirical best arm
W_LO = 15  # DKM/FWS: certified lower bounds of the unknown-variance costs (decision D214)
W_HI = 16  # DKM/FWS: their upper bounds
N_WS = BUILTIN_WORKSPACE.rows  # 17
# rows N_WS .. N_WS + K - 1 (rows_per_arm = 1): FWS gradients (K x K, zero outside the
# entries being used)
#: Number of scalars in the built-in rules' ``scal``.
N_SCAL = BUILTIN_WORKSPACE.scalars
if N_WS != W_HI + 1 or BUILTIN_WORKSPACE.rows_per_arm != 1 or N_SCAL != 5:
    raise ImportError("BUILTIN_WORKSPACE does not match the rows named here")


@njit(cache=True)
def init_workspace(counts, params, size, builtin):
    """Workspace ``(ws, scal)`` of a sampling rule after the initialisation phase, of the
    ``size = (rows, rows_per_arm, scalars)`` its registry record declares
    (:class:`baiuv.registry.Workspace`): zeros, and for a built-in rule (``builtin``,
    ``size`` = :data:`~baiuv.registry.BUILTIN_WORKSPACE`) C-tracking sums starting at the
    counts, the FWS iterate uniform, ``scal[0]`` the AdaHedge gap budget, ``scal[1:3]`` the
    TaS oracle warm-start hint (none), ``scal[3:5]`` that of the previous empirical best
    arm (none)."""
    K = counts.shape[0]
    ws = np.zeros((size[0] + size[1] * K, K))
    scal = np.zeros(size[2])
    if builtin:
        for a in range(K):
            ws[W_SUMW, a] = counts[a]
            ws[W_X, a] = 1.0 / K
            ws[W_ORACLE + 4, a] = math.nan  # TaS oracle: no minimisers l_a to follow yet
        scal[2] = -1.0  # TaS: empirical best arm of the stored oracle hint
        scal[4] = -1.0  # TaS: the previous empirical best arm (hint in scal[3])
        scal[0] = params[P_HEDGE_DELTA0]
    return ws, scal
