"""Track-and-Stop and EV-TaS (Section ``ssec:instantiating_wrappers``, paragraph
"Track-and-Stop"): C-tracking of the oracle allocation at the empirical parameters, with
forced exploration."""

from __future__ import annotations

import math

from numba import njit

from baiuv.model.oracle import oracle_warm_work
from baiuv.registry import Workspace

from .tracking import W_SUMW, c_tracking, forced_exploration, init_tracking

# rows of Track-and-Stop's ws (its workspace, WORKSPACE; :func:`init_tas`)
TAS_SUMW = W_SUMW  # cumulative tracked weights (C-tracking, starting at the counts)
TAS_TMP = 1  # the weights tracked (after forced exploration)
TAS_XS = 2  # per-arm solutions x_a of the oracle (warm start, decision D95)
TAS_ORACLE = 3  # 5 rows: scratch of the oracle (oracle_warm_work), TAS_LS its l_a
TAS_LS = TAS_ORACLE + 4  # the oracle's minimisers l_a (nan: none to follow yet)
TAS_XS2 = 8  # x_a of the previous empirical best arm (decision D213)
TAS_LS2 = 9  # l_a of the previous empirical best arm
# its scal
S_Y = 0  # root y of the oracle at the last step (the warm-start hint)
S_BEST = 1  # the empirical best arm of that root (-1: none)
S_Y2 = 2  # root kept for the previous empirical best arm
S_BEST2 = 3  # that arm (-1: none)
#: Track-and-Stop's workspace: the rows and scalars above.
WORKSPACE = Workspace(rows=TAS_LS2 + 1, scalars=S_BEST2 + 1)


@njit(cache=True)
def step_tas(counts, means, variances, best, t, plug_in, ws, scal):
    """Track-and-Stop / EV-TaS: C-tracking of the oracle allocation at the current
    ``(mu_t, sigma_t^2)`` with forced exploration (paragraph "Track-and-Stop").

    The oracle is warm-started from the previous step's root ``y`` (kept in
    ``scal[S_Y]``), per-arm solutions ``x_a`` (row ``TAS_XS``) and minimisers ``l_a`` (row
    ``TAS_LS``) of the same empirical best arm; when the best arm changes, from the
    solution kept for it when it was the best arm before the last change (``scal[S_Y2]``,
    ``scal[S_BEST2]``, rows ``TAS_XS2``, ``TAS_LS2``), else from none. The result does not
    depend on the warm start beyond rounding (D213: the warm-started oracle iterates on the
    joint system; D95: its accuracy and cost as ``K`` grows)."""
    K = counts.shape[0]
    if scal[S_BEST] != best:
        # the empirical best arm changed: the solution kept for the new one, when it was the
        # best arm before the last change, is a start for its oracle (otherwise the cold
        # start begins at the leaving arm's x_a); the current solution is kept for the arm
        # that leaves
        back = scal[S_BEST2] == best
        for a in range(K):
            x, lam = ws[TAS_XS, a], ws[TAS_LS, a]
            ws[TAS_XS, a] = ws[TAS_XS2, a] if back else x
            ws[TAS_LS, a] = ws[TAS_LS2, a] if back else math.nan
            ws[TAS_XS2, a] = x
            ws[TAS_LS2, a] = lam
        y_old = scal[S_Y]
        scal[S_Y] = scal[S_Y2] if back else -1.0
        scal[S_Y2] = y_old
        scal[S_BEST2] = scal[S_BEST]
        scal[S_BEST] = best
    oracle_work = ws[TAS_ORACLE : TAS_ORACLE + 5]
    _, w, y = oracle_warm_work(
        means, variances, best, plug_in, -1.0, scal[S_Y], ws[TAS_XS], oracle_work
    )
    scal[S_Y] = y
    ok = True
    for a in range(K):
        if not (w[a] >= 0.0) or not math.isfinite(w[a]):
            ok = False
    if not ok:
        for a in range(K):
            w[a] = 1.0 / K
    forced_exploration(counts, t, w, ws[TAS_TMP])
    return c_tracking(ws[TAS_SUMW], counts, ws[TAS_TMP])


@njit(cache=True)
def init_tas(ws, scal, counts, params):
    """Track-and-Stop's workspace (zero, of the size :data:`WORKSPACE`) at the start of the
    sampling: the C-tracking sums at the counts, no oracle hint (root ``0``, best arm
    ``-1``) and no minimisers ``l_a`` to follow (``nan``)."""
    init_tracking(ws, scal, counts, params)
    for a in range(counts.shape[0]):
        ws[TAS_LS, a] = math.nan
    scal[S_BEST] = -1.0
    scal[S_BEST2] = -1.0
