"""Numba kernels of the sampling rules and of the two simulation loops.

Everything here is ``@njit(cache=True)`` and works on arrays, scalars and a
``numpy.random.Generator`` (numba supports passing one to compiled code, so a run draws
every observation and every coin flip from the single stream that the orchestration
derived from its SeedSequence).

Two loops exist:

* :func:`run_glr` -- every rule that is combined with a GLR stopping rule (Section
  ``ssec:GLR_stopping_rule``): the GLR (``plug_in=False``, statistic ``Z_a(t)``) or the
  EV-GLR (``plug_in=True``, statistic ``Z^EV_a(t)``). After ``n0`` pulls of each arm, the
  stopping rule is checked *before every sample* (``t`` counts all samples, the initial
  ones included) and, if it does not stop, the rule selected by ``rule`` picks the next
  arm through :func:`select_arm`;
* :func:`run_fhn` -- the elimination procedures FHN1/FHN2 (Algorithm ``algo:fhn2``), which
  have their own stopping (elimination) rule and sample all surviving arms in rounds.

Adding a sampling rule (see also :mod:`baiuv.registry`): write a compiled function with
the signature of :func:`select_arm` in a module of its own and name it as the ``step`` of a
registered :class:`~baiuv.registry.Algorithm`; the engine and the identifier run it in
:func:`run_glr_loop`, this module is not edited. (The built-in rules are branches of
:func:`select_arm` under the ``RULE_*`` codes of the registry.)
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from baiuv.model.glr_kernels import empirical_best
from baiuv.model.oracle import oracle_warm_work
from baiuv.model.transport import (
    lambda_unknown,
    tc_known,
    tc_unknown,
    tc_unknown_bounds,
    tc_unknown_rational_bounds,
)
from baiuv.registry import (
    P_BETA,
    P_FWS_EXPONENT,
    P_HEDGE_DELTA0,
    RULE_DKM,
    RULE_FIXED,
    RULE_FWS,
    RULE_TAS,
    RULE_TCI,
    RULE_UNIFORM,
)
from baiuv.simulation.game import solve_game
from baiuv.thresholds.kernels import (
    depends_on_t_only,
    has_state,
    pair_threshold_kernel,
    update_state,
)

# Rule codes (RULE_*) and the layout of the float64 ``params`` array passed to run_glr
# (P_BETA: leader probability of beta-EB-TCI, P_FWS_EXPONENT: r_t = t^(-exponent)/K,
# P_HEDGE_DELTA0: initial AdaHedge mixability-gap budget) come from the registry.

# workspace rows (float64 array (N_WS, K) owned by run_glr)
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
N_WS = 17
# rows N_WS .. N_WS + K - 1: FWS gradients (K x K, zero outside the entries being used)


# --------------------------------------------------------------------------- helpers
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


@njit(cache=True, inline="always")
def c_tracking(sumw, counts, w):
    """C-tracking (Garivier and Kaufmann, 2016) of a weight vector ``w``.

    Adds ``w`` to the cumulative weights ``sumw`` (initialised to the initial counts) and
    returns ``argmin_a N_a - sumw_a`` (first index on ties). Section
    ``ssec:instantiating_wrappers``, paragraph "Track-and-Stop"; decision D41.
    """
    K = counts.shape[0]
    arm = 0
    best = math.inf
    for a in range(K):
        sumw[a] += w[a]
        v = counts[a] - sumw[a]
        if v < best:
            best = v
            arm = a
    return arm


@njit(cache=True)
def forced_exploration(counts, t, w, out):
    """Forced exploration of Track-and-Stop (decision D41).

    If some arm has ``N_a <= sqrt(t) - K/2``, ``out`` is the uniform distribution on those
    under-sampled arms, otherwise a copy of ``w``.
    """
    K = counts.shape[0]
    thr = math.sqrt(t) - 0.5 * K
    n_under = 0
    for a in range(K):
        if counts[a] <= thr:
            n_under += 1
    for a in range(K):
        if n_under > 0:
            out[a] = (1.0 / n_under) if counts[a] <= thr else 0.0
        else:
            out[a] = w[a]
    return n_under


@njit(cache=True)
def closest_alternative(means, variances, w, best, plug_in):
    """Best response of the ``lambda``-player: closest alternative for weights ``w``.

    Returns ``(k, lam, value)``: the arm ``k != best`` minimising the transportation cost
    ``C(best, k; w)`` (unknown-variance cost of Lemma ``lem:calcul`` or, with
    ``plug_in``, its known-variance form with the empirical variances; first index on
    ties), the common mean ``lam`` of ``best`` and ``k`` in that alternative, and the cost.
    """
    K = means.shape[0]
    return closest_alternative_work(means, variances, w, best, plug_in, np.empty(K), np.empty(K))


@njit(cache=True)
def closest_alternative_work(means, variances, w, best, plug_in, lo, hi):
    """:func:`closest_alternative` with scratch rows ``lo``, ``hi`` (no allocation per
    sample).

    With unknown variances and at least two challengers, certified enclosures of the costs
    rule out arms without solving their cubics (decisions D214, D216): the cost ``v*`` of the
    arm with the smallest upper end of its rational enclosure
    (:func:`~baiuv.model.transport.tc_unknown_rational_bounds`, divisions only) is solved;
    an arm whose rational lower bound, then whose logarithmic one
    (:func:`~baiuv.model.transport.tc_unknown_bounds`), exceeds ``v*`` has a cost above the
    minimum, so it is neither the minimiser nor tied with it. The cost is solved for the
    other arms only, in index order, with the same comparison; the result is the same bits.
    When a solved cost lies outside its enclosure (``nan``), every arm is solved as before.
    """
    K = means.shape[0]
    mb = means[best]
    sb = variances[best]
    wb = w[best]
    if not plug_in and K > 2:
        # rational enclosures of every cost; the arm with the smallest upper end is solved
        astar = -1
        hmin = math.inf
        for a in range(K):
            if a == best:
                continue
            lo[a], hi[a] = tc_unknown_rational_bounds(mb, sb, wb, means[a], variances[a], w[a])
            if hi[a] < hmin or astar < 0:
                hmin = hi[a]
                astar = a
        lam_s, v_s = lambda_unknown(mb, sb, wb, means[astar], variances[astar], w[astar])
        if lo[astar] <= v_s <= hi[astar]:
            # an arm whose lower bound (rational, then logarithmic) exceeds v_s is neither
            # the minimiser nor tied with it; the others are solved
            kmin = -1
            vmin = math.inf
            lmin = mb
            certified = True
            for a in range(K):
                if a == best or lo[a] > v_s:
                    continue
                if a == astar:
                    lam, v = lam_s, v_s
                else:
                    l2, h2 = tc_unknown_bounds(mb, sb, wb, means[a], variances[a], w[a])
                    lo[a] = max(lo[a], l2)  # both enclosures are certified
                    hi[a] = min(hi[a], h2)
                    if lo[a] > v_s:
                        continue
                    lam, v = lambda_unknown(mb, sb, wb, means[a], variances[a], w[a])
                    if not (lo[a] <= v <= hi[a]):
                        certified = False
                        break
                if v < vmin or kmin < 0:
                    vmin = v
                    kmin = a
                    lmin = lam
            if certified:
                return kmin, lmin, vmin
    kmin = -1
    vmin = math.inf
    lmin = mb
    for a in range(K):
        if a == best:
            continue
        if plug_in:
            v = tc_known(mb, sb, wb, means[a], variances[a], w[a])
            pa = w[a] / variances[a]
            pb = wb / sb
            if pa + pb > 0.0:
                lam = (pb * mb + pa * means[a]) / (pa + pb)
            else:
                lam = 0.5 * (mb + means[a])
        else:
            lam, v = lambda_unknown(mb, sb, wb, means[a], variances[a], w[a])
        if v < vmin or kmin < 0:
            vmin = v
            kmin = a
            lmin = lam
    return kmin, lmin, vmin


@njit(cache=True)
def divergence(x, lam, s2, plug_in):
    """Per-arm divergence ``d(x, lam)`` used by DKM/FWS.

    ``(x - lam)^2 / (2 s2)`` (Gaussian with variance ``s2``, EV wrapper) or
    ``log(1 + (x - lam)^2 / s2) / 2`` (KL to the closest Gaussian of mean ``lam`` and any
    variance, Lemma ``lem:calcul``).
    """
    z = (x - lam) * (x - lam) / s2
    if plug_in:
        return 0.5 * z
    return 0.5 * math.log1p(z)


# --------------------------------------------------------------------------- rules
@njit(cache=True)
def _step_tas(counts, means, variances, best, t, plug_in, ws, scal):
    """Track-and-Stop / EV-TaS: C-tracking of the oracle allocation at the current
    ``(mu_t, sigma_t^2)`` with forced exploration (paragraph "Track-and-Stop").

    The oracle is warm-started from the previous step's root ``y`` (kept in ``scal[1]``),
    per-arm solutions ``x_a`` (row ``W_XS``) and minimisers ``l_a`` (row ``W_ORACLE + 4``)
    of the same empirical best arm; when the best arm changes, from the solution kept for
    it when it was the best arm before the last change (``scal[3:5]``, rows ``W_XS2``,
    ``W_LS2``), else from none. The result does not depend on the warm start beyond
    rounding (decisions D95, D213)."""
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


@njit(cache=True)
def _step_tci(counts, Z, best, beta, rng):
    """beta-EB-TCI / beta-EB-EVTCI (paragraph "Top Two algorithm").

    Leader = empirical best, pulled with probability ``beta``; otherwise the TCI challenger
    ``argmin_{a != leader} C_t(leader, a) + log N_{t,a}`` where ``C_t(leader, a)`` is the
    GLR (or EV-GLR) statistic ``Z_a(t)`` already computed by the stopping rule.
    """
    if rng.random() < beta:
        return best
    K = counts.shape[0]
    arm = -1
    vmin = math.inf
    for a in range(K):
        if a == best:
            continue
        v = Z[a] + math.log(counts[a])
        if v < vmin or arm < 0:
            vmin = v
            arm = a
    return arm


@njit(cache=True)
def hedge_weights(L, delta_sum, out):
    """AdaHedge weights ``exp(-eta (L - min L))`` normalised, ``eta = log K / Delta``."""
    return _hedge_weights_mix(L, delta_sum, out)[0]


@njit(cache=True, inline="always")
def _hedge_weights_mix(L, delta_sum, out):
    """:func:`hedge_weights` and the mix loss ``M(L)`` (:func:`_mix_loss` at the same
    ``eta``, from the same sum of exponentials). Returns ``(eta, M(L))``."""
    K = L.shape[0]
    eta = math.log(K) / delta_sum
    lmin = L.min()
    s = 0.0
    for a in range(K):
        out[a] = math.exp(-eta * (L[a] - lmin))
        s += out[a]
    for a in range(K):
        out[a] /= s
    return eta, lmin - math.log(s / K) / eta


@njit(cache=True, inline="always")
def _mix_loss(L, eta):
    K = L.shape[0]
    lmin = L.min()
    s = 0.0
    for a in range(K):
        s += math.exp(-eta * (L[a] - lmin))
    return lmin - math.log(s / K) / eta


@njit(cache=True)
def hedge_update(L, delta_sum, u, eta, loss):
    """AdaHedge (de Rooij et al., 2014) update with loss vector ``loss``; returns the new
    cumulative mixability gap ``Delta += <u, loss> - (M(L + loss) - M(L))``."""
    return _hedge_update_pre(L, delta_sum, u, eta, loss, _mix_loss(L, eta))


@njit(cache=True, inline="always")
def _hedge_update_pre(L, delta_sum, u, eta, loss, pre):
    """:func:`hedge_update` given ``pre = M(L)``."""
    hl = 0.0
    for a in range(L.shape[0]):
        hl += u[a] * loss[a]
        L[a] += loss[a]
    post = _mix_loss(L, eta)
    gap = hl - (post - pre)
    if gap < 0.0:  # rounding only (the mix loss never exceeds the Hedge loss)
        gap = 0.0
    return delta_sum + gap


@njit(cache=True)
def dkm_gains(counts, means, variances, lam_vec, t, plug_in, out):
    """Optimistic gains of DKM (Degenne, Koolen and Menard, 2019), decision D43.

    ``U_a = max(d(up_a, lam_a), d(down_a, lam_a), bonus_a)`` where ``[down_a, up_a] =
    {x : d(mu_a, x) <= log(t) / N_a}`` for the divergence :func:`divergence`, and
    ``bonus_a = log(t)/N_a`` (EV) or ``log(t)/N_a (1 + 2 log(t)/N_a)`` (unknown variances,
    Appendix ``app:ss_implementation_details``).
    """
    lt = math.log(t)
    for a in range(counts.shape[0]):
        v = lt / counts[a]
        s2 = variances[a]
        if plug_in:
            h = math.sqrt(2.0 * s2 * v)
            bonus = v
        else:
            bonus = v * (1.0 + 2.0 * v)
            if lam_vec[a] == means[a] and _bonus_wins(means[a], s2, v):
                out[a] = bonus
                continue
            h = math.sqrt(s2 * math.expm1(2.0 * v))
        dev = abs(means[a] - lam_vec[a]) + h
        g = divergence(means[a] + dev, means[a], s2, plug_in)  # = d at the far end point
        out[a] = max(g, bonus)
    return out


#: Unit roundoff 2^-53 of float64.
_U = 2.0**-53


@njit(cache=True, inline="always")
def _bonus_wins(m, s2, v):
    """``True`` when, for an arm whose alternative mean is its own mean (``dev = h``), the
    computed gain ``0.5 log1p(((m + h) - m)^2 / s2)`` with ``h = sqrt(s2 expm1(2v))`` is
    certainly below the computed bonus ``v (1 + 2v)``, so that :func:`dkm_gains` returns the
    bonus (decision D215).

    In exact arithmetic the gain is ``v`` (``log1p(expm1(2v)) = 2v``) and the bonus exceeds
    it by ``2v^2``. With ``u = 2^-53`` and errors of at most 2 ulp for ``expm1``/``log1p``
    (glibc: 1), the computed gain is at most ``v + 2uv + L/2 + uL`` with
    ``L = 14u + 2.01 rho``, ``rho = u |m| / h <= u |m| / sqrt(2 s2 v) / (1 - 4u)``
    (``expm1(y) >= y``; ``rho`` covers the rounding of ``m + h``) when ``rho <= 1e-3``, and
    the computed bonus at least ``(v + 2v^2)(1 - 2u)``. The three tests below give
    ``2v^2`` a margin of at least 2 over every error term: ``v^2 > 64u(1 + v)``,
    ``s2 v^5 > 4u^2 m^2`` (i.e. ``v^2 >= 2 rho``) and ``u^2 m^2 < 1e-6 s2 v``
    (``rho < 1e-3``). The range guards keep every intermediate normal and finite."""
    if not (1e-100 <= s2 <= 1e100 and abs(m) <= 1e50 and v <= 50.0):
        return False
    v2 = v * v
    mm = _U * _U * m * m
    return v2 > 64.0 * _U * (1.0 + v) and s2 * v2 * v2 * v > 4.0 * mm and mm < 1e-6 * s2 * v


@njit(cache=True)
def _step_dkm(counts, means, variances, best, t, plug_in, ws, scal):
    """DKM / EV-DKM: one AdaHedge learner on the simplex against the best response, fed
    with optimistic gains, and C-tracking of the learner's cumulative weights."""
    K = counts.shape[0]
    w = ws[W_TMP]
    eta, pre = _hedge_weights_mix(ws[W_LOSS], scal[0], w)
    k, lam, _ = closest_alternative_work(means, variances, w, best, plug_in, ws[W_LO], ws[W_HI])
    lam_vec = ws[W_TMP2]
    for a in range(K):
        lam_vec[a] = means[a]
    lam_vec[best] = lam
    lam_vec[k] = lam
    gains = ws[W_GAINS]
    dkm_gains(counts, means, variances, lam_vec, t, plug_in, gains)
    for a in range(K):
        gains[a] = -gains[a]
    scal[0] = _hedge_update_pre(ws[W_LOSS], scal[0], w, eta, gains, pre)
    return c_tracking(ws[W_SUMW], counts, w)


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
    return fws_direction_work(
        x,
        means,
        variances,
        best,
        r,
        plug_in,
        z,
        np.zeros((K, K)),
        np.empty(K),
        np.empty(K),
        np.empty(K),
    )


@njit(cache=True)
def fws_direction_work(x, means, variances, best, r, plug_in, z, grads, f, lo, hi):
    """:func:`fws_direction` with its gradients in ``grads`` (``(K, K)``, zero on entry, left
    zero on return), values in ``f`` and bounds in ``lo``, ``hi`` (scratch), so that FWS
    allocates nothing per sample outside the game solver.

    With unknown variances and at least two challengers, ``f_j`` is solved only for the arms
    that can be in ``H`` (decisions D214, D216): ``f*`` of the arm with the smallest upper
    end of its rational enclosure (:func:`~baiuv.model.transport.tc_unknown_rational_bounds`)
    is solved, and with ``c = fl(f* + r)`` (at least ``f*``) an arm whose rational lower
    bound, then whose logarithmic one (:func:`~baiuv.model.transport.tc_unknown_bounds`),
    exceeds ``c`` has ``f_j > c >= fl(min f + r)`` and ``f_j > min f``: it is neither in
    ``H`` nor the minimum (its ``f_j`` stays ``inf``, its gradient is not written). When a
    solved ``f_j`` lies outside its enclosure, every ``f_j`` is solved.
    """
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
        fa = _fws_values(
            x, means, variances, best, plug_in, grads, f, lo, hi, math.inf, -1, math.inf, astar
        )[0]
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
    fmin, ok = _fws_values(
        x, means, variances, best, plug_in, grads, f, lo, hi, cut, done, f_done, -1
    )
    if not ok:
        fmin, ok = _fws_values(
            x, means, variances, best, plug_in, grads, f, lo, hi, math.inf, -1, math.inf, -1
        )
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
def _fws_values(x, means, variances, best, plug_in, grads, f, lo, hi, cut, done, f_done, only):
    """``f_j(x) = C(best, j; x)`` through its alternative mean, with the gradient entries
    ``grads[j, best]``, ``grads[j, j]`` (decision D44), for every ``j != best`` with
    ``not (lo_j > cut)`` (every ``j`` when ``cut`` is ``inf``), ``f_j = inf`` for the others;
    arm ``done`` (or ``-1``) was solved already, with value ``f_done``. Returns ``(min f,
    ok)``; ``ok`` is ``False`` when ``cut`` is finite and a solved ``f_j`` lies outside
    ``[lo_j, hi_j]``. With ``only >= 0``, solves that arm alone (``f`` otherwise untouched)
    and returns ``(f_only, True)``. The arithmetic is written here, not in a helper that
    binds the arrays (decision D210)."""
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
def _step_fws(counts, means, variances, best, t, plug_in, ws, exponent):
    """FWS / EV-FWS: forced exploration (uniform ``z``) when ``floor(t/K)`` is a perfect
    square or the empirical best arm is not unique, else :func:`fws_direction`; then
    ``x <- x (t-1)/t + z/t`` and C-tracking of ``x`` (decision D44)."""
    K = counts.shape[0]
    z = ws[W_TMP]
    n_best = 0
    for a in range(K):
        if means[a] == means[best]:
            n_best += 1
    if n_best > 1 or is_perfect_square(t // K):
        for a in range(K):
            z[a] = 1.0 / K
    else:
        r = t ** (-exponent) / K
        fws_direction_work(
            ws[W_X],
            means,
            variances,
            best,
            r,
            plug_in,
            z,
            ws[N_WS : N_WS + K],
            ws[W_F],
            ws[W_LO],
            ws[W_HI],
        )
    x = ws[W_X]
    for a in range(K):
        x[a] = x[a] * (t - 1.0) / t + z[a] / t
    return c_tracking(ws[W_SUMW], counts, x)


@njit(cache=True)
def select_arm(rule, t, counts, means, variances, best, Z, plug_in, params, ws, scal, wfix, rng):
    """Dispatch to the sampling rule ``rule`` (one of the ``RULE_*`` codes)."""
    if rule == RULE_UNIFORM:
        return t % counts.shape[0]
    if rule == RULE_FIXED:
        return c_tracking(ws[W_SUMW], counts, wfix)
    if rule == RULE_TAS:
        return _step_tas(counts, means, variances, best, t, plug_in, ws, scal)
    if rule == RULE_TCI:
        return _step_tci(counts, Z, best, params[P_BETA], rng)
    if rule == RULE_DKM:
        return _step_dkm(counts, means, variances, best, t, plug_in, ws, scal)
    if rule == RULE_FWS:
        return _step_fws(counts, means, variances, best, t, plug_in, ws, params[P_FWS_EXPONENT])
    raise ValueError("unknown sampling rule code")


@njit(cache=True)
def degenerate_arm(counts, variances, Z, best):
    """Guard of the GLR loop against degenerate statistics (decision D120).

    The statistics are *degenerate* when some arm has no positive empirical variance (all
    its observations are equal) or some challenger's GLR statistic is ``nan`` or ``+inf``
    (zero variance, equal constant arms, overflow). Returns ``-1`` when they are not, and
    otherwise the arm to sample next: the least-sampled arm, an arm with zero variance
    first on equal counts, then the first index (forced exploration). While the
    statistics are degenerate the stopping rule does not stop and the sampling rule is not
    consulted. On Gaussian observations (``n0 >= 2``) this never happens (probability 0),
    so the loop is unchanged.
    """
    K = counts.shape[0]
    bad = False
    for a in range(K):
        if not (variances[a] > 0.0) or (a != best and not (Z[a] < math.inf)):
            bad = True
            break
    if not bad:
        return -1
    arm = 0
    for a in range(1, K):
        if counts[a] < counts[arm] or (
            counts[a] == counts[arm] and not (variances[a] > 0.0) and variances[arm] > 0.0
        ):
            arm = a
    return arm


# --------------------------------------------------------------------------- loop body
# The functions below are the body of the GLR loop. :func:`run_glr` (simulator) and
# :class:`baiuv.simulation.identify.BestArmIdentifier` (ask/tell API) call the same ones, so a run of
# the identifier fed with draws from an instance is the simulator's run (decision D72).
@njit(cache=True)
def observe_update(arm, x, counts, means, m2, variances, thr_code, thr_fparams, states):
    """Add observation ``x`` of ``arm``: Welford update of its count, mean and ``1/N``
    empirical variance (Section ``ssec:GLR_stopping_rule``), then of its threshold state
    (``baiuv.thresholds.kernels.update_state``, per-arm peeling statistics of Theorem
    ``thm:delta_correct_complex_threshold_glrt``)."""
    n = welford(arm, x, counts, means, m2, variances)
    if has_state(thr_code):
        update_state(thr_code, thr_fparams, states[arm], n, means[arm], variances[arm])


@njit(cache=True)
def welford(arm, x, counts, means, m2, variances):
    """Welford update of ``arm``'s count, mean and ``1/N`` variance with ``x``; returns the
    new count. Small on purpose: the simulation loop calls it at every sample and numba
    inlines it (a call of a function that contains the threshold-state update costs about
    100 ns per sample even when the update is skipped; decision D160)."""
    n = counts[arm] + 1
    d = x - means[arm]
    means[arm] += d / n
    m2[arm] += d * (x - means[arm])
    counts[arm] = n
    variances[arm] = m2[arm] / n
    return n


@njit(cache=True)
def glr_stop_check(
    thr_code, thr_fparams, thr_table, t, counts, best, Z, states, thr_out, all_pairs
):
    """GLR stopping rule: ``True`` when ``Z_a(t) > c_{hat a_t, a}(N_t, delta)`` for every
    ``a != hat a_t`` (eqs. ``def_stopping_rule_glrt`` / ``def_stopping_rule_evglrt``), the
    thresholds coming from ``baiuv.thresholds.kernels.pair_threshold_kernel``.

    The thresholds are written to ``thr_out`` (``nan`` for ``hat a_t`` and, unless
    ``all_pairs``, for the pairs after the first failing one: the simulator stops computing
    at the first challenger that is not beaten).
    """
    K = counts.shape[0]
    for a in range(K):
        thr_out[a] = math.nan
    stop = True
    for a in range(K):
        if a == best:
            continue
        c = pair_threshold_kernel(
            thr_code,
            thr_fparams,
            thr_table,
            float(t),
            counts[best],
            counts[a],
            states[best],
            states[a],
        )
        thr_out[a] = c
        if not (Z[a] > c):
            stop = False
            if not all_pairs:
                break
    return stop


@njit(cache=True)
def lazy_check_time(t0, ratio, k):
    """``k``-th time of the geometric grid of the lazy stopping rule, ``ceil(t0 ratio^k)``
    (end of Section ``ssec:simulations_stopping_thresholds``; decision D70)."""
    return int(math.ceil(t0 * ratio**k))


@njit(cache=True)
def lazy_next_index(t, t0, ratio, k):
    """Smallest ``k' >= k`` whose grid time ``ceil(t0 ratio^k')`` is ``> t``."""
    while lazy_check_time(t0, ratio, k) <= t:
        k += 1
    return k


@njit(cache=True)
def init_workspace(counts, params):
    """Workspace ``(ws, scal)`` of the sampling rules after the initialisation phase:
    C-tracking sums start at the counts, the FWS iterate is uniform, ``scal[0]`` is the
    AdaHedge gap budget, ``scal[1:3]`` the TaS oracle warm-start hint (none), ``scal[3:5]``
    that of the previous empirical best arm (none)."""
    K = counts.shape[0]
    ws = np.zeros((N_WS + K, K))
    for a in range(K):
        ws[W_SUMW, a] = counts[a]
        ws[W_X, a] = 1.0 / K
        ws[W_ORACLE + 4, a] = math.nan  # TaS oracle: no minimisers l_a to follow yet
    scal = np.zeros(5)
    scal[2] = -1.0  # TaS: empirical best arm of the stored oracle hint
    scal[4] = -1.0  # TaS: the previous empirical best arm (hint in scal[3])
    scal[0] = params[P_HEDGE_DELTA0]
    return ws, scal


@njit(cache=True)
def draw(arm, mu, sd, rng):
    """One Gaussian observation ``mu_a + sigma_a Z`` from the run's stream."""
    return mu[arm] + sd[arm] * rng.standard_normal()


@njit(cache=True)
def draw_observe(arm, mu, sd, rng, counts, means, m2, variances, thr_code, thr_fparams, states):
    """Draw one observation of ``arm`` (:func:`draw`) and add it (:func:`observe_update`)."""
    observe_update(
        arm,
        draw(arm, mu, sd, rng),
        counts,
        means,
        m2,
        variances,
        thr_code,
        thr_fparams,
        states,
    )


# --------------------------------------------------------------------------- loops
@njit(cache=True)
def run_glr(
    rule,
    plug_in,
    mu,
    sigma2,
    n0,
    thr_code,
    thr_fparams,
    thr_table,
    states,
    params,
    wfix,
    rng,
    max_samples,
    lazy_ratio=0.0,
):
    """:func:`run_glr_loop` with the built-in rules (:func:`select_arm`): compiled once and
    kept in numba's cache (the generic loop is compiled into this function, with the
    step function inlined)."""
    return run_glr_loop(
        select_arm,
        rule,
        plug_in,
        mu,
        sigma2,
        n0,
        thr_code,
        thr_fparams,
        thr_table,
        states,
        params,
        wfix,
        rng,
        max_samples,
        lazy_ratio,
    )


@njit(inline="always")
def run_glr_loop(
    step,
    rule,
    plug_in,
    mu,
    sigma2,
    n0,
    thr_code,
    thr_fparams,
    thr_table,
    states,
    params,
    wfix,
    rng,
    max_samples,
    lazy_ratio=0.0,
):
    """One run of the sampling rule ``step`` with the GLR (or EV-GLR) stopping rule.

    ``step`` is a compiled kernel with the signature of :func:`select_arm`, ``step(rule, t,
    counts, means, variances, best, Z, plug_in, params, ws, scal, wfix, rng) -> arm``,
    called before every sample after the initialisation (unless the degeneracy guard
    forces an arm): ``Z[a]`` is the current GLR (or EV-GLR) statistic ``Z_a(t)`` of every
    ``a != best``, ``ws``/``scal`` the rule's workspace (:func:`init_workspace`, kept
    between steps) and ``rng`` the run's generator. The built-in codes ``RULE_UNIFORM``,
    ``RULE_TCI`` and ``RULE_FIXED`` take inlined paths of this loop; a rule registered
    with its own kernel runs with ``rule = RULE_CUSTOM``. This function is not cached
    (numba cannot cache a function that receives a compiled function as an argument):
    :func:`run_glr` is its cached instance for the built-in rules, and a registered
    kernel costs one compilation of the loop per process.

    Each arm is first pulled ``n0`` times (round robin). Then, before every sample, the
    statistics ``Z_a(t)`` (``plug_in=False``; ``tc_unknown`` with counts) or ``Z^EV_a(t)``
    (``plug_in=True``) are computed against the empirical best arm ``hat a_t``
    (:func:`baiuv.model.glr_kernels.glr_stats_into`) and the run stops at the first ``t`` with ``Z_a(t) >
    c_{hat a_t, a}(N_t, delta)`` for every ``a != hat a_t`` (:func:`glr_stop_check`, eqs.
    ``def_stopping_rule_glrt`` / ``def_stopping_rule_evglrt``). Variances are the ``1/N``
    empirical variances of Section ``ssec:GLR_stopping_rule``.

    With ``lazy_ratio > 1`` the stopping rule is only evaluated at the times
    ``ceil(n0 K lazy_ratio^k)``, ``k = 0, 1, ...`` (the "lazy" rule of Section
    ``ssec:simulations_stopping_thresholds``, decision D70); sampling and the per-arm
    states are updated at every step. ``lazy_ratio = 0`` checks at every step.

    Returns
    -------
    (tau, recommendation, counts, truncated) : stopping time (all samples counted), the
    empirical best arm at ``tau``, final counts, and whether ``max_samples`` was hit.
    """
    K = mu.shape[0]
    sd = np.sqrt(sigma2)
    counts = np.zeros(K, dtype=np.int64)
    means = np.zeros(K)
    m2 = np.zeros(K)
    variances = np.zeros(K)
    for _ in range(n0):
        for a in range(K):
            draw_observe(
                a, mu, sd, rng, counts, means, m2, variances, thr_code, thr_fparams, states
            )
    t = n0 * K
    ws, scal = init_workspace(counts, params)
    # Cached statistics (decision D160): Z[a] and thr_pair[a] are valid while ok[a]; one
    # sample of arm j invalidates j only, or every arm when j is (or the sample changes)
    # the empirical best arm. log_counts[a] = log N_a for the TCI challenger. Z[a] and log N_a are
    # computed when read (decision D191): by the stopping check, the TCI challenger, a
    # registered step kernel, or the degeneracy guard when the certificate fails.
    Z = np.empty(K)
    thr_pair = np.empty(K)
    ok = np.zeros(K, dtype=np.bool_)
    log_counts = np.empty(K)  # valid where log_ok: log N_a is computed when TCI reads it
    log_ok = np.zeros(K, dtype=np.bool_)
    # certified enclosure [zlo[a], zhi[a]] of the computed Z_a (unknown variances, decision
    # D210), valid where bnd_ok (invalidated with ok): it decides the stopping check and the
    # TCI challenger without the cubic solve when it can
    zlo = np.empty(K)
    zhi = np.empty(K)
    bnd_ok = np.zeros(K, dtype=np.bool_)
    # the looser rational enclosure [rlo[a], rhi[a]] (divisions only, decision D217), valid
    # where rat_ok (invalidated with ok): the TCI challenger tries it first
    rlo = np.empty(K)
    rhi = np.empty(K)
    rat_ok = np.zeros(K, dtype=np.bool_)
    bounded = not plug_in
    # certificate of the degeneracy guard (D191): n_uncert = number of arms outside
    # certified_arm; when it is 0, degenerate_arm returns -1 whatever the statistics
    n_uncert = 0
    for a in range(K):
        if not certified_arm(means[a], variances[a]):
            n_uncert += 1
    t_only = depends_on_t_only(thr_code)
    stateful = has_state(thr_code)
    thr_lo = -math.inf  # certified lower bound of the t-only threshold at every t >= now
    thr_hi = math.inf  # certified upper bound of the t-only threshold at every t <= t_hi
    t_hi = -1
    st0 = states[0]  # the t-only threshold reads no state: no per-call slices (D192)
    lazy = lazy_ratio > 1.0
    t0 = float(t)
    k_next = 0
    truncated = False
    best = empirical_best(means)
    reads_all_z = rule == RULE_TCI or rule < 0
    while True:
        if n_uncert > 0:  # exact guard: it reads every challenger's statistic
            _refresh_z(Z, thr_pair, ok, best, plug_in, counts, means, variances)
            forced = degenerate_arm(counts, variances, Z, best)
        else:
            forced = -1
        # int(): the index typed int64, not as the literal 0, so one compiled callee (D225)
        if not lazy or t >= lazy_check_time(t0, lazy_ratio, int(k_next)):
            if lazy:
                k_next = lazy_next_index(t, t0, lazy_ratio, int(k_next))
            stop = forced < 0
            thr_t = math.nan
            have_thr_t = False
            for a in range(K):  # glr_stop_check, in the same order, with cached values
                if not stop:
                    break
                if a == best:
                    continue
                if not ok[a]:
                    mb = means[best]
                    sb = variances[best]
                    nb = counts[best]
                    if bounded and t_only and n_uncert == 0:
                        # an upper bound of Z_a at most thr_lo decides: not (Z_a > c(t)) (D210);
                        # a lower bound above thr_hi (an upper bound of c(t) while t <= t_hi)
                        # decides: Z_a > c(t) (D218). Rational enclosure first (D216), then
                        # the logarithmic one, then Z_a.
                        if not rat_ok[a]:
                            rlo[a], rhi[a] = tc_unknown_rational_bounds(
                                mb, sb, nb, means[a], variances[a], counts[a]
                            )
                            rat_ok[a] = True
                        if rhi[a] <= thr_lo:
                            stop = False
                            break
                        if t <= t_hi and rlo[a] > thr_hi:
                            continue
                        if not bnd_ok[a]:
                            zlo[a], zhi[a] = tc_unknown_bounds(
                                mb, sb, nb, means[a], variances[a], counts[a]
                            )
                            bnd_ok[a] = True
                        if zhi[a] <= thr_lo:
                            stop = False
                            break
                        if t <= t_hi and zlo[a] > thr_hi:
                            continue
                    Z[a] = pair_stat(plug_in, mb, sb, nb, means[a], variances[a], counts[a])
                    thr_pair[a] = math.nan
                    ok[a] = True
                z = Z[a]
                if t_only:
                    if not (z > thr_lo):  # then not (z > c(t)) either
                        stop = False
                        break
                    if t > t_hi:  # upper bound c(t_hi) for the times up to t_hi (D192)
                        t_hi = t + t // 16 + 1
                        c_hi = pair_threshold_kernel(
                            thr_code,
                            thr_fparams,
                            thr_table,
                            float(t_hi),
                            counts[best],
                            counts[a],
                            st0,
                            st0,
                        )
                        thr_hi = c_hi + 1e-9 * (1.0 + abs(c_hi))
                        if not math.isfinite(thr_hi):
                            thr_hi = math.inf
                    if z > thr_hi:  # then z > c(t) too
                        continue
                    if not have_thr_t:
                        thr_t = pair_threshold_kernel(
                            thr_code,
                            thr_fparams,
                            thr_table,
                            float(t),
                            counts[best],
                            counts[a],
                            st0,
                            st0,
                        )
                        have_thr_t = True
                        if math.isfinite(thr_t):
                            thr_lo = thr_t - 1e-9 * (1.0 + abs(thr_t))
                    c = thr_t
                else:
                    if math.isnan(thr_pair[a]):
                        thr_pair[a] = pair_threshold_kernel(
                            thr_code,
                            thr_fparams,
                            thr_table,
                            float(t),
                            counts[best],
                            counts[a],
                            states[best],
                            states[a],
                        )
                    c = thr_pair[a]
                if not (z > c):
                    stop = False
                    break
            if stop:
                break
        if t >= max_samples:
            truncated = True
            break
        if forced >= 0:
            arm = forced
        elif rule == RULE_UNIFORM:
            arm = t % K
        elif rule == RULE_TCI:
            if rng.random() < params[P_BETA]:
                arm = best
            else:
                # the TCI challenger argmin_{a != best} Z_a + log N_a, first index on ties
                # (_step_tci). v_a = Z_a + log N_a lies in [zlo_a + log N_a, zhi_a +
                # log N_a] (rounding is monotone) or is exact where ok[a]. a* has the smallest
                # upper end v*; an arm whose lower end exceeds v* cannot attain the minimum;
                # when every other arm is such, a* is the challenger, else the exact v_a of the
                # remaining arms decide in index order (decision D210).
                mb = means[best]
                sb = variances[best]
                nb = counts[best]
                use_bounds = bounded and n_uncert == 0
                for a in range(K):
                    if a != best and not log_ok[a]:
                        log_counts[a] = math.log(counts[a])
                        log_ok[a] = True
                arm = -1
                if use_bounds:
                    # the same test on the tightest enclosure at hand, rational where there
                    # is no other: when it certifies a*, no logarithm is taken (D217)
                    v_star = math.inf
                    for a in range(K):
                        if a == best:
                            continue
                        if ok[a]:
                            hi = Z[a]
                        elif bnd_ok[a]:
                            hi = zhi[a]
                        else:
                            if not rat_ok[a]:
                                rlo[a], rhi[a] = tc_unknown_rational_bounds(
                                    mb, sb, nb, means[a], variances[a], counts[a]
                                )
                                rat_ok[a] = True
                            hi = rhi[a]
                        hi += log_counts[a]
                        if hi < v_star or arm < 0:
                            v_star = hi
                            arm = a
                    # the tightest lower end at hand, written out here and below: an inlined
                    # helper for it made this loop 1.2x (K = 5) to 2x (K = 20) slower
                    for a in range(K):
                        if a != best and a != arm:
                            lo = Z[a] if ok[a] else (zlo[a] if bnd_ok[a] else rlo[a])
                            if not (lo + log_counts[a] > v_star):
                                arm = -1
                                break
                if arm < 0:  # not certified by the enclosures above
                    # v_star, an upper end of some v_a, bounds min v_a: an arm whose rational
                    # lower end exceeds it cannot attain the minimum, and keeps its rational
                    # enclosure (no logarithms, decision D231)
                    v_cut = v_star if use_bounds else math.inf
                    all_exact = True
                    v_star = math.inf
                    for a in range(K):
                        if a == best:
                            continue
                        if not ok[a] and not use_bounds:
                            Z[a] = pair_stat(plug_in, mb, sb, nb, means[a], variances[a], counts[a])
                            thr_pair[a] = math.nan
                            ok[a] = True
                        if ok[a]:
                            hi = Z[a] + log_counts[a]
                        else:
                            all_exact = False
                            if not bnd_ok[a]:
                                if rlo[a] + log_counts[a] > v_cut:
                                    continue
                                zlo[a], zhi[a] = tc_unknown_bounds(
                                    mb, sb, nb, means[a], variances[a], counts[a]
                                )
                                bnd_ok[a] = True
                            hi = zhi[a] + log_counts[a]
                        if hi < v_star or arm < 0:
                            v_star = hi
                            arm = a
                    if not all_exact:  # certify a*, else decide among the candidates
                        unique = True
                        for a in range(K):
                            if a != best and a != arm:
                                lo = Z[a] if ok[a] else (zlo[a] if bnd_ok[a] else rlo[a])
                                if not (lo + log_counts[a] > v_star):
                                    unique = False
                                    break
                        if not unique:
                            arm = -1
                            vmin = math.inf
                            for a in range(K):
                                if a == best:
                                    continue
                                lo = Z[a] if ok[a] else (zlo[a] if bnd_ok[a] else rlo[a])
                                lo += log_counts[a]
                                if not (lo <= v_star):  # v_a >= lo > v* >= min v
                                    continue
                                if not ok[a]:
                                    Z[a] = tc_unknown(mb, sb, nb, means[a], variances[a], counts[a])
                                    thr_pair[a] = math.nan
                                    ok[a] = True
                                v = Z[a] + log_counts[a]
                                if v < vmin or arm < 0:
                                    vmin = v
                                    arm = a
        elif rule == RULE_FIXED:
            arm = c_tracking(ws[W_SUMW], counts, wfix)
        else:
            if reads_all_z:
                _refresh_z(Z, thr_pair, ok, best, plug_in, counts, means, variances)
            arm = step(
                rule, t, counts, means, variances, best, Z, plug_in, params, ws, scal, wfix, rng
            )
        # draw_observe, with the threshold-state update in this loop (see welford)
        was_certified = certified_arm(means[arm], variances[arm])
        n = welford(arm, draw(arm, mu, sd, rng), counts, means, m2, variances)
        if stateful:
            update_state(thr_code, thr_fparams, states[arm], n, means[arm], variances[arm])
        now_certified = certified_arm(means[arm], variances[arm])
        if now_certified and not was_certified:
            n_uncert -= 1
        elif was_certified and not now_certified:
            n_uncert += 1
        log_ok[arm] = False
        t += 1
        if n_uncert == 0 and arm != best:  # finite means: argmax changes only at arm
            ma = means[arm]
            mb = means[best]
            new_best = arm if (ma > mb or (ma == mb and arm < best)) else best
        else:
            new_best = empirical_best(means)
        if arm == best or new_best != best:
            for a in range(K):
                ok[a] = False
                bnd_ok[a] = False
                rat_ok[a] = False
        else:
            ok[arm] = False
            bnd_ok[arm] = False
            rat_ok[arm] = False
        best = new_best
    rec = 0
    for a in range(1, K):
        if means[a] > means[rec]:
            rec = a
    return t, rec, counts, truncated


@njit(cache=True)
def certified_arm(mean, variance):
    """``True`` when an arm's statistics cannot make the GLR loop's statistics degenerate
    (decision D191): ``1e-100 <= variance <= 1e100`` and ``|mean| <= 1e50``. When every arm
    is certified (counts between 1 and ``2^63``), every ``Z_a(t)`` and ``Z^EV_a(t)`` is
    finite, so :func:`degenerate_arm` returns ``-1`` without reading them."""
    return 1e-100 <= variance <= 1e100 and abs(mean) <= 1e50


@njit(cache=True)
def _refresh_z(Z, thr_pair, ok, best, plug_in, counts, means, variances):
    """Compute the statistic of every challenger whose cached value is invalid (the
    degeneracy guard and a registered step kernel read all of them)."""
    for a in range(Z.shape[0]):
        if a != best and not ok[a]:
            Z[a] = glr_stat(a, best, plug_in, counts, means, variances)
            thr_pair[a] = math.nan
            ok[a] = True


@njit(cache=True)
def glr_stat(a, best, plug_in, counts, means, variances):
    """``Z_a(t)`` (or ``Z^EV_a(t)``) against ``best``: the entry ``a`` of
    :func:`baiuv.model.glr_kernels.glr_stats_into`, computed alone."""
    return pair_stat(
        plug_in, means[best], variances[best], counts[best], means[a], variances[a], counts[a]
    )


# The helpers below take scalars only: the GLR loop calls them at every sample, and an
# inlined helper that binds arrays leaves reference-count updates (atomic) in the loop that
# numba's pruning does not remove in a function of this size, while a call that is not
# inlined costs more than the work (decision D210).
@njit(cache=True, inline="always")
def pair_stat(plug_in, mb, sb, nb, ma, sa, na):
    """``Z^EV`` (``tc_known``) or ``Z`` (``tc_unknown``) of a challenger with statistics
    ``(ma, sa, na)`` against the empirical best arm ``(mb, sb, nb)``."""
    if plug_in:
        return tc_known(mb, sb, nb, ma, sa, na)
    return tc_unknown(mb, sb, nb, ma, sa, na)


@njit(cache=True)
def fhn_eliminate(n, means, pair_m2, pair_m2_n0, active, log_term, use_n0):
    """Elimination step of FHN2 (``use_n0=False``) / FHN1 (``use_n0=True``), decision D45.

    With ``S_{b,a}`` the ``1/(n-1)`` empirical variance of the paired differences
    ``X_{s,b} - X_{s,a}`` (``s <= n``, or ``s <= n0`` for FHN1), ``t_{b,a} = n / S_{b,a}``
    and ``g(x) = sqrt((x + 1) (log_term + log(x + 1)))`` with
    ``log_term = 2 log((K-1)/(2 delta))``, an active arm ``b`` is eliminated when
    ``t_{b,a} (mean_b - mean_a) < -g(t_{b,a})`` for some other active arm ``a``. All
    eliminations of one step are decided on the same active set. Returns the number of
    eliminated arms (``active`` is updated in place).
    """
    K = means.shape[0]
    out = np.zeros(K, dtype=np.bool_)
    for b in range(K):
        if not active[b]:
            continue
        for a in range(K):
            if a == b or not active[a]:
                continue
            if use_n0:
                S = pair_m2_n0[b, a]
            else:
                S = pair_m2[b, a] / (n - 1.0)
            if not (S > 0.0):
                continue
            tba = n / S
            g = math.sqrt((tba + 1.0) * (log_term + math.log1p(tba)))
            if tba * (means[b] - means[a]) < -g:
                out[b] = True
                break
    n_out = 0
    for b in range(K):
        if out[b]:
            active[b] = False
            n_out += 1
    return n_out


@njit(cache=True)
def run_fhn(mu, sigma2, n0, log_term, use_n0, rng, max_samples):
    """One run of FHN2 / FHN1 (Algorithm ``algo:fhn2``; Fan, Hong and Nelson, 2016).

    ``n0`` observations of every arm, then rounds: elimination step
    (:func:`fhn_eliminate`), and while more than one arm survives one new observation of
    each surviving arm. Paired-difference statistics are updated with Welford's algorithm.

    Returns ``(tau, recommendation, counts, truncated)`` as :func:`run_glr`.
    """
    K = mu.shape[0]
    sd = np.sqrt(sigma2)
    counts = np.zeros(K, dtype=np.int64)
    means = np.zeros(K)
    pair_mean = np.zeros((K, K))
    pair_m2 = np.zeros((K, K))
    pair_m2_n0 = np.zeros((K, K))
    active = np.ones(K, dtype=np.bool_)
    x = np.zeros(K)
    n = 0
    t = 0
    n_active = K
    truncated = False
    while True:
        if n >= n0:
            if n == n0:
                for a in range(K):
                    for b in range(K):
                        pair_m2_n0[a, b] = pair_m2[a, b] / (n0 - 1.0)
            # int(): the round typed int64, not as the literal 0 (D225)
            n_active -= fhn_eliminate(int(n), means, pair_m2, pair_m2_n0, active, log_term, use_n0)
            if n_active <= 1:
                break
        if t + n_active > max_samples:
            truncated = True
            break
        # one round: one observation of every active arm
        n += 1
        for a in range(K):
            if active[a]:
                x[a] = mu[a] + sd[a] * rng.standard_normal()
                counts[a] += 1
                means[a] += (x[a] - means[a]) / n
                t += 1
        for a in range(K):
            if not active[a]:
                continue
            for b in range(a + 1, K):
                if not active[b]:
                    continue
                d = x[a] - x[b]
                delta = d - pair_mean[a, b]
                pair_mean[a, b] += delta / n
                pair_m2[a, b] += delta * (d - pair_mean[a, b])
                pair_mean[b, a] = -pair_mean[a, b]
                pair_m2[b, a] = pair_m2[a, b]
    rec = -1
    for a in range(K):
        if active[a] and (rec < 0 or means[a] > means[rec]):
            rec = a
    return t, rec, counts, truncated
