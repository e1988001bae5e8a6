"""One arm of the BoB / EV-BoB program: accurate elementary helpers, the :class:`Arm`
record, its regions and pieces, the minimal KL cost ``h`` and its inverse, the rates
(proof: ``docs/bob-exact-proof.md``, Steps 1-3)."""

from __future__ import annotations

import math
from collections import namedtuple

from numba import njit

_INF = math.inf


# ----------------------------------------------------------------------------------------
# Accurate elementary helpers
# ----------------------------------------------------------------------------------------
@njit(cache=True)
def _phi(w):
    """``w - 1 - ln w`` for ``w > 0``, accurate near ``w = 1``.

    For ``|u| < 1e-2``, ``u = w - 1``: the series ``u^2/2 - u^3/3 + ... + u^9/9`` (truncation
    error below ``|u|^10/10``); otherwise ``u - ln w`` with ``math.log`` of the exact
    argument ``w`` (``log1p(u)`` costs about twice as much; ``u`` is exact for
    ``w in [1/2, 2]`` (Sterbenz), and for ``w < 1/2`` there is no cancellation).
    """
    u = w - 1.0
    if abs(u) < 1e-2:
        s = 0.0
        for k in range(9, 1, -1):
            s = u * s + (1.0 if k % 2 == 0 else -1.0) / k
        return u * u * s
    return u - math.log(w)


@njit(cache=True)
def _em1m(v):
    """``exp(v) - 1 - v``, accurate for small ``|v|``."""
    if abs(v) < 1e-2:
        # v^2/2! + v^3/3! + ... + v^9/9! (truncation error < |v|^10 / 10!)
        s = 0.0
        for k in range(9, 1, -1):
            s = (s * v + 1.0) / k
        return v * v * s
    return math.expm1(v) - v


@njit(cache=True)
def _solve_w(s):
    """Root ``w in (0, 1]`` of ``w - 1 - ln w = s`` for ``s >= 0`` (``w = W̄_0(1 + s)``).

    Halley iteration on ``l = ln w`` for ``phi(l) = e^l - 1 - l - s`` (convex, decreasing
    on ``l <= 0``), safeguarded by bisection on the bracket ``[-(sqrt(2s) + s), 0]``
    (``phi >= 0`` at the left end, tested), from the asymptotic start
    ``-(sqrt(2s) + s/3)`` (small ``s``) or ``-(1 + s) + e^{-(1+s)}`` (large ``s``); stops
    after a step below ``1e-6 |l|`` (at most 3 iterations measured on ``s`` in
    ``[1e-12, 200]``).
    """
    if s <= 0.0:
        return 1.0
    lo = -(math.sqrt(2.0 * s) + s)
    hi = 0.0
    if s < 3.0:
        # series of ln w in sigma = sqrt(2s) (branch-point expansion of W_0), to sigma^7:
        # error below 1e-7 relative for s < 0.12, so one Halley step usually suffices
        sg = math.sqrt(2.0 * s)
        p = 1.0 / 4320.0 - sg * (1.0 / 17010.0 + sg * (139.0 / 5443200.0))
        p = 1.0 / 270.0 + sg * p
        p = 1.0 / 36.0 + sg * p
        p = 1.0 / 6.0 + sg * p
        ell = -sg * (1.0 + sg * p)
    else:
        ell = -(1.0 + s) + math.exp(-(1.0 + s))
    for _ in range(100):
        em = math.expm1(ell)
        if abs(ell) < 1e-2:
            phi = _em1m(ell) - s
        else:
            phi = (em - ell) - s
        if phi > 0.0:
            lo = ell
        elif phi < 0.0:
            hi = ell
        else:
            break
        den = 2.0 * em * em - phi * (em + 1.0)
        step = 2.0 * phi * em / den if den != 0.0 else 0.0
        nxt = ell - step
        if abs(step) <= 1e-6 * abs(ell):
            # cubic convergence: the error after this step is far below rounding (stopping
            # here also avoids chasing rounding noise of phi near the root)
            if ell > -0.5 and lo <= nxt <= hi and abs(step) <= 1e-4:
                # exp(ell - step) from em = expm1(ell) (1 + em >= 0.6, no cancellation):
                # Taylor of exp(-step) to step^3, remainder below step^4/24 < 5e-18
                return (1.0 + em) * (1.0 - step * (1.0 - step * (0.5 - step / 6.0)))
            ell = min(max(nxt, lo), hi)
            break
        if not (lo < nxt < hi):
            nxt = 0.5 * (lo + hi)
        ell = nxt
    return math.exp(ell)


@njit(cache=True)
def _l1p_shift(w0, dw, c):
    """``ln(1 + c/(w0 + dw)) - ln(1 + c/w0)`` for ``|dw| <= 1e-4 w0``, ``w0, c > 0``, without
    logarithm: ``log1p(a) - log1p(b)``, ``a = dw/(w0 + c)``, ``b = dw/w0``, is
    ``(a - b)(1 - (a + b)/2 + (a^2 + ab + b^2)/3)`` up to ``|a - b| m^3/(1 - m)``,
    ``m = max(|a|, |b|) <= 1e-4`` (``|a^k - b^k| <= k |a - b| m^(k-1)``), i.e. below
    ``1e-16`` of the result's size ``c/(w + c)``; ``a - b = -a c/w0`` has no cancellation."""
    iw = 1.0 / w0
    a = dw / (w0 + c)
    b = dw * iw
    return -a * c * iw * (1.0 - 0.5 * (a + b) + (a * a + a * b + b * b) * (1.0 / 3.0))


@njit(cache=True)
def _solve_w_l1p(s, c, wlo, whi):
    """Root ``w`` of ``w - 1 - ln w = s`` (``s > 0``) in the bracket ``[wlo, whi]``
    (``whi < 1``, given by the caller), and ``ln(1 + c/w)``: ``(w, ln(1 + c/w))``.

    Halley iteration on ``w`` itself (``f = phi(w) - s``, ``f' = (w - 1)/w``,
    ``f'' = 1/w^2``; :func:`_phi`), safeguarded by bisection of the bracket, from the
    branch-point series ``w = 1 - sigma + sigma^2/3 - sigma^3/36 - sigma^4/270 -
    sigma^5/4320 + sigma^6/17010 + 139 sigma^7/5443200 + sigma^8/204120``,
    ``sigma = sqrt(2 s)`` (series reversion of ``u - ln(1 + u) = sigma^2/2``), stopped after
    a step below ``1e-6 |w - 1|`` (cubic convergence, as :func:`_solve_w`). ``log1p(c/w)`` is
    computed at each iterate alongside ``ln w`` (independent of the iteration, so its
    latency overlaps), and the result's is obtained from the last one by
    :func:`_l1p_shift` (exact to rounding for a final step below ``1e-4 w``): unlike
    :func:`_solve_w`, no ``expm1`` or ``exp`` and no logarithm after the iteration.
    """
    sg = math.sqrt(2.0 * s)
    p = 1.0 / 17010.0 + sg * (139.0 / 5443200.0 + sg * (1.0 / 204120.0))
    p = -1.0 / 4320.0 + sg * p
    p = -1.0 / 270.0 + sg * p
    p = -1.0 / 36.0 + sg * p
    p = 1.0 / 3.0 + sg * p
    w = 1.0 + sg * (-1.0 + sg * p)
    if not (wlo < w < whi):
        w = 0.5 * (wlo + whi)
    lp = math.log1p(c / w)
    for _ in range(100):
        lp = math.log1p(c / w)
        f = _phi(w) - s
        if f > 0.0:  # f decreases in w
            wlo = w
        elif f < 0.0:
            whi = w
        else:
            return w, lp
        um = w - 1.0
        step = f * w / um
        corr = 1.0 - 0.5 * f / (um * um)
        if 0.5 < corr < 2.0:
            step = step / corr
        nxt = w - step
        if abs(step) <= 1e-6 * abs(um) and wlo <= nxt <= whi:
            if abs(step) <= 1e-4 * w:
                return nxt, lp + _l1p_shift(w, -step, c)
            return nxt, math.log1p(c / nxt)
        if not (wlo < nxt < whi):
            nxt = 0.5 * (wlo + whi)
            if not (wlo < nxt < whi):  # bracket exhausted
                return nxt, math.log1p(c / nxt)
        w = nxt
    return w, math.log1p(c / w)


# ----------------------------------------------------------------------------------------
# One arm: regions, pieces, costs
# ----------------------------------------------------------------------------------------
#: One arm of the program (a numba named tuple: fields compile to tuple items).
Arm = namedtuple("Arm", ["n", "c", "d", "Y", "yA", "ys", "rt", "hA", "hY"])
Arm.__doc__ = """Arm ``c`` of the program: ``n = N_c``, ``c = C_c``, ``d = D_c``, ``Y = C/D`` (cap),
``yA`` end of region A, ``ys`` split of region C into C1/C2 (``Y`` if none), ``rt`` the region
that follows A (:data:`REGION_B` or :data:`REGION_C`, stored as a float), ``hA = h(yA)``,
``hY = h(Y)``."""

#: Regions of ``y`` (Step 1 of the proof): A ``x = 1/(1+y)``, B ``x = D``, C ``x = C/y``.
REGION_A = 0
REGION_B = 1
REGION_C = 2

#: Piece kinds: a region of one arm with the objective's convexity (proof, Step 2).
A = 0  # non-EV region A (rate 1)
B = 1  # non-EV region B
C1 = 2  # non-EV region C, concave part
C2 = 3  # non-EV region C, convex part
EV_A = 4  # EV region A (convex)
EV_B = 5  # EV region B (rate 1/D)
EV_C1 = 6  # EV region C, concave part
EV_C2 = 7  # EV region C, convex part
NO_PIECE = -1


@njit(cache=True)
def _make_arm(n, c, d, ev):
    """The :class:`Arm` of the program with ``N = n``, ``C = c``, ``D = d``."""
    return _make_arm_h(n, c, d, ev, c + _phi(d))


@njit(cache=True)
def _make_arm_h(n, c, d, ev, hY):
    """:func:`_make_arm` given ``hY = h(Y) = C + D - 1 - ln D`` (already computed)."""
    Y = c / d
    yb = 1.0 / d - 1.0
    if c + d >= 1.0:
        rt = REGION_B
        yA = min(yb, Y)
        ys = Y
    else:
        rt = REGION_C
        yA = c / (1.0 - c)
        split = 2.0 * c if ev else 2.0 * c / (1.0 - c)
        ys = min(max(split, yA), Y)
    hA = -math.log1p(-c) if rt == REGION_C else -math.log(d)
    hY = max(hY, hA)
    return Arm(n, c, d, Y, yA, ys, rt, hA, hY)


@njit(cache=True)
def _h(y, arm, region):
    """Minimal KL term ``h(y) = min_x f(x, y)`` over the box on a region (0 A, 1 B, 2 C)."""
    c = arm.c
    d = arm.d
    if region == REGION_A:
        return math.log1p(y)
    if region == REGION_B:
        return y * d + _phi(d)
    return c + _phi(c / y)


@njit(cache=True)
def _region_of(y, arm):
    if y <= arm.yA:
        return REGION_A
    return int(arm.rt)


@njit(cache=True)
def _h_any(y, arm):
    return _h(y, arm, _region_of(y, arm))


@njit(cache=True)
def _hinv(t, arm):
    """Inverse of ``h`` (strictly increasing): the ``y in [0, Y]`` with ``h(y) = t``."""
    if t <= 0.0:
        return 0.0
    if t >= arm.hY:
        return arm.Y
    if t <= arm.hA:
        y = math.expm1(t)
    elif arm.rt == REGION_B:
        y = (t - _phi(arm.d)) / arm.d
    else:
        c = arm.c
        y = c / _solve_w(t - c)
    return min(max(y, 0.0), arm.Y)


@njit(cache=True)
def _g(y, ev):
    if ev:
        return y
    return math.log1p(y)


@njit(cache=True)
def _x_hat(y, arm):
    """Best ``x`` for a given ``y``: projection of ``1/(1+y)`` on ``[D, C/y]``."""
    x = 1.0 / (1.0 + y)
    if x < arm.d:
        x = arm.d
    if y > 0.0 and x > arm.c / y:
        x = arm.c / y
    return x


@njit(cache=True)
def _piece(arm, p, ev):
    """Piece ``p`` of an arm: ``(kind, ylo, yhi, region)``; ``kind = NO_PIECE`` if absent."""
    rt = arm.rt
    if p == 0:
        return (EV_A if ev else A), 0.0, arm.yA, REGION_A
    if p == 1:
        if rt == REGION_B:
            return (EV_B if ev else B), arm.yA, arm.Y, REGION_B
        return (EV_C1 if ev else C1), arm.yA, arm.ys, REGION_C
    if rt == REGION_C:
        return (EV_C2 if ev else C2), arm.ys, arm.Y, REGION_C
    return NO_PIECE, 0.0, 0.0, REGION_A


@njit(cache=True)
def _rate(y, kind, arm):
    """Marginal rate ``r = g'(y) / h'(y)`` on a piece."""
    c = arm.c
    d = arm.d
    if kind == A:
        return 1.0
    if kind == B:
        return 1.0 / ((1.0 + y) * d)
    if kind == C1 or kind == C2:
        return y * y / ((1.0 + y) * (y - c))
    if kind == EV_A:
        return 1.0 + y
    if kind == EV_B:
        return 1.0 / d
    return y * y / (y - c)


@njit(cache=True)
def _dir(kind):
    """Direction of ``y(lambda)`` on a piece: -1 (concave v), +1 (convex v), 0 (constant rate)."""
    if kind == A or kind == EV_B:
        return 0
    if kind == C2 or kind == EV_A or kind == EV_C2:
        return 1
    return -1


@njit(cache=True)
def _y_of_lam(lam, kind, arm, ylo, yhi):
    """Inverse of the rate on a strictly monotone piece, clipped to ``[ylo, yhi]``."""
    c = arm.c
    d = arm.d
    if kind == B:
        y = 1.0 / (lam * d) - 1.0
    elif kind == C1 or kind == C2:
        disc = max(lam * lam * (1.0 - c) * (1.0 - c) - 4.0 * lam * c * (1.0 - lam), 0.0)
        sq = math.sqrt(disc)
        if kind == C1:
            y = 2.0 * lam * c / (lam * (1.0 - c) + sq)
        else:
            y = (lam * (1.0 - c) + sq) / (2.0 * (1.0 - lam)) if lam < 1.0 else yhi
    elif kind == EV_A:
        y = lam - 1.0
    else:
        disc = max(lam * lam - 4.0 * lam * c, 0.0)
        sq = math.sqrt(disc)
        if kind == EV_C1:
            y = 2.0 * lam * c / (lam + sq)
        else:
            y = 0.5 * (lam + sq)
    return min(max(y, ylo), yhi)


@njit(cache=True)
def _valid(n1, n2, c1, c2, d1, d2, e):
    """Arguments in the domain of the program (``E = +inf`` allowed)."""
    return (
        n1 > 0.0
        and n2 > 0.0
        and c1 > 0.0
        and c2 > 0.0
        and e > 0.0
        and 0.0 < d1 <= 1.0
        and 0.0 < d2 <= 1.0
        and math.isfinite(n1)
        and math.isfinite(n2)
        and math.isfinite(c1)
        and math.isfinite(c2)
    )
