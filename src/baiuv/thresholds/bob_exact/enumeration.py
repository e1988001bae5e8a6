"""The general enumeration: stationary points of each pair of pieces (1-D roots, the
closed-form EV turning point, interval branch and bound), split end points and
feasible completions (proof: ``docs/bob-exact-proof.md``, Steps 4-5)."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from baiuv.thresholds.bob_exact.arms import (
    _INF,
    C1,
    C2,
    EV_A,
    EV_C1,
    NO_PIECE,
    B,
    _dir,
    _g,
    _h,
    _h_any,
    _hinv,
    _piece,
    _rate,
    _y_of_lam,
)

# Branch and bound: stack size, leaf width (relative to the piece pair's lambda range).
_STACK = 128
_LEAF = 1e-7


# ----------------------------------------------------------------------------------------
# Candidates
# ----------------------------------------------------------------------------------------
@njit(cache=True)
def _complete(y1, arm1, arm2, e2, ev):
    """Fix ``y1`` (lowered if it alone exceeds the budget); arm 2 takes the rest of the KL
    budget. Returns a feasible ``(value, y1, y2)``."""
    rest = (e2 - arm1.n * _h_any(y1, arm1)) / arm2.n
    if rest < 0.0:  # y1 alone exceeds the budget: arm 1 takes all of it
        y1 = _hinv(e2 / arm1.n, arm1)
        rest = 0.0
    y2 = _hinv(rest, arm2)
    val = 0.5 * (arm1.n * _g(y1, ev) + arm2.n * _g(y2, ev))
    return val, y1, y2


@njit(cache=True)
def _pair_candidate(y1, y2, lam, pc1, pc2, e2, ev):
    """Feasible completion of an approximate stationary pair on the pieces ``pc1, pc2``
    (:func:`_y_at`): keep the arm whose ``y(lambda)`` is better conditioned, give the other
    the rest of the KL budget."""
    k1, arm1 = pc1[0], pc1[1]
    k2, arm2 = pc2[0], pc2[1]
    kap1 = abs(_dy_dlam(y1, lam, k1, arm1)) / max(y1, 1e-300)
    kap2 = abs(_dy_dlam(y2, lam, k2, arm2)) / max(y2, 1e-300)
    if kap1 <= kap2:
        return _complete(y1, arm1, arm2, e2, ev)
    v, b2, b1 = _complete(y2, arm2, arm1, e2, ev)
    return v, b1, b2


@njit(cache=True)
def _split_bound(b1, arm1, arm2, e, ev):
    """Upper bound on the value of the split ``(b1, e - b1)``: ``h(y) >= ln(1 + y)``."""
    if not ev:
        return e
    u1 = min(arm1.Y, math.expm1(2.0 * b1 / arm1.n))
    u2 = min(arm2.Y, math.expm1(2.0 * (e - b1) / arm2.n))
    return 0.5 * (arm1.n * u1 + arm2.n * u2)


@njit(cache=True)
def _split_candidate(b1, arm1, arm2, e, ev):
    """Budget split ``b1`` for arm 1 and ``e - b1`` for arm 2 (each inverted exactly)."""
    y1 = _hinv(2.0 * b1 / arm1.n, arm1)
    y2 = _hinv(2.0 * (e - b1) / arm2.n, arm2)
    val = 0.5 * (arm1.n * _g(y1, ev) + arm2.n * _g(y2, ev))
    return val, y1, y2


@njit(cache=True)
def _y_at(lam, pc):
    """``y(lambda)`` on the piece ``pc = (kind, arm, ylo, yhi, region)`` (a piece of
    :func:`.arms._piece` with its arm)."""
    return _y_of_lam(lam, pc[0], pc[1], pc[2], pc[3])


@njit(cache=True)
def _eval_lam(lam, pc1, pc2):
    """``(y1, y2, N_1 h(y1), N_2 h(y2))`` at ``lambda`` on the pieces ``pc1, pc2``."""
    y1 = _y_at(lam, pc1)
    y2 = _y_at(lam, pc2)
    arm1 = pc1[1]
    arm2 = pc2[1]
    c1 = arm1.n * _h(y1, arm1, pc1[4])
    c2 = arm2.n * _h(y2, arm2, pc2[4])
    return y1, y2, c1, c2


@njit(cache=True)
def _dy_dlam(y, lam, kind, arm):
    """Derivative of the inverse rate ``y(lambda)`` on a strictly monotone piece."""
    c = arm.c
    if kind == B:
        return -1.0 / (lam * lam * arm.d)
    if kind == C1 or kind == C2:
        dr = lam * (2.0 / y - 1.0 / (1.0 + y) - 1.0 / (y - c))
        return 1.0 / dr if dr != 0.0 else _INF
    if kind == EV_A:
        return 1.0
    den = 2.0 * y - lam
    return (y - c) / den if den != 0.0 else _INF


@njit(cache=True)
def _eval_fd(lam, pc1, pc2, e2):
    """``F(lambda)`` and ``F'(lambda) = sum_c N_c g'(y_c) y_c'(lambda) / lambda`` on the
    pieces ``pc1, pc2``."""
    k1, arm1, lo1, hi1, r1 = pc1
    k2, arm2, lo2, hi2, r2 = pc2
    y1 = _y_of_lam(lam, k1, arm1, lo1, hi1)
    y2 = _y_of_lam(lam, k2, arm2, lo2, hi2)
    f = arm1.n * _h(y1, arm1, r1) + arm2.n * _h(y2, arm2, r2) - e2
    g1 = 1.0 if k1 >= EV_A else 1.0 / (1.0 + y1)
    g2 = 1.0 if k2 >= EV_A else 1.0 / (1.0 + y2)
    d1 = _dy_dlam(y1, lam, k1, arm1) if lo1 < y1 < hi1 else 0.0
    d2 = _dy_dlam(y2, lam, k2, arm2) if lo2 < y2 < hi2 else 0.0
    return f, (arm1.n * g1 * d1 + arm2.n * g2 * d2) / lam


@njit(cache=True)
def _root(bracket, pc1, pc2, e2):
    """Root of ``F`` (:func:`_eval_fd` on the pieces ``pc1, pc2``) on ``[la, lb]`` given
    ``bracket = (la, fa, lb, fb)``, ``fa * fb <= 0``: Newton safeguarded by the
    bracket. When a Newton step leaves the bracket, a Newton step from the bracket end on
    the other side of the root is tried (for a convex or concave ``F`` one of the two sides
    converges monotonically), then bisection."""
    la, fa, lb, fb = bracket
    if fa == 0.0:
        return la
    if fb == 0.0:
        return lb
    da = math.nan
    db = math.nan
    lam = (la * fb - lb * fa) / (fb - fa)
    if not (la < lam < lb):
        lam = 0.5 * (la + lb)
    for _ in range(200):
        f, df = _eval_fd(lam, pc1, pc2, e2)
        if f == 0.0:
            return lam
        if (f > 0.0) == (fa > 0.0):
            la, fa, da = lam, f, df
            other = 1
        else:
            lb, fb, db = lam, f, df
            other = 0
        if lb - la <= 4e-16 * max(abs(la), abs(lb)):
            return lam
        step = f / df if df != 0.0 and math.isfinite(df) else _INF
        nxt = lam - step
        if la < nxt < lb:
            if abs(step) <= 1e-15 * abs(lam):
                return nxt
        else:
            # Newton from the opposite end of the bracket
            if other == 0:
                if math.isnan(da):
                    _, da = _eval_fd(la, pc1, pc2, e2)
                nxt = la - fa / da if da != 0.0 and math.isfinite(da) else _INF
            else:
                if math.isnan(db):
                    _, db = _eval_fd(lb, pc1, pc2, e2)
                nxt = lb - fb / db if db != 0.0 and math.isfinite(db) else _INF
            if not (la < nxt < lb):
                nxt = 0.5 * (la + lb)
        lam = nxt
    return lam


@njit(cache=True)
def _solve_pair(p1, p2, arm1, arm2, e, ev, best, bb):
    """Best stationary point of the pair of pieces ``(p1, p2)`` (or ``best`` unchanged).

    ``bb=False``: every pair except those needing branch and bound; ``bb=True``: only those.
    """
    k1, lo1, hi1, r1 = _piece(arm1, p1, ev)
    k2, lo2, hi2, r2 = _piece(arm2, p2, ev)
    if k1 == NO_PIECE or k2 == NO_PIECE or not (hi1 > lo1) or not (hi2 > lo2):
        return best
    e2 = 2.0 * e
    s1 = _dir(k1)
    s2 = _dir(k2)
    special = (k1 == EV_A and k2 == EV_C1) or (k1 == EV_C1 and k2 == EV_A)
    needs_bb = s1 * s2 < 0 and not special
    if needs_bb != bb:
        return best
    pc1 = (k1, arm1, lo1, hi1, r1)
    pc2 = (k2, arm2, lo2, hi2, r2)
    if s1 == 0 and s2 == 0:
        return best  # V affine on the pair: its maximum is at a piece boundary
    if s1 == 0 or s2 == 0:
        # Constant-rate piece: the other arm sits where its rate equals that constant.
        if s1 == 0:
            lam0 = _rate(lo1, k1, arm1)
            ka, arma, loa, hia = k2, arm2, lo2, hi2
            armb, lob, hib = arm1, lo1, hi1
        else:
            lam0 = _rate(lo2, k2, arm2)
            ka, arma, loa, hia = k1, arm1, lo1, hi1
            armb, lob, hib = arm2, lo2, hi2
        ra_lo = _rate(loa, ka, arma)
        ra_hi = _rate(hia, ka, arma)
        if not (min(ra_lo, ra_hi) <= lam0 <= max(ra_lo, ra_hi)):
            return best
        ya = _y_of_lam(lam0, ka, arma, loa, hia)
        val, ya2, yb = _complete(ya, arma, armb, e2, ev)
        if not (lob <= yb <= hib):
            return best
        if val > best[0]:
            if s1 == 0:
                return (val, yb, ya2)
            return (val, ya2, yb)
        return best
    # Both strictly monotone: lambda range of the pair.
    la = max(
        min(_rate(lo1, k1, arm1), _rate(hi1, k1, arm1)),
        min(_rate(lo2, k2, arm2), _rate(hi2, k2, arm2)),
    )
    lb = min(
        max(_rate(lo1, k1, arm1), _rate(hi1, k1, arm1)),
        max(_rate(lo2, k2, arm2), _rate(hi2, k2, arm2)),
    )
    if not (lb > la):
        return best
    if s1 > 0 and s2 > 0:
        return best  # every stationary point is a strict local minimum of V
    ya1, ya2, ca1, ca2 = _eval_lam(la, pc1, pc2)
    yb1, yb2, cb1, cb2 = _eval_lam(lb, pc1, pc2)
    if s1 < 0 and s2 < 0:
        fa = ca1 + ca2 - e2
        fb = cb1 + cb2 - e2
        if fa < 0.0 or fb > 0.0:
            return best
        lam = _root((la, fa, lb, fb), pc1, pc2, e2)
        y1 = _y_at(lam, pc1)
        y2 = _y_at(lam, pc2)
        cand = _pair_candidate(y1, y2, lam, pc1, pc2, e2, ev)
        if cand[0] > best[0]:
            return cand
        return best
    if (k1 == EV_A and k2 == EV_C1) or (k1 == EV_C1 and k2 == EV_A):
        # EV, region A (convex) against region C1 (concave). Along the pair the value has
        # derivative (N_A + N_C y_C'(lambda))/2 with y_C' = (1 - t/S)/2, t = lambda - 2C,
        # S = sqrt(t^2 - 4C^2): t/S decreases, so the value (hence the cost, whose
        # derivative is value'/lambda) decreases then increases, turning at
        # lambda_m = 2C (1 + k/sqrt(k^2 - 1)), k = 1 + 2 N_A/N_C. Local maxima of V need
        # cost' > 0 (V'' = (b_1' + b_2')/(b_1' b_2') with b_1' b_2' < 0): the only
        # candidate is the root of the increasing branch [max(la, lambda_m), lb].
        if k1 == EV_A:
            na, nc, cc = arm1.n, arm2.n, arm2.c
        else:
            na, nc, cc = arm2.n, arm1.n, arm1.c
        kk = 1.0 + 2.0 * na / nc
        lam_m = 2.0 * cc * (1.0 + kk / math.sqrt(kk * kk - 1.0))
        if lam_m >= lb:
            return best
        if lam_m > la:
            la = lam_m
            ya1, ya2, ca1, ca2 = _eval_lam(la, pc1, pc2)
        fa = ca1 + ca2 - e2
        fb = cb1 + cb2 - e2
        if fa > 0.0 or fb < 0.0:
            return best
        lam = _root((la, fa, lb, fb), pc1, pc2, e2)
        y1 = _y_at(lam, pc1)
        y2 = _y_at(lam, pc2)
        cand = _pair_candidate(y1, y2, lam, pc1, pc2, e2, ev)
        if cand[0] > best[0]:
            return cand
        return best
    # Other mixed pairs: branch and bound on [la, lb].
    stack_p = np.empty(_STACK)
    stack_q = np.empty(_STACK)
    top = 0
    stack_p[0] = la
    stack_q[0] = lb
    top = 1
    width_min = _LEAF * (lb - la)
    n1 = arm1.n
    n2 = arm2.n
    while top > 0:
        top -= 1
        p = stack_p[top]
        q = stack_q[top]
        yp1, yp2, cp1, cp2 = _eval_lam(p, pc1, pc2)
        yq1, yq2, cq1, cq2 = _eval_lam(q, pc1, pc2)
        if s1 > 0:  # arm 1 cost increases with lambda, arm 2 cost decreases
            f_lo = cp1 + cq2 - e2
            f_hi = cq1 + cp2 - e2
            v_up = 0.5 * (n1 * _g(yq1, ev) + n2 * _g(yp2, ev))
        else:
            f_lo = cq1 + cp2 - e2
            f_hi = cp1 + cq2 - e2
            v_up = 0.5 * (n1 * _g(yp1, ev) + n2 * _g(yq2, ev))
        if f_lo > 0.0 or f_hi < 0.0 or v_up <= best[0]:
            continue
        fp = cp1 + cp2 - e2
        fq = cq1 + cq2 - e2
        if q - p <= width_min or top >= _STACK - 2:
            if fp * fq <= 0.0:
                lam = _root((p, fp, q, fq), pc1, pc2, e2)
            else:
                lam = 0.5 * (p + q)
            y1 = _y_at(lam, pc1)
            y2 = _y_at(lam, pc2)
            cand = _pair_candidate(y1, y2, lam, pc1, pc2, e2, ev)
            if cand[0] > best[0]:
                best = cand
            continue
        m = 0.5 * (p + q)
        stack_p[top] = p
        stack_q[top] = m
        stack_p[top + 1] = m
        stack_q[top + 1] = q
        top += 2
    return best
