"""FWS and EV-FWS (Wang, Tzeng and Proutiere, 2021; decision D44): Frank-Wolfe steps on the
``r``-subdifferential of the transportation costs, forced exploration on a perfect-square
schedule, and C-tracking of the iterate."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from baiuv.model.transport import lambda_unknown, tc_unknown_bounds, tc_unknown_rational_bounds
from baiuv.registry import Workspace
from baiuv.simulation.game import solve_game

from .alternative import divergence
from .tracking import W_SUMW, c_tracking, init_tracking

# rows of FWS's ws (its workspace, WORKSPACE; :func:`init_fws`)
FWS_SUMW = W_SUMW  # cumulative tracked weights (C-tracking, starting at the counts)
FWS_X = 1  # Frank-Wolfe iterate x(t) (starting uniform)
FWS_Z = 2  # the direction z of the step
FWS_F = 3  # values f_j
FWS_LO = 4  # certified lower bounds of the unknown-variance costs (decision D214)
FWS_HI = 5  # their upper bounds
FWS_GRADS = 6  # K rows (rows_per_arm = 1): gradients, zero outside the entries being used
#: FWS's workspace: the rows above, a ``K x K`` block of gradients, no scalar.
WORKSPACE = Workspace(rows=FWS_GRADS, rows_per_arm=1, scalars=0)


@njit(cache=True)
def is_perfect_square(n):
    """``True`` when the non-negative integer ``n`` is a perfect square."""
    if n < 0:
        return False
    r = int(math.sqrt(n))
    while r * r > n:
        r -= 1
    while (r + 1) * (r + 1) <= n:
        r += 1
    return r * r == n


@njit(cache=True)
def fws_direction(x, means, variances, best, r, plug_in, z):
    """Frank-Wolfe direction ``z`` of FWS (Wang, Tzeng and Proutiere, 2021), decision D44.

    ``f_j(x) = C(best, j; x)`` for ``j != best`` with gradient (envelope theorem)
    ``d(mu_best, lam_j)`` at ``best`` and ``d(mu_j, lam_j)`` at ``j``. With ``H`` the
    indices with ``f_j < min f + r`` (the ``r``-subdifferential), ``z`` is the pure
    strategy ``e_{argmax grad f_j}`` when ``|H| = 1``, else the solution of the game
    ``max_z min_{j in H} <z - x, grad f_j>`` (LP, :func:`~baiuv.simulation.game.solve_game`).
    Returns ``|H|``.
    """
    K = means.shape[0]
    scratch = (np.zeros((K, K)), np.empty(K), np.empty(K), np.empty(K))
    return fws_direction_work((x, means, variances, best, plug_in), r, z, scratch)


@njit(cache=True)
def fws_direction_work(game, r, z, scratch):
    """:func:`fws_direction` of ``game = (x, means, variances, best, plug_in)`` with
    ``scratch = (grads, f, lo, hi)``: its gradients in ``grads`` (``(K, K)``, zero on
    entry, left zero on return), values in ``f`` and bounds in ``lo``, ``hi``, so that FWS
    allocates nothing per sample outside the game solver.

    With unknown variances and at least two challengers, ``f_j`` is solved only for the arms
    that can be in ``H`` (D214: the costs solved only where they can decide; D216: the
    rational enclosure ahead of the logarithmic one): ``f*`` of the arm with the smallest upper
    end of its rational enclosure (:func:`~baiuv.model.transport.tc_unknown_rational_bounds`)
    is solved, and with ``c = fl(f* + r)`` (at least ``f*``) an arm whose rational lower
    bound, then whose logarithmic one (:func:`~baiuv.model.transport.tc_unknown_bounds`),
    exceeds ``c`` has ``f_j > c >= fl(min f + r)`` and ``f_j > min f``: it is neither in
    ``H`` nor the minimum (its ``f_j`` stays ``inf``, its gradient is not written). When a
    solved ``f_j`` lies outside its enclosure, every ``f_j`` is solved.
    """
    x, means, variances, best, plug_in = game
    grads, f, lo, hi = scratch
    K = means.shape[0]
    cut = math.inf
    done = -1
    f_done = math.inf
    if not plug_in and K > 2:
        mb = means[best]
        sb = variances[best]
        xb = x[best]
        astar = -1
        hmin = math.inf
        for j in range(K):
            if j != best:
                lo[j], hi[j] = tc_unknown_rational_bounds(mb, sb, xb, means[j], variances[j], x[j])
                if hi[j] < hmin or astar < 0:
                    hmin = hi[j]
                    astar = j
        fa = _fws_values(game, scratch, math.inf, (-1, math.inf), astar)[0]
        if lo[astar] <= fa <= hi[astar]:
            c = fa + r
            if not (c >= fa):
                c = fa
            for j in range(K):
                if j != best and j != astar and not (lo[j] > c):
                    l2, h2 = tc_unknown_bounds(mb, sb, xb, means[j], variances[j], x[j])
                    lo[j] = max(lo[j], l2)  # both enclosures are certified
                    hi[j] = min(hi[j], h2)
            cut = c
            done = astar
            f_done = fa
    fmin, ok = _fws_values(game, scratch, cut, (done, f_done), -1)
    if not ok:
        fmin, ok = _fws_values(game, scratch, math.inf, (-1, math.inf), -1)
    n_act = 0
    for j in range(K):
        if j != best and (f[j] <= fmin or f[j] < fmin + r):
            n_act += 1
    if n_act == 1:
        for j in range(K):
            if j != best and (f[j] <= fmin or f[j] < fmin + r):
                jj = 0
                for i in range(K):
                    if grads[j, i] > grads[j, jj]:
                        jj = i
                for i in range(K):
                    z[i] = 0.0
                z[jj] = 1.0
        _clear_grads(grads, best)
        return 1
    M = np.empty((n_act, K))
    row = 0
    for j in range(K):
        if j != best and (f[j] <= fmin or f[j] < fmin + r):
            for i in range(K):
                M[row, i] = grads[j, i] - f[j]  # <e_i - x, grad f_j>, since <x, grad f_j> = f_j
            row += 1
    _clear_grads(grads, best)
    _, zz = solve_game(M)
    for i in range(K):
        z[i] = zz[i]
    return n_act


@njit(cache=True)
def _fws_values(game, scratch, cut, solved, only):
    """``f_j(x) = C(best, j; x)`` of ``game = (x, means, variances, best, plug_in)``
    through its alternative mean, with the gradient entries ``grads[j, best]``,
    ``grads[j, j]`` (decision D44; ``scratch = (grads, f, lo, hi)``), for every
    ``j != best`` with ``not (lo_j > cut)`` (every ``j`` when ``cut`` is ``inf``),
    ``f_j = inf`` for the others; ``solved = (done, f_done)``: arm ``done`` (or ``-1``) was
    solved already, with value ``f_done``. Returns ``(min f,
    ok)``; ``ok`` is ``False`` when ``cut`` is finite and a solved ``f_j`` lies outside
    ``[lo_j, hi_j]``. With ``only >= 0``, solves that arm alone (``f`` otherwise untouched)
    and returns ``(f_only, True)``. The arithmetic is written here, not in a helper that
    binds the arrays (decision D210)."""
    x, means, variances, best, plug_in = game
    grads, f, lo, hi = scratch
    done, f_done = solved
    K = means.shape[0]
    if only < 0:
        for j in range(K):
            f[j] = math.inf
    fmin = math.inf
    bounded = cut < math.inf
    for j in range(K):
        if j == best or (only >= 0 and j != only):
            continue
        if j == done:
            f[j] = f_done
        else:
            if bounded and lo[j] > cut:
                continue
            if plug_in:
                pa = x[best] / variances[best]
                pb = x[j] / variances[j]
                lam = (pa * means[best] + pb * means[j]) / (pa + pb)
            else:
                lam, _ = lambda_unknown(
                    means[best], variances[best], x[best], means[j], variances[j], x[j]
                )
            gb = divergence(means[best], lam, variances[best], plug_in)
            gj = divergence(means[j], lam, variances[j], plug_in)
            grads[j, best] = gb
            grads[j, j] = gj
            f[j] = x[best] * gb + x[j] * gj
            if bounded and not (lo[j] <= f[j] <= hi[j]):
                return fmin, False
        if f[j] < fmin:
            fmin = f[j]
    return fmin, True


@njit(cache=True)
def _clear_grads(grads, best):
    """Zero the entries of ``grads`` written by :func:`fws_direction_work`."""
    for j in range(grads.shape[0]):
        grads[j, best] = 0.0
        grads[j, j] = 0.0


@njit(cache=True)
def step_fws(counts, means, variances, best, t, plug_in, ws, exponent):
    """FWS / EV-FWS: forced exploration (uniform ``z``) when ``floor(t/K)`` is a perfect
    square or the empirical best arm is not unique, else :func:`fws_direction`; then
    ``x <- x (t-1)/t + z/t`` and C-tracking of ``x`` (decision D44)."""
    K = counts.shape[0]
    z = ws[FWS_Z]
    n_best = 0
    for a in range(K):
        if means[a] == means[best]:
            n_best += 1
    if n_best > 1 or is_perfect_square(t // K):
        for a in range(K):
            z[a] = 1.0 / K
    else:
        r = t ** (-exponent) / K
        scratch = (ws[FWS_GRADS : FWS_GRADS + K], ws[FWS_F], ws[FWS_LO], ws[FWS_HI])
        fws_direction_work((ws[FWS_X], means, variances, best, plug_in), r, z, scratch)
    x = ws[FWS_X]
    for a in range(K):
        x[a] = x[a] * (t - 1.0) / t + z[a] / t
    return c_tracking(ws[FWS_SUMW], counts, x)


@njit(cache=True)
def init_fws(ws, scal, counts, params):
    """FWS's workspace (zero, of the size :data:`WORKSPACE`) at the start of the sampling:
    the C-tracking sums at the counts, the iterate ``x`` uniform."""
    K = counts.shape[0]
    init_tracking(ws, scal, counts, params)
    for a in range(K):
        ws[FWS_X, a] = 1.0 / K
