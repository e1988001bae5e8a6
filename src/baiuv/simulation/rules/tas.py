"""Track-and-Stop and EV-TaS (Section ``ssec:instantiating_wrappers``, paragraph
"Track-and-Stop"): C-tracking of the oracle allocation at the empirical parameters, with
forced exploration."""

from __future__ import annotations

import math

from numba import njit

from baiuv.model.oracle import oracle_warm_work

from .tracking import c_tracking, forced_exploration
from .workspace import W_LS2, W_ORACLE, W_SUMW, W_TMP, W_XS, W_XS2


@njit(cache=True)
def step_tas(counts, means, variances, best, t, plug_in, ws, scal):
    """Track-and-Stop / EV-TaS: C-tracking of the oracle allocation at the current
    ``(mu_t, sigma_t^2)`` with forced exploration (paragraph "Track-and-Stop").

    The oracle is warm-started from the previous step's root ``y`` (kept in ``scal[1]``),
    per-arm solutions ``x_a`` (row ``W_XS``) and minimisers ``l_a`` (row ``W_ORACLE + 4``)
    of the same empirical best arm; when the best arm changes, from the solution kept for
    it when it was the best arm before the last change (``scal[3:5]``, rows ``W_XS2``,
    ``W_LS2``), else from none. The result does not depend on the warm start beyond
    rounding (D213: the warm-started oracle iterates on the joint system; D95: its accuracy
    and cost as ``K`` grows)."""
    K = counts.shape[0]
    if scal[2] != best:
        # the empirical best arm changed: the solution kept for the new one, when it was the
        # best arm before the last change, is a start for its oracle (otherwise the cold
        # start begins at the leaving arm's x_a); the current solution is kept for the arm
        # that leaves
        back = scal[4] == best
        for a in range(K):
            x, lam = ws[W_XS, a], ws[W_ORACLE + 4, a]
            ws[W_XS, a] = ws[W_XS2, a] if back else x
            ws[W_ORACLE + 4, a] = ws[W_LS2, a] if back else math.nan
            ws[W_XS2, a] = x
            ws[W_LS2, a] = lam
        y_old = scal[1]
        scal[1] = scal[3] if back else -1.0
        scal[3] = y_old
        scal[4] = scal[2]
        scal[2] = best
    _, w, y = oracle_warm_work(
        means, variances, best, plug_in, -1.0, scal[1], ws[W_XS], ws[W_ORACLE : W_ORACLE + 5]
    )
    scal[1] = y
    ok = True
    for a in range(K):
        if not (w[a] >= 0.0) or not math.isfinite(w[a]):
            ok = False
    if not ok:
        for a in range(K):
            w[a] = 1.0 / K
    forced_exploration(counts, t, w, ws[W_TMP])
    return c_tracking(ws[W_SUMW], counts, ws[W_TMP])
