"""Certified shortcuts (decision D91): log-free Box and binding tests, water filling
(non-EV and EV) with supergradient certificates. Each returns the exact global maximum or
declines, so the general enumeration runs (proof: ``docs/bob-exact-proof.md``)."""

from __future__ import annotations

import math

from numba import njit

from baiuv.thresholds.bob_exact.arms import (
    _INF,
    REGION_B,
    _g,
    _hinv,
    _phi,
    _solve_w_l1p,
    _valid,
)


@njit(cache=True)
def _wf_arm(nu, arm):
    """Concave non-EV arm at ``nu = 1/lambda - 1 >= 0`` (no cancellation near ``lambda = 1``).

    Returns ``(y, N h(y), d(N h)/d nu)``, ``y`` being the inverse of the rate clamped to
    ``[yA, Y]``. Region B: ``x = D``, ``y = (nu + 1 - D)/D``, ``h`` affine in ``nu``. Region C1:
    ``x = w = C/y`` solves ``(w + C)(1 - w) = C(1 + nu)`` (larger root), so
    ``w - 1 = -2C(1 + nu)/(sqrt((1-C)^2 - 4 C nu) + 1 + C)`` and ``h = C + (w-1) - ln w``.
    """
    n = arm.n
    c = arm.c
    d = arm.d
    if nu <= 0.0:
        return arm.yA, n * arm.hA, 0.0
    if nu >= _nu_cap(arm):
        return arm.Y, n * arm.hY, 0.0
    if arm.rt == REGION_B:
        y = (nu + (1.0 - d)) / d
        return y, n * (y * d + _phi(d)), n
    sq = math.sqrt(max((1.0 - c) * (1.0 - c) - 4.0 * c * nu, 0.0))
    u = -2.0 * c * (1.0 + nu) / (sq + 1.0 + c)
    w = 1.0 + u
    y = c / w
    dc = n * (-u) * c / (w * sq) if sq > 0.0 else _INF
    return y, n * (c + _phi(w)), dc


@njit(cache=True)
def _wf_y(nu, arm):
    """``y`` of :func:`_wf_arm` only (no logarithm)."""
    c = arm.c
    d = arm.d
    if nu <= 0.0:
        return arm.yA
    if nu >= _nu_cap(arm):
        return arm.Y
    if arm.rt == REGION_B:
        return (nu + (1.0 - d)) / d
    sq = math.sqrt(max((1.0 - c) * (1.0 - c) - 4.0 * c * nu, 0.0))
    return c / (1.0 - 2.0 * c * (1.0 + nu) / (sq + 1.0 + c))


@njit(cache=True)
def _wf_der(nu, arm):
    """Left derivative ``d(N h)/d nu`` of :func:`_wf_arm` (no clamping at the cap)."""
    n = arm.n
    c = arm.c
    if arm.rt == REGION_B:
        return n
    sq = math.sqrt(max((1.0 - c) * (1.0 - c) - 4.0 * c * nu, 0.0))
    u = -2.0 * c * (1.0 + nu) / (sq + 1.0 + c)
    return n * (-u) * c / ((1.0 + u) * sq) if sq > 0.0 else _INF


@njit(cache=True)
def _nu_cap(arm):
    """``1/r(Y) - 1`` at which a concave non-EV arm reaches its cap ``Y = C/D``.

    Region B: ``C + D - 1``; region C1: ``D (1 - C - D) / C`` (both ``>= 0``).
    """
    c = arm.c
    d = arm.d
    if arm.rt == REGION_B:
        return max(c + d - 1.0, 0.0)
    return d * (1.0 - c - d) / c


@njit(cache=True)
def _waterfill(arm1, arm2, e):
    """Non-EV program when both value curves ``v_c`` are concave (no C2 piece).

    Then ``V`` is concave, KKT is sufficient, and the optimum is the unique root of the
    non-decreasing function ``F(nu) = sum_c N_c h_c(y_c(nu)) - 2E`` of ``nu = 1/lambda - 1``
    (water filling; ``F(0) < 0 <= F(max cap)``, checked by the caller). ``F`` is smooth
    between the two caps: the segment holding the root is found first; if one arm is
    capped the other is obtained by inverting ``h``, otherwise a safeguarded Newton
    iteration runs on the smooth segment.
    """
    e2 = 2.0 * e
    m1 = _nu_cap(arm1)
    m2 = _nu_cap(arm2)
    if m1 <= m2:
        ms, arm_s, arm_o = m1, arm1, arm2
    else:
        ms, arm_s, arm_o = m2, arm2, arm1
    yo, ho, do = _wf_arm(ms, arm_o)
    if arm_s.n * arm_s.hY + ho >= e2:
        mlo = 0.0
        mhi = ms
        fhi = arm_s.n * arm_s.hY + ho - e2
        # Newton step from the right end (left derivative there; fewest iterations in tests)
        ds = _wf_der(ms, arm_s)
        mu = ms - fhi / (ds + do) if ds + do > 0.0 else 0.5 * ms
        if not (0.0 < mu < ms):
            mu = 0.5 * ms
        y1 = arm1.yA
        y2 = arm2.yA
        for _ in range(100):
            y1, h1, d1 = _wf_arm(mu, arm1)
            y2, h2, d2 = _wf_arm(mu, arm2)
            f = h1 + h2 - e2
            if f > 0.0:
                mhi = mu
            else:
                mlo = mu
            if f == 0.0 or mhi - mlo <= 4e-16 * mhi:
                break
            der = d1 + d2
            step = f / der if der > 0.0 else _INF
            nxt = mu - step
            if not (mlo < nxt < mhi):
                nxt = 0.5 * (mlo + mhi)
            elif abs(step) <= 1e-8 * mu:
                # quadratic convergence: after this step the error is below rounding, so
                # only y is recomputed (no logarithm)
                y1 = _wf_y(nxt, arm1)
                y2 = _wf_y(nxt, arm2)
                break
            mu = nxt
        return (0.5 * (arm1.n * math.log1p(y1) + arm2.n * math.log1p(y2)), y1, y2)
    # arm_s is capped; arm_o takes the remaining budget
    ys = arm_s.Y
    yo = _hinv((e2 - arm_s.n * arm_s.hY) / arm_o.n, arm_o)
    val = 0.5 * (arm_s.n * math.log1p(ys) + arm_o.n * math.log1p(yo))
    if m1 <= m2:
        return (val, ys, yo)
    return (val, yo, ys)


_LN2 = math.log(2.0)


@njit(cache=True)
def _phi_up_pq(d):
    """``(P, Q)``, ``Q > 0``, with ``phi(D) = D - 1 - ln D <= P/Q``: ``phi_up(D) = t^2 (30 D
    (1+D)^2 + 20 D t + 3 t^3) / (30 D (1+D)^3)``, ``t = 1 - D`` (``docs/bob-exact-proof.md``, *log-free
    Box test*)."""
    t = 1.0 - d
    gs = (1.0 + d) * (1.0 + d)
    return t * t * (30.0 * d * gs + t * (20.0 * d + 3.0 * t * t)), 30.0 * d * gs * (1.0 + d)


@njit(cache=True)
def _phi_lo_pq(d):
    """``(P, Q)``, ``Q >= 15``, with ``phi(D) >= P/Q``: ``phi_lo(D) = t^2 (15 (1+D)^4 +
    10 (1+D)^2 t + 6 t^3) / (15 (1+D)^5)``, ``t = 1 - D``."""
    t = 1.0 - d
    gs = (1.0 + d) * (1.0 + d)
    return t * t * (15.0 * gs * gs + t * (10.0 * gs + 6.0 * t * t)), 15.0 * gs * gs * (1.0 + d)


@njit(cache=True)
def _cleared_cost(n1, n2, c1, c2, p1, q1, p2, q2):
    """``(Q1 Q2, Q1 Q2 sum_c N_c (C_c + P_c/Q_c))``: the pair's bound of ``sum_c N_c h_c(Y_c)``
    with its positive denominators multiplied out (no division)."""
    qq = q1 * q2
    return qq, (n1 * c1 + n2 * c2) * qq + n1 * p1 * q2 + n2 * p2 * q1


@njit(cache=True)
def _box_proven(n1, n2, c1, c2, d1, d2, e):
    """True if ``E >= sum_c N_c h_c(Y_c)/2`` is proven without logarithm (Box case).

    ``h(Y) = C + phi(D)`` with ``phi`` bounded above by :func:`_phi_up_pq`. The comparison is
    multiplied out by the positive denominators (:func:`_cleared_cost`), so it needs no
    division; every term is positive, so a relative margin ``1e-13`` covers rounding. Tiny
    ``D`` (denominator product below ``1e-290``) or an overflow leaves it undecided (False).
    """
    p1, q1 = _phi_up_pq(d1)
    p2, q2 = _phi_up_pq(d2)
    qq, rhs = _cleared_cost(n1, n2, c1, c2, p1, q1, p2, q2)
    return qq > 1e-290 and rhs < _INF and 2.0 * e * qq >= rhs * (1.0 + 1e-13)


@njit(cache=True)
def _binding_proven(n1, n2, c1, c2, d1, d2, e):
    """True if ``E < sum_c N_c h_c(Y_c)/2`` is proven without logarithm (KL constraint
    binds): ``phi`` bounded below by :func:`_phi_lo_pq`, multiplied out as in
    :func:`_box_proven` (denominators ``>= 15``)."""
    p1, q1 = _phi_lo_pq(d1)
    p2, q2 = _phi_lo_pq(d2)
    qq, rhs = _cleared_cost(n1, n2, c1, c2, p1, q1, p2, q2)
    return 2.0 * e * qq * (1.0 + 1e-13) < rhs


@njit(cache=True)
def _neglog_upper(x):
    """Upper bound of ``-ln x`` for ``0 < x <= 1`` without logarithm: ``2 atanh(s)``,
    ``s = (1 - x)/(1 + x)``, series tail after ``s^3/3`` bounded by ``s^5/(5 (1 - s^2))``
    (as in :func:`_box_proven`), plus a relative rounding margin ``1e-13``."""
    s = (1.0 - x) / (1.0 + x)
    s2 = s * s
    if not s2 < 1.0:
        return _INF
    return 2.0 * s * (1.0 + s2 * (1.0 / 3.0 + s2 / (5.0 * (1.0 - s2)))) * (1.0 + 1e-13)


@njit(cache=True)
def _ha_upper(c):
    """Upper bound of ``h(y_A) = -ln(1 - C)`` (region C follows A, ``0 < C < 1``), no logarithm:
    ``c + c^2/2 + c^3/(3 (1 - c))`` (tail of the series bounded by a geometric series;
    ``c^3 2/3`` if ``c <= 1/2``), plus a relative rounding margin ``1e-13``."""
    if c <= 0.5:
        # 1/(1 - c) <= 2: no division
        return (c + c * c * (0.5 + c * (2.0 / 3.0))) * (1.0 + 1e-13)
    return (c + c * c * (0.5 + c / (3.0 * (1.0 - c)))) * (1.0 + 1e-13)


@njit(cache=True)
def _wfc(nu, n, c):
    """Region C1 of a non-EV arm at ``nu`` (see :func:`_wf_arm`), no clamping:
    ``(w, N h, d(N h)/d nu, d^2(N h)/d nu^2)``; NaN derivatives if ``sqrt`` vanishes.

    With ``sq = 2w + C - 1`` and ``dw/d nu = -C/sq``: ``h' = C (1 - w)/(w sq)`` and
    ``h'' = C^2 (w sq + (1 - w)(sq + 2w)) / (w^2 sq^3)`` (``h`` convex in ``nu``).
    """
    sq = math.sqrt(max((1.0 - c) * (1.0 - c) - 4.0 * c * nu, 0.0))
    u = -2.0 * c * (1.0 + nu) / (sq + 1.0 + c)
    w = 1.0 + u
    nh = n * (c + _phi(w))
    if not sq > 0.0:
        return w, nh, math.nan, math.nan
    ws = w * sq
    den = ws * ws * sq
    if not den > 0.0:
        return w, nh, math.nan, math.nan
    q = 1.0 / den  # 1 / (w^2 sq^3), the only division
    nc = n * c
    return w, nh, -nc * u * ws * sq * q, nc * c * (ws - u * (sq + 2.0 * w)) * q


@njit(cache=True)
def _wfc_der_w(w, n, c):
    """Derivatives of :func:`_wfc` only, given ``w`` (no logarithm, no square root:
    ``sq = 2w + C - 1``)."""
    sq = 2.0 * w + c - 1.0
    u = w - 1.0
    if not sq > 0.0:
        return math.nan, math.nan
    ws = w * sq
    den = ws * ws * sq
    if not den > 0.0:
        return math.nan, math.nan
    q = 1.0 / den
    nc = n * c
    return -nc * u * ws * sq * q, nc * c * (ws - u * (sq + 2.0 * w)) * q


@njit(cache=True)
def _wfc_w(nu, c):
    """``w = x = C/y`` of :func:`_wfc` only (no logarithm)."""
    sq = math.sqrt(max((1.0 - c) * (1.0 - c) - 4.0 * c * nu, 0.0))
    return 1.0 - 2.0 * c * (1.0 + nu) / (sq + 1.0 + c)


@njit(cache=True)
def _halley_step(f, d1, d2):
    """Halley step ``f/f' / (1 - f f''/(2 f'^2))``, the Newton step if the correction
    factor is not in ``(1/2, 2)``; NaN if ``f'`` is not positive (the caller bisects)."""
    if not d1 > 0.0:
        return math.nan
    step = f / d1
    den = 1.0 - 0.5 * step * d2 / d1
    if 0.5 < den < 2.0:
        return step / den
    return step


@njit(cache=True)
def _chebyshev_step(f, d1, d2):
    """Chebyshev step ``s (1 + s d2/(2 d1))``, ``s = f/d1`` (third order, like Halley's, but
    ``1/d1`` and ``d2/d1`` do not depend on ``f``, so no division waits for ``f``); the
    Newton step if the correction ``|s d2/(2 d1)|`` is not below ``1/2``; NaN if ``d1`` is not
    positive (the caller bisects)."""
    if not d1 > 0.0:
        return math.nan
    inv = 1.0 / d1
    r = 0.5 * d2 * inv
    step = f * inv
    x = step * r
    if abs(x) < 0.5:
        return step * (1.0 + x)
    return step


@njit(cache=True)
def _waterfill_c(n1, c1, d1, n2, c2, d2, e):
    """:func:`_waterfill` when both arms go from region A to region C1 (``C + D < 1``,
    ``C + 2D > 1``), the KL constraint binds and neither arm stays in region A (all checked
    by the caller, by bounds; see ``docs/bob-exact-proof.md``). ``(value, y1, y2)``, or a NaN value
    if a degenerate case is met (the caller then runs :func:`_waterfill`).

    Needs only the logarithms actually used: ``ln D`` of the arm with the smaller cap (its
    ``h(Y)``), one per iterate, and the two of the value (``log`` of exact arguments,
    :func:`_phi`). Safeguarded third-order iteration (``F`` is convex: ``h'' > 0``) on
    ``nu = 1/lambda - 1``: a Halley step from the smaller cap, then Chebyshev steps
    (:func:`_chebyshev_step`), stopped after a step below ``1e-5 nu`` (cubic convergence: the
    next error is far below rounding; only ``y`` is then recomputed). When the arm with the
    smaller cap is capped, the other arm's ``h`` is inverted in its bracket
    (:func:`_solve_w_l1p`, which also gives ``ln(1 + y)`` of that arm).
    """
    fail = (math.nan, 0.0, 0.0)
    e2 = 2.0 * e
    # caps nu_c = D (1 - C - D) / C, compared without division
    p1 = d1 * (1.0 - c1 - d1)
    p2 = d2 * (1.0 - c2 - d2)
    if not (p1 > 0.0 and p2 > 0.0):
        return fail
    first = p1 * c2 <= p2 * c1  # arm 1 has the smaller cap
    if first:
        ms, ns, cs, ds, no, co, dq = p1 / c1, n1, c1, d1, n2, c2, d2
    else:
        ms, ns, cs, ds, no, co, dq = p2 / c2, n2, c2, d2, n1, c1, d1
    if not ms > 0.0:
        return fail
    nhs = ns * (cs + _phi(ds))  # N h(Y) of the arm with the smaller cap
    # F(ms) < 0 (the arm with the smaller cap is capped) decided first with the log-free
    # upper bound of -ln w (:func:`_neglog_upper`) in h = C + (w - 1) - ln w
    wo = _wfc_w(ms, co)
    fhi = -1.0
    if not (nhs + no * (co + (wo - 1.0) + _neglog_upper(wo)) < e2):
        ho = no * (co + _phi(wo))
        do1, do2 = _wfc_der_w(wo, no, co)
        if not (do1 > 0.0):
            return fail
        fhi = nhs + ho - e2
    if fhi >= 0.0:
        # both arms in region C1 at the root nu in (0, ms]: Halley from the right end (the
        # arm with the smaller cap is at x = w = D there)
        dsd1, dsd2 = _wfc_der_w(ds, ns, cs)
        if not (dsd1 > 0.0):
            return fail
        if fhi == 0.0:
            w1 = _wfc_w(ms, c1)
            w2 = _wfc_w(ms, c2)
            y1 = c1 / d1 if first else c1 / w1
            y2 = c2 / w2 if first else c2 / d2
            return (0.5 * (n1 * math.log1p(y1) + n2 * math.log1p(y2)), y1, y2)
        mlo = 0.0
        mhi = ms
        mu = ms - _halley_step(fhi, dsd1 + do1, dsd2 + do2)
        if not (mlo < mu < mhi):
            mu = 0.5 * (mlo + mhi)
        for _ in range(100):
            _, h1, a1, b1 = _wfc(mu, n1, c1)
            _, h2, a2, b2 = _wfc(mu, n2, c2)
            f = h1 + h2 - e2
            if f > 0.0:
                mhi = mu
            else:
                mlo = mu
            if f == 0.0 or mhi - mlo <= 4e-16 * mhi:
                break
            step = _chebyshev_step(f, a1 + a2, b1 + b2)
            nxt = mu - step
            if not (mlo < nxt < mhi):
                nxt = 0.5 * (mlo + mhi)
            elif abs(step) <= 1e-5 * mu:
                mu = nxt
                break
            mu = nxt
        y1 = c1 / _wfc_w(mu, c1)
        y2 = c2 / _wfc_w(mu, c2)
        return (0.5 * (n1 * math.log1p(y1) + n2 * math.log1p(y2)), y1, y2)
    # the arm with the smaller cap is capped; the other one takes the remaining budget,
    # h inverted on region C1 (its budget is above h at nu = ms > 0 and below h(Y) there)
    ys = cs / ds
    wt, lpo = _solve_w_l1p((e2 - nhs) / no - co, co, dq, wo)
    yo = co / wt
    val = 0.5 * (ns * math.log1p(ys) + no * lpo)
    if first:
        return (val, ys, yo)
    return (val, yo, ys)


@njit(cache=True)
def _ev_end(arm):
    """End of the concave part of an EV arm with ``C + D < 1``, ``C < 1/2`` (region A then C1).

    Returns ``(kappa_end, y_end, h_end, has_c2)``: the cap ``(D (1 - D)/C, Y, h(Y))`` if
    ``D >= 1/2`` (no C2 piece), else the C1/C2 split ``(1/(4C), 2C, C - 1/2 + ln 2)``.
    """
    c = arm.c
    d = arm.d
    if d >= 0.5:
        return d * (1.0 - d) / c, arm.Y, arm.hY, False
    return 0.25 / c, 2.0 * c, c + (_LN2 - 0.5), True


@njit(cache=True)
def _ev_arm(kap, arm, kend, yend, hend):
    """EV arm on its concave part (region C1) at ``kappa = 1/lambda``.

    Returns ``(y, N h(y), d(N h)/d kappa)`` with ``y`` the inverse of the rate clamped to
    ``[yA, y_end]`` (:func:`_ev_end`). Region C1: ``x = w = C/y`` solves
    ``w (1 - w) = C kappa`` (larger root, ``w >= 1/2``), so
    ``w - 1 = u = -2 C kappa/(1 + sqrt(1 - 4 C kappa))``, ``h = C + u - ln(1 + u)`` and
    ``dh/dkappa = -u C/((1 + u) sqrt(1 - 4 C kappa))``. The arm leaves region A at
    ``kappa = 1 - C``.
    """
    n = arm.n
    c = arm.c
    if kap <= 1.0 - c:
        return arm.yA, n * arm.hA, 0.0
    if kap >= kend:
        return yend, n * hend, 0.0
    sq = math.sqrt(max(1.0 - 4.0 * c * kap, 0.0))
    u = -2.0 * c * kap / (1.0 + sq)
    w = 1.0 + u
    dc = n * (-u) * c / (w * sq) if sq > 0.0 else _INF
    return c / w, n * (c + _phi(w)), dc


@njit(cache=True)
def _ev_certified(kap, slack, y, nh, arm, c2):
    """Certificate of one arm at multiplier ``1/kap`` (``docs/bob-exact-proof.md``, certified EV water
    filling): ``psi = kappa y - h > 0`` and, with a C2 piece, ``chi = h(Y) - h - kappa (Y - y)
    > 0``; ``slack`` bounds ``|kappa* - kap|`` (``d psi/d kappa = y``,
    ``d chi/d kappa = -(Y - y)``)."""
    n = arm.n
    psi = n * kap * y - nh
    if not (psi > 2.0 * n * y * slack + 1e-12 * (n * kap * y + nh)):
        return False
    if c2:
        big_y = arm.Y
        nhy = n * arm.hY
        chi = nhy - nh - n * kap * (big_y - y)
        if not (chi > 2.0 * n * big_y * slack + 1e-12 * (nhy + nh + n * kap * big_y)):
            return False
    return True


@njit(cache=True)
def _ev_capped(arm_j, arm_o, e):
    """EV candidate with arm ``j`` (which has a C2 piece) at its cap ``Y_j`` and arm ``o`` in
    its concave part, certified as in ``docs/bob-exact-proof.md``; ``(value, Y_j, y_o)`` or a NaN
    value."""
    fail = (math.nan, 0.0, 0.0)
    big_y = arm_j.Y
    hy = arm_j.hY
    rest = (2.0 * e - arm_j.n * hy) / arm_o.n
    ko, yeo, heo, c2o = _ev_end(arm_o)
    if not (arm_o.hA < rest < heo):
        return fail
    yo = _hinv(rest, arm_o)
    if not (yo > arm_o.c):
        return fail
    kap = (yo - arm_o.c) / (yo * yo)  # 1 / rate of arm_o at yo
    if not _ev_certified(kap, 0.0, yo, arm_o.n * rest, arm_o, c2o):
        return fail
    # arm j at b = b_max: psi >= 0 (b = 0) and v - lambda b below its value at b_max on the
    # concave part C1, where its maximum is at the point of rate lambda (clamped)
    cj = arm_j.c
    yt, ht, _ = _ev_arm(kap, arm_j, 0.25 / cj, 2.0 * cj, cj + (_LN2 - 0.5))
    nj = arm_j.n
    if not (kap * big_y - hy > 1e-12 * (kap * big_y + hy)):
        return fail
    gap = nj * (hy - kap * (big_y - yt)) - ht
    if not (gap < -1e-12 * (nj * hy + nj * kap * big_y + ht)):
        return fail
    return (0.5 * (nj * big_y + arm_o.n * yo), big_y, yo)


@njit(cache=True)
def _ev_waterfill(arm1, arm2, e):
    """Certified EV water filling: :func:`_ev_restricted`, then, for an arm with a C2 piece,
    :func:`_ev_capped` (that arm at its cap); a NaN value if nothing is certified."""
    res = _ev_restricted(arm1, arm2, e)
    if not math.isnan(res[0]):
        return res
    if arm1.d < 0.5:
        res = _ev_capped(arm1, arm2, e)
        if not math.isnan(res[0]):
            return res
    if arm2.d < 0.5:
        res = _ev_capped(arm2, arm1, e)
        if not math.isnan(res[0]):
            return (res[0], res[2], res[1])
    return res


@njit(cache=True)
def _ev_restricted(arm1, arm2, e):
    """EV program, both arms with ``C + D < 1``, ``C < 1/2``: certified water filling.

    Solves the concave program restricted to the concave parts of both value curves
    (region C1, from the end of region A to the cap or to the C1/C2 split) by a safeguarded
    Newton iteration on ``kappa = 1/lambda`` and returns its ``(value, y1, y2)`` only if the
    certificate of ``docs/bob-exact-proof.md`` holds for both arms (:func:`_ev_certified`, with a
    margin covering the last Newton step and rounding); the value is then the global
    maximum. Otherwise returns a NaN value (the caller runs the general enumeration).
    """
    fail = (math.nan, 0.0, 0.0)
    e2 = 2.0 * e
    k1, ye1, he1, c21 = _ev_end(arm1)
    k2, ye2, he2, c22 = _ev_end(arm2)
    klo = max(1.0 - arm1.c, 1.0 - arm2.c)
    if not (klo < min(k1, k2)):
        return fail
    # an arm still in region A at the root: the restricted optimum is not a KKT point
    f_lo = _ev_arm(klo, arm1, k1, ye1, he1)[1] + _ev_arm(klo, arm2, k2, ye2, he2)[1] - e2
    if not (f_lo < 0.0):
        return fail
    if k1 <= k2:
        ms, arm_s, ys, hs, arm_o, ko, yeo, heo = k1, arm1, ye1, he1, arm2, k2, ye2, he2
    else:
        ms, arm_s, ys, hs, arm_o, ko, yeo, heo = k2, arm2, ye2, he2, arm1, k1, ye1, he1
    yo, ho, do = _ev_arm(ms, arm_o, ko, yeo, heo)
    fhi = arm_s.n * hs + ho - e2
    if fhi >= 0.0:
        mlo = klo
        mhi = ms
        # Newton step from the right end (left derivative of the clamped arm there)
        cs = arm_s.c
        sq = math.sqrt(max(1.0 - 4.0 * cs * ms, 0.0))
        us = -2.0 * cs * ms / (1.0 + sq)
        ds = arm_s.n * (-us) * cs / ((1.0 + us) * sq) if sq > 0.0 else _INF
        kap = ms - fhi / (ds + do) if ds + do > 0.0 else 0.5 * (mlo + mhi)
        if not (mlo < kap < mhi):
            kap = 0.5 * (mlo + mhi)
        y1 = y2 = h1 = h2 = 0.0
        yk1 = yk2 = 0.0
        slack = _INF
        for _ in range(100):
            y1, h1, d1 = _ev_arm(kap, arm1, k1, ye1, he1)
            y2, h2, d2 = _ev_arm(kap, arm2, k2, ye2, he2)
            yk1 = y1
            yk2 = y2
            f = h1 + h2 - e2
            if f > 0.0:
                mhi = kap
            else:
                mlo = kap
            if f == 0.0 or mhi - mlo <= 4e-16 * mhi:
                slack = mhi - mlo
                break
            der = d1 + d2
            step = f / der if der > 0.0 else _INF
            nxt = kap - step
            if not (mlo < nxt < mhi):
                nxt = 0.5 * (mlo + mhi)
            elif abs(step) <= 1e-8 * kap:
                # quadratic convergence: the root is nxt up to rounding, |root - kap| is
                # within twice the step (margin in the certificate)
                slack = abs(step)
                y1 = _ev_arm(nxt, arm1, k1, ye1, he1)[0]
                y2 = _ev_arm(nxt, arm2, k2, ye2, he2)[0]
                break
            kap = nxt
        if slack == _INF:
            return fail
        # certificate at kap (h1, h2, yk1, yk2 are evaluated there)
        if not (
            _ev_certified(kap, slack, yk1, h1, arm1, c21)
            and _ev_certified(kap, slack, yk2, h2, arm2, c22)
        ):
            return fail
        return (0.5 * (arm1.n * y1 + arm2.n * y2), y1, y2)
    # arm_s is at the end of its concave part; arm_o takes the remaining budget, which must
    # stay in its concave part (kappa_o > ms > klo: past region A)
    rest = (e2 - arm_s.n * hs) / arm_o.n
    if not (rest < heo):
        return fail
    yo = _hinv(rest, arm_o)
    if not (yo > arm_o.c):
        return fail
    kap = (yo - arm_o.c) / (yo * yo)  # 1 / rate of arm_o at yo
    if not (
        _ev_certified(kap, 0.0, ys, arm_s.n * hs, arm_s, c21 if k1 <= k2 else c22)
        and _ev_certified(kap, 0.0, yo, arm_o.n * rest, arm_o, c22 if k1 <= k2 else c21)
    ):
        return fail
    val = 0.5 * (arm_s.n * ys + arm_o.n * yo)
    if k1 <= k2:
        return (val, ys, yo)
    return (val, yo, ys)


@njit(cache=True)
def _bob_front(n1, n2, c1, c2, d1, d2, e, ev):
    """Input check and the log-free shortcuts: ``(status, value, y1, y2)``, status 0 solved,
    1 invalid input, 2 undecided (the caller runs :func:`_bob_general`).

    Small on purpose, so that it is inlined into the callers' loops (:func:`bob_exact`):
    the Box case (about half of the paper's inputs) then costs the Box formula plus the
    bound's flops, without the call of the large :func:`_bob_general`.
    """
    if not _valid(n1, n2, c1, c2, d1, d2, e):
        return (1, math.nan, math.nan, math.nan)
    # Box test without logarithm (upper bound of h(Y) = C + D - 1 - ln D); undecided cases
    # go on to the exact test of :func:`_bob_general`
    if _box_proven(n1, n2, c1, c2, d1, d2, e):
        y1 = c1 / d1
        y2 = c2 / d2
        return (0, 0.5 * (n1 * _g(y1, ev) + n2 * _g(y2, ev)), y1, y2)
    # non-EV, both arms region A then C1 (no C2 piece, margins 1e-12 keep degenerate
    # cases on the exact path), KL binding and neither arm left in region A, all decided
    # by log-free bounds: water filling computing only the logarithms it uses
    if (
        not ev
        and c1 + d1 < 1.0 - 1e-12
        and c2 + d2 < 1.0 - 1e-12
        and c1 + 2.0 * d1 > 1.0 + 1e-12
        and c2 + 2.0 * d2 > 1.0 + 1e-12
        and e > 0.5 * (n1 * _ha_upper(c1) + n2 * _ha_upper(c2))
        and _binding_proven(n1, n2, c1, c2, d1, d2, e)
    ):
        cand = _waterfill_c(n1, c1, d1, n2, c2, d2, e)
        if not math.isnan(cand[0]):
            return (0, cand[0], cand[1], cand[2])
    return (2, 0.0, 0.0, 0.0)
