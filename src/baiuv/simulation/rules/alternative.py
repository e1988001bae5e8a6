"""The best response of the ``lambda``-player and the per-arm divergence, shared by DKM and
FWS (Section ``ssec:instantiating_wrappers``)."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from baiuv.model.transport import (
    lambda_unknown,
    tc_known,
    tc_unknown_bounds,
    tc_unknown_rational_bounds,
)


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
    rule out arms without solving their cubics (D214: DKM and FWS solve the costs only where
    they can decide; D216: the rational enclosure ahead of the logarithmic one): the cost
    ``v*`` of the arm with the smallest upper end of its rational enclosure
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
