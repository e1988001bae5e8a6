"""DKM and EV-DKM (Degenne, Koolen and Menard, 2019; decision D43): an AdaHedge learner on
the simplex against the best response, fed with optimistic gains, and C-tracking of its
weights."""

from __future__ import annotations

import math

from numba import njit

from baiuv.registry import P_HEDGE_DELTA0, Workspace

from .alternative import closest_alternative_work, divergence
from .tracking import W_SUMW, c_tracking, init_tracking

# rows of DKM's ws (its workspace, WORKSPACE; :func:`init_dkm`)
DKM_SUMW = W_SUMW  # cumulative tracked weights (C-tracking, starting at the counts)
DKM_LOSS = 1  # AdaHedge cumulative losses
DKM_W = 2  # AdaHedge weights of the step
DKM_LAM = 3  # the best response's alternative means
DKM_GAINS = 4  # optimistic gains
DKM_LO = 5  # certified lower bounds of the unknown-variance costs (decision D214)
DKM_HI = 6  # their upper bounds
# its scal
S_GAP = 0  # AdaHedge cumulative mixability gap (starting at the hedge_delta0 parameter)
#: DKM's workspace: the rows and the scalar above.
WORKSPACE = Workspace(rows=DKM_HI + 1, scalars=S_GAP + 1)


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
            if lam_vec[a] == means[a] and bonus_wins(means[a], s2, v):
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
def bonus_wins(m, s2, v):
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
def step_dkm(counts, means, variances, best, t, plug_in, ws, scal):
    """DKM / EV-DKM: one AdaHedge learner on the simplex against the best response, fed
    with optimistic gains, and C-tracking of the learner's cumulative weights."""
    K = counts.shape[0]
    w = ws[DKM_W]
    eta, pre = _hedge_weights_mix(ws[DKM_LOSS], scal[S_GAP], w)
    k, lam, _ = closest_alternative_work(means, variances, w, best, plug_in, ws[DKM_LO], ws[DKM_HI])
    lam_vec = ws[DKM_LAM]
    for a in range(K):
        lam_vec[a] = means[a]
    lam_vec[best] = lam
    lam_vec[k] = lam
    gains = ws[DKM_GAINS]
    dkm_gains(counts, means, variances, lam_vec, t, plug_in, gains)
    for a in range(K):
        gains[a] = -gains[a]
    scal[S_GAP] = _hedge_update_pre(ws[DKM_LOSS], scal[S_GAP], w, eta, gains, pre)
    return c_tracking(ws[DKM_SUMW], counts, w)


@njit(cache=True)
def init_dkm(ws, scal, counts, params):
    """DKM's workspace (zero, of the size :data:`WORKSPACE`) at the start of the sampling:
    the C-tracking sums at the counts, the AdaHedge gap budget at ``params[P_HEDGE_DELTA0]``."""
    init_tracking(ws, scal, counts, params)
    scal[S_GAP] = params[P_HEDGE_DELTA0]
