r"""Exact, fast solver of the two-arm BoB and EV-BoB programs (no general NLP solver).

Corollary ``cor:delta_correct_Kinf_thresholds`` (BoB, GLR stopping rule) and Corollary
``cor:delta_correct_Kinf_thresholds_ev`` (EV-BoB, EV-GLR stopping rule), Appendix
``app:ss_Kinf_thresholds``, define the threshold of a pair of arms ``c in {1, 2}`` as the
optimal value of

.. math::

    \max\ \tfrac12 \sum_c N_c\, g(y_c) \quad\text{s.t.}\quad y_c \ge 0,\ x_c y_c \le C_c,\
    x_c \ge D_c,\ \tfrac12 \sum_c N_c f(x_c, y_c) \le E,

with :math:`f(x, y) = (1 + y) x - 1 - \ln x`, :math:`g(y) = \ln(1 + y)` (BoB) or
:math:`g(y) = y` (EV-BoB), :math:`N_c > 0`, :math:`C_c > 0`, :math:`D_c \in (0, 1]`, :math:`E > 0`.

Method and proof of global optimality
-------------------------------------
**The program is not convex** (decision D30): :math:`\{x y \le C\}` is the hypograph of the
convex function :math:`C/x`, hence not a convex set, and the value/KL trade-off of one arm
(below) is convex on part of its range. KKT conditions are therefore necessary but not
sufficient, and a local NLP solver may stop at a local maximum. The solver below instead
enumerates a finite set of points that provably contains a global maximiser.

*Step 1 (exact elimination of x).* For fixed :math:`y_c` the box allows
:math:`x_c \in [D_c, C_c / y_c]` (non-empty iff :math:`y_c \le Y_c := C_c / D_c`), the
objective does not depend on :math:`x_c`, and :math:`f(\cdot, y)` is convex with unconstrained
minimiser :math:`1/(1+y)`. So the best :math:`x_c` is the projection
:math:`\hat x(y) = \mathrm{clip}(1/(1+y), D, C/y)` and the program is equivalent to

.. math:: \max \tfrac12 \sum_c N_c g(y_c) \ \text{s.t.}\ y_c \in [0, Y_c],\
          \tfrac12 \sum_c N_c h_c(y_c) \le E,\quad h(y) := f(\hat x(y), y).

*Step 2 (shape of h).* :math:`h(0) = 0` (:math:`x = 1 \ge D`, so :math:`y = 0` is always
feasible and the feasible set is never empty) and :math:`h` is continuous and strictly
increasing: for :math:`y < y'` every :math:`x` admissible for :math:`y'` is admissible for
:math:`y` and :math:`f(x, y) < f(x, y')`. Explicitly, with :math:`y_B = 1/D - 1` and
:math:`y_C = C/(1-C)` (:math:`+\infty` if :math:`C \ge 1`): if :math:`C + D \ge 1`, region A
:math:`[0, y_B]` (:math:`h = \ln(1+y)`) then region B :math:`[y_B, Y]` (:math:`x = D`,
:math:`h = yD + D - 1 - \ln D`); otherwise region A :math:`[0, y_C]` then region C
:math:`[y_C, Y]` (:math:`x = C/y`, :math:`h = C + C/y - 1 - \ln(C/y)`). At :math:`Y`,
:math:`h(Y) = C + D - 1 - \ln D` in both cases.

*Step 3 (reduction to one dimension).* Let :math:`b_c = N_c h_c(y_c)/2` (KL budget of arm
c) and :math:`v_c(b_c) = N_c g(y_c)/2`, increasing, :math:`C^1`, with derivative the
*marginal rate* :math:`r_c(y) = g'(y)/h_c'(y)` (continuous across regions). If
:math:`E \ge \sum_c N_c h_c(Y_c)/2` both arms reach their caps: the value is the Box value
:math:`\tfrac12\sum_c N_c g(C_c/D_c)`. Otherwise the KL constraint is tight at any optimum (both
:math:`g` increasing) and the program is :math:`\max_{b_1 \in [L, U]} V(b_1) = v_1(b_1) +
v_2(E - b_1)`, a continuous function on a compact interval. Its global maximum is attained
either at :math:`L` or :math:`U` or at an interior point with
:math:`V'(b_1) = 0 \iff r_1(y_1) = r_2(y_2) =: \lambda` (the KKT multiplier of the KL
constraint).

*Step 4 (monotone pieces).* Each arm's range is cut into at most three pieces on which
:math:`r` is constant (non-EV region A, :math:`r = 1`; EV region B, :math:`r = 1/D`) or
strictly monotone with an explicit inverse :math:`y(\lambda)` (closed forms: non-EV B
:math:`y = 1/(\lambda D) - 1`; non-EV C: roots of :math:`(1-\lambda)y^2 - \lambda(1-C)y +
\lambda C = 0`, split at :math:`y = 2C/(1-C)`; EV A :math:`y = \lambda - 1`; EV C: roots of
:math:`y^2 - \lambda y + \lambda C = 0`, split at :math:`y = 2C`). For a pair of strictly
monotone pieces, every stationary point is a root of the scalar function
:math:`F(\lambda) = N_1 h_1(y_1(\lambda)) + N_2 h_2(y_2(\lambda)) - 2E`, a sum of two
monotone functions. If both are decreasing (both :math:`v_c` concave), :math:`F` is
monotone and has at most one root, found by a bracketed Newton iteration. If both are
increasing (both :math:`v_c` convex) every root is a strict local *minimum* of :math:`V`
(:math:`V'' = 1/b_1'(\lambda) + 1/b_2'(\lambda) > 0`) and is skipped. In the mixed case
(one :math:`b_c'(\lambda) > 0`, the other :math:`< 0`) a root is a local maximum iff
:math:`F'(\lambda) > 0`, since :math:`V'' = (b_1' + b_2')/(b_1' b_2')`. For the EV pair
(region A, region C1), the only mixed pair met with the paper's inputs, the value along
the pair has derivative :math:`(N_A + N_C y_C'(\lambda))/2` with
:math:`y_C' = (1 - t/S)/2`, :math:`t = \lambda - 2C`, :math:`S = \sqrt{t^2 - 4C^2}`,
increasing in :math:`\lambda`; as :math:`F' = \text{value}'/\lambda`, :math:`F` decreases
then increases, turning at :math:`\lambda_m = 2C(1 + k/\sqrt{k^2-1})`,
:math:`k = 1 + 2N_A/N_C`, and the only local maximum is the root of the increasing branch.
Every other mixed pair (non-EV with :math:`C + 2D < 1`, EV with :math:`D < 1/2`) is handled
by interval branch and bound, isolating all roots that can beat the incumbent with the
exact enclosure :math:`F([p, q]) \subset [F_\uparrow(p) + F_\downarrow(q),
F_\uparrow(q) + F_\downarrow(p)] - 2E` and the value bound
:math:`v_\uparrow(q) + v_\downarrow(p)` (values move with costs along a piece pair).
Roots are refined by a bracketed Newton iteration (:math:`F'` in closed form). A pair with
one constant-rate piece gives at most one point (explicit). On a pair of constant-rate
pieces :math:`V` is affine, so its maximum is at a piece boundary; these boundaries are
candidates too (needed only for two constant-rate pieces with the same rate: EV region B
with :math:`D_1 = D_2`, since the non-EV pair (A, A) is settled by the fast path below).

Every candidate is turned into an exactly feasible point by recomputing one arm from the
KL budget (closed forms, or a Halley iteration for the Lambert-type equation
:math:`w - 1 - \ln w = s` of region C), and the best candidate value is returned. Since the
candidate set contains every local maximiser of :math:`V`, the result is the global maximum
(checked against SLSQP multi-start, a zoomed grid and Ipopt in ``tests/unit/test_bob_exact.py``).

Fast paths: the Box case above, and for the non-EV program the identity
:math:`\ln(1 + y) = \min_x f(x, y) \le f(x, y)`, which gives value :math:`\le E`, with
equality iff :math:`E \le \sum_c N_c \ln(1 + y_{A,c})/2` (both arms inside region A, where
value and KL cost coincide); and, for the non-EV program when no arm has a C2 piece (every
:math:`v_c` concave, so :math:`V` is concave and KKT is sufficient), water filling: one
safeguarded Newton iteration on :math:`\nu = 1/\lambda - 1` (:func:`_waterfill`), which is the
path taken by the paper's inputs whenever the KL constraint binds.

*Log-free Box test.* The Box case is first tested with an upper bound of :math:`h(Y) = C +
\varphi(D)`, :math:`\varphi(D) = D - 1 - \ln D`, that needs neither a logarithm nor a division
(:func:`_box_proven`): with :math:`t = 1 - D`, :math:`-\ln D = 2\,\mathrm{atanh}\,s`,
:math:`s = t/(1 + D)`, :math:`1 - s^2 = 4D/(1+D)^2`, the atanh series after :math:`s^3/3` is
bounded above by the geometric series :math:`s^5/(5(1 - s^2))` and below by :math:`s^5/5` (all
terms positive), which gives, since :math:`-t + 2s = t^2/(1+D)`,

.. math:: \frac{t^2(15(1+D)^4 + 10(1+D)^2 t + 6t^3)}{15(1+D)^5} \le \varphi(D) \le
          \frac{t^2(30D(1+D)^2 + 20Dt + 3t^3)}{30D(1+D)^3}

(gap :math:`2s^7/(5(1-s^2))` up to the :math:`s^7` term; below 1% of :math:`\varphi` for
:math:`D \ge 0.35`). The comparison :math:`2E \ge \sum_c N_c(C_c + P_c/Q_c)` is multiplied out by
:math:`Q_1 Q_2 > 0`; every term is then a product of positive factors, so a relative margin
:math:`10^{-13}` covers rounding (a tiny :math:`Q_1 Q_2` or an overflow leaves the test
undecided). If it holds, the Box value is returned (the same value as the exact test would
give); otherwise the exact test runs. On the paper's inputs it decides all the Box cases met in
the benchmark. The input check and this test are in the small :func:`_bob_front`, inlined into
the callers' loops, so the Box case costs the Box formula plus a few flops.

*Log-saving water filling.* Non-EV program, both arms with :math:`C + D < 1` and
:math:`C + 2D > 1` (region A then C1, no C2 piece; each with a margin :math:`10^{-12}` so that
degenerate cases stay on the exact path): if :math:`E` is below the *lower* bound of
:math:`\sum_c N_c h_c(Y_c)/2` above (KL binding, :func:`_binding_proven`, multiplied out likewise) and above the log-free upper bound
:math:`\sum_c N_c u_A(C_c)/2` of the region-A budget, :math:`u_A(C) = C + C^2/2 + C^3/(3(1-C))
\ge -\ln(1 - C)` (:func:`_ha_upper`; the series' tail bounded by a geometric series), the
program is exactly the water-filling case above, with :math:`F(0) < 0` and both arms past region
A at the root. :func:`_waterfill_c` solves it computing only the logarithms it uses: :math:`\ln
D` of the arm with the smaller cap :math:`\nu_s` (its :math:`h(Y)`), then the sign of
:math:`F(\nu_s)` is first decided with the log-free bound :math:`-\ln w \le` :func:`_neglog_upper`
(:math:`w = x` of the other arm at :math:`\nu_s`; exact :math:`h` only if undecided). If
:math:`F(\nu_s) < 0` the first arm is capped and the other arm's :math:`h` is inverted
(:func:`_solve_w_l1p`: a Halley iteration on :math:`w` itself in the bracket :math:`[D_o,
w_o(\nu_s)]`, which also returns :math:`\ln(1 + C_o/w)` from a ``log1p`` computed alongside the
iteration and corrected for the last step by :func:`_l1p_shift`, a series with a proven
remainder); otherwise a safeguarded third-order iteration (first step Halley's, then
Chebyshev's, :func:`_chebyshev_step`, whose divisions do not wait for :math:`F`) on :math:`\nu` (:math:`h` is convex
in :math:`\nu`: with :math:`\mathrm{sq} = 2w + C - 1`, :math:`h' = C(1 - w)/(w\,\mathrm{sq})`,
:math:`h'' = C^2(w\,\mathrm{sq} + (1 - w)(\mathrm{sq} + 2w))/(w^2 \mathrm{sq}^3) > 0`) from
:math:`\nu_s`, stopped after a step below :math:`10^{-5}\nu` (cubic convergence: the next error
is far below rounding), replaces the Newton iteration. Logarithms of exactly computed
arguments use ``log`` instead of ``log1p`` (:func:`_phi`; same accuracy, about half the cost). Any degenerate case (a vanishing
derivative, a cap at 0) returns to :func:`_waterfill`. The shortcut decides only by proven
bounds, so it returns the same maximiser as the general water filling.

*Certified EV water filling.* EV program with both arms in the case :math:`C + D < 1`,
:math:`C < 1/2` (region A, then a non-empty C1 piece, then the C2 piece if :math:`D < 1/2`;
all the paper's inputs where the KL constraint binds). In budget units :math:`v_c` is convex
on :math:`[0, a_c]`, :math:`a_c = N_c h_c(y_{A,c})/2`, concave on :math:`[a_c, s_c]` (C1) and
convex on :math:`[s_c, \bar b_c]` (C2, empty if :math:`D \ge 1/2`, then :math:`s_c = \bar b_c`).
The concave program restricted to :math:`b_c \in [a_c, s_c]` is solved by water filling in
:math:`\kappa = 1/\lambda` (:func:`_ev_waterfill`; region C1: :math:`x = w = C/y` solves
:math:`w(1 - w) = C\kappa`, :math:`w \ge 1/2`; the piece ends at the cap
:math:`\kappa = D(1-D)/C` or at the split :math:`y = 2C`, :math:`\kappa = 1/(4C)`), requiring
both arms strictly past region A at the root. Let :math:`b^*` be its solution and
:math:`\lambda` its multiplier. *Certificate:* for each arm,
:math:`v_c(b) \le v_c(b_c^*) + \lambda (b - b_c^*)` on the whole :math:`[0, \bar b_c]`. On
:math:`[a_c, s_c]` this holds by concavity, :math:`\lambda` being a supergradient at
:math:`b_c^*` (the derivative for an interior arm; for an arm clamped at :math:`s_c`,
:math:`\lambda \le r_c(y(s_c))`, its left derivative). On :math:`[0, a_c]`,
:math:`v_c(b) - \lambda b` is convex, hence maximal at :math:`b = a_c` (covered) or :math:`b = 0`,
where the inequality reads :math:`\lambda b_c^* \le v_c(b_c^*)`, i.e.
:math:`\psi_c := \kappa y_c - h_c(y_c) \ge 0`. On :math:`[s_c, \bar b_c]` (C2) it is convex
again, maximal at :math:`s_c` (covered) or :math:`\bar b_c`, where the inequality reads
:math:`\chi_c := h_c(Y_c) - h_c(y_c) - \kappa (Y_c - y_c) \ge 0`. If these hold for both arms
(strictly), summing the two inequalities over any split :math:`b_1 + b_2 = E` gives
:math:`V \le V(b^*)`: the point is a global maximiser. Along the solution curve
:math:`d\psi_c/d\kappa = y_c` and :math:`d\chi_c/d\kappa = -(Y_c - y_c)` (as
:math:`h_c'(y_c) = \kappa`), which bounds their change over the last Newton step; the test
(:func:`_ev_certified`) uses that margin plus a relative rounding margin. When an arm
:math:`j` with a C2 piece jumps over it to its cap (:func:`_ev_capped`): :math:`b_j^* =
\bar b_j`, the other arm takes the rest of the budget in its concave part, :math:`\lambda` is its
rate; the other arm is certified as above and arm :math:`j` by :math:`\psi_j \ge 0` at
:math:`Y_j` (:math:`b = 0`) and, on :math:`[a_j, s_j]` where :math:`v_j - \lambda b` is concave
with its maximum at the C1 point of rate :math:`\lambda` (clamped to the piece), by
:math:`h_j(Y_j) - h_j(y_t) - \kappa (Y_j - y_t) \le 0` there; the convex pieces are covered by
their end points. If no certificate holds (or an arm would stay in region A, or the budget
exceeds the restricted pieces), the general enumeration above runs: the shortcut never
changes the result, it only skips work.

Floating point: branch-and-bound leaves are :math:`10^{-7}` of the pair's multiplier range;
two roots closer than that would be merged (their values then differ by a second-order
amount). Measured agreement with the independent references: about 1e-11 relative.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

__all__ = ["bob_exact", "bob_exact_solution", "solve_bob_exact", "solve_bob_exact_solution"]

_INF = math.inf
# Branch and bound: stack size, leaf width (relative to the piece pair's lambda range).
_STACK = 128
_LEAF = 1e-7


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
# arm tuple: (n, c, d, Y, yA, ys, rt, hA, hY)
#   Y = c/d cap, yA = end of region A, ys = split of the C region (C1/C2) or Y,
#   rt = 1.0 (region B follows A) or 2.0 (region C follows A), hA = h(yA), hY = h(Y).
# piece kinds: non-EV 0 A (r = 1), 1 B, 2 C1, 3 C2 ; EV 4 A, 5 B (r = 1/d), 6 C1, 7 C2
# ----------------------------------------------------------------------------------------
@njit(cache=True)
def _make_arm(n, c, d, ev):
    """Arm tuple (see above) of the program with ``N = n``, ``C = c``, ``D = d``."""
    return _make_arm_h(n, c, d, ev, c + _phi(d))


@njit(cache=True)
def _make_arm_h(n, c, d, ev, hY):
    """:func:`_make_arm` given ``hY = h(Y) = C + D - 1 - ln D`` (already computed)."""
    Y = c / d
    yb = 1.0 / d - 1.0
    if c + d >= 1.0:
        rt = 1.0
        yA = min(yb, Y)
        ys = Y
    else:
        rt = 2.0
        yA = c / (1.0 - c)
        split = 2.0 * c if ev else 2.0 * c / (1.0 - c)
        ys = min(max(split, yA), Y)
    hA = -math.log1p(-c) if rt == 2.0 else -math.log(d)
    hY = max(hY, hA)
    return (n, c, d, Y, yA, ys, rt, hA, hY)


@njit(cache=True)
def _h(y, arm, region):
    """Minimal KL term ``h(y) = min_x f(x, y)`` over the box on a region (0 A, 1 B, 2 C)."""
    c = arm[1]
    d = arm[2]
    if region == 0:
        return math.log1p(y)
    if region == 1:
        return y * d + _phi(d)
    return c + _phi(c / y)


@njit(cache=True)
def _region_of(y, arm):
    if y <= arm[4]:
        return 0
    return int(arm[6])


@njit(cache=True)
def _h_any(y, arm):
    return _h(y, arm, _region_of(y, arm))


@njit(cache=True)
def _hinv(t, arm):
    """Inverse of ``h`` (strictly increasing): the ``y in [0, Y]`` with ``h(y) = t``."""
    if t <= 0.0:
        return 0.0
    if t >= arm[8]:
        return arm[3]
    if t <= arm[7]:
        y = math.expm1(t)
    elif arm[6] == 1.0:
        y = (t - _phi(arm[2])) / arm[2]
    else:
        c = arm[1]
        y = c / _solve_w(t - c)
    return min(max(y, 0.0), arm[3])


@njit(cache=True)
def _g(y, ev):
    if ev:
        return y
    return math.log1p(y)


@njit(cache=True)
def _x_hat(y, arm):
    """Best ``x`` for a given ``y``: projection of ``1/(1+y)`` on ``[D, C/y]``."""
    x = 1.0 / (1.0 + y)
    if x < arm[2]:
        x = arm[2]
    if y > 0.0 and x > arm[1] / y:
        x = arm[1] / y
    return x


@njit(cache=True)
def _piece(arm, p, ev):
    """Piece ``p`` of an arm: ``(kind, ylo, yhi, region)``; ``kind = -1`` if absent."""
    rt = arm[6]
    if p == 0:
        return (4 if ev else 0), 0.0, arm[4], 0
    if p == 1:
        if rt == 1.0:
            return (5 if ev else 1), arm[4], arm[3], 1
        return (6 if ev else 2), arm[4], arm[5], 2
    if rt == 2.0:
        return (7 if ev else 3), arm[5], arm[3], 2
    return -1, 0.0, 0.0, 0


@njit(cache=True)
def _rate(y, kind, arm):
    """Marginal rate ``r = g'(y) / h'(y)`` on a piece."""
    c = arm[1]
    d = arm[2]
    if kind == 0:
        return 1.0
    if kind == 1:
        return 1.0 / ((1.0 + y) * d)
    if kind == 2 or kind == 3:
        return y * y / ((1.0 + y) * (y - c))
    if kind == 4:
        return 1.0 + y
    if kind == 5:
        return 1.0 / d
    return y * y / (y - c)


@njit(cache=True)
def _dir(kind):
    """Direction of ``y(lambda)`` on a piece: -1 (concave v), +1 (convex v), 0 (constant rate)."""
    if kind == 0 or kind == 5:
        return 0
    if kind == 3 or kind == 4 or kind == 7:
        return 1
    return -1


@njit(cache=True)
def _y_of_lam(lam, kind, arm, ylo, yhi):
    """Inverse of the rate on a strictly monotone piece, clipped to ``[ylo, yhi]``."""
    c = arm[1]
    d = arm[2]
    if kind == 1:
        y = 1.0 / (lam * d) - 1.0
    elif kind == 2 or kind == 3:
        disc = max(lam * lam * (1.0 - c) * (1.0 - c) - 4.0 * lam * c * (1.0 - lam), 0.0)
        sq = math.sqrt(disc)
        if kind == 2:
            y = 2.0 * lam * c / (lam * (1.0 - c) + sq)
        else:
            y = (lam * (1.0 - c) + sq) / (2.0 * (1.0 - lam)) if lam < 1.0 else yhi
    elif kind == 4:
        y = lam - 1.0
    else:
        disc = max(lam * lam - 4.0 * lam * c, 0.0)
        sq = math.sqrt(disc)
        if kind == 6:
            y = 2.0 * lam * c / (lam + sq)
        else:
            y = 0.5 * (lam + sq)
    return min(max(y, ylo), yhi)


# ----------------------------------------------------------------------------------------
# Candidates
# ----------------------------------------------------------------------------------------
@njit(cache=True)
def _complete(y1, arm1, arm2, e2, ev):
    """Fix ``y1`` (lowered if it alone exceeds the budget); arm 2 takes the rest of the KL
    budget. Returns a feasible ``(value, y1, y2)``."""
    rest = (e2 - arm1[0] * _h_any(y1, arm1)) / arm2[0]
    if rest < 0.0:  # y1 alone exceeds the budget: arm 1 takes all of it
        y1 = _hinv(e2 / arm1[0], arm1)
        rest = 0.0
    y2 = _hinv(rest, arm2)
    val = 0.5 * (arm1[0] * _g(y1, ev) + arm2[0] * _g(y2, ev))
    return val, y1, y2


@njit(cache=True)
def _pair_candidate(y1, y2, lam, k1, k2, arm1, arm2, e2, ev):
    """Feasible completion of an approximate stationary pair: keep the arm whose
    ``y(lambda)`` is better conditioned, give the other the rest of the KL budget."""
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
    u1 = min(arm1[3], math.expm1(2.0 * b1 / arm1[0]))
    u2 = min(arm2[3], math.expm1(2.0 * (e - b1) / arm2[0]))
    return 0.5 * (arm1[0] * u1 + arm2[0] * u2)


@njit(cache=True)
def _split_candidate(b1, arm1, arm2, e, ev):
    """Budget split ``b1`` for arm 1 and ``e - b1`` for arm 2 (each inverted exactly)."""
    y1 = _hinv(2.0 * b1 / arm1[0], arm1)
    y2 = _hinv(2.0 * (e - b1) / arm2[0], arm2)
    val = 0.5 * (arm1[0] * _g(y1, ev) + arm2[0] * _g(y2, ev))
    return val, y1, y2


@njit(cache=True)
def _eval_lam(lam, k1, arm1, lo1, hi1, r1, k2, arm2, lo2, hi2, r2, ev):
    y1 = _y_of_lam(lam, k1, arm1, lo1, hi1)
    y2 = _y_of_lam(lam, k2, arm2, lo2, hi2)
    c1 = arm1[0] * _h(y1, arm1, r1)
    c2 = arm2[0] * _h(y2, arm2, r2)
    return y1, y2, c1, c2


@njit(cache=True)
def _dy_dlam(y, lam, kind, arm):
    """Derivative of the inverse rate ``y(lambda)`` on a strictly monotone piece."""
    c = arm[1]
    if kind == 1:
        return -1.0 / (lam * lam * arm[2])
    if kind == 2 or kind == 3:
        dr = lam * (2.0 / y - 1.0 / (1.0 + y) - 1.0 / (y - c))
        return 1.0 / dr if dr != 0.0 else _INF
    if kind == 4:
        return 1.0
    den = 2.0 * y - lam
    return (y - c) / den if den != 0.0 else _INF


@njit(cache=True)
def _eval_fd(lam, k1, arm1, lo1, hi1, r1, k2, arm2, lo2, hi2, r2, e2):
    """``F(lambda)`` and ``F'(lambda) = sum_c N_c g'(y_c) y_c'(lambda) / lambda``."""
    y1 = _y_of_lam(lam, k1, arm1, lo1, hi1)
    y2 = _y_of_lam(lam, k2, arm2, lo2, hi2)
    f = arm1[0] * _h(y1, arm1, r1) + arm2[0] * _h(y2, arm2, r2) - e2
    g1 = 1.0 if k1 >= 4 else 1.0 / (1.0 + y1)
    g2 = 1.0 if k2 >= 4 else 1.0 / (1.0 + y2)
    d1 = _dy_dlam(y1, lam, k1, arm1) if lo1 < y1 < hi1 else 0.0
    d2 = _dy_dlam(y2, lam, k2, arm2) if lo2 < y2 < hi2 else 0.0
    return f, (arm1[0] * g1 * d1 + arm2[0] * g2 * d2) / lam


@njit(cache=True)
def _root(la, fa, lb, fb, k1, arm1, lo1, hi1, r1, k2, arm2, lo2, hi2, r2, e2):
    """Root of ``F`` on ``[la, lb]`` given ``fa * fb <= 0``: Newton safeguarded by the
    bracket. When a Newton step leaves the bracket, a Newton step from the bracket end on
    the other side of the root is tried (for a convex or concave ``F`` one of the two sides
    converges monotonically), then bisection."""
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
        f, df = _eval_fd(lam, k1, arm1, lo1, hi1, r1, k2, arm2, lo2, hi2, r2, e2)
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
                    _, da = _eval_fd(la, k1, arm1, lo1, hi1, r1, k2, arm2, lo2, hi2, r2, e2)
                nxt = la - fa / da if da != 0.0 and math.isfinite(da) else _INF
            else:
                if math.isnan(db):
                    _, db = _eval_fd(lb, k1, arm1, lo1, hi1, r1, k2, arm2, lo2, hi2, r2, e2)
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
    if k1 < 0 or k2 < 0 or not (hi1 > lo1) or not (hi2 > lo2):
        return best
    e2 = 2.0 * e
    s1 = _dir(k1)
    s2 = _dir(k2)
    special = (k1 == 4 and k2 == 6) or (k1 == 6 and k2 == 4)
    needs_bb = s1 * s2 < 0 and not special
    if needs_bb != bb:
        return best
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
    ya1, ya2, ca1, ca2 = _eval_lam(la, k1, arm1, lo1, hi1, r1, k2, arm2, lo2, hi2, r2, ev)
    yb1, yb2, cb1, cb2 = _eval_lam(lb, k1, arm1, lo1, hi1, r1, k2, arm2, lo2, hi2, r2, ev)
    if s1 < 0 and s2 < 0:
        fa = ca1 + ca2 - e2
        fb = cb1 + cb2 - e2
        if fa < 0.0 or fb > 0.0:
            return best
        lam = _root(la, fa, lb, fb, k1, arm1, lo1, hi1, r1, k2, arm2, lo2, hi2, r2, e2)
        y1 = _y_of_lam(lam, k1, arm1, lo1, hi1)
        y2 = _y_of_lam(lam, k2, arm2, lo2, hi2)
        cand = _pair_candidate(y1, y2, lam, k1, k2, arm1, arm2, e2, ev)
        if cand[0] > best[0]:
            return cand
        return best
    if (k1 == 4 and k2 == 6) or (k1 == 6 and k2 == 4):
        # EV, region A (convex) against region C1 (concave). Along the pair the value has
        # derivative (N_A + N_C y_C'(lambda))/2 with y_C' = (1 - t/S)/2, t = lambda - 2C,
        # S = sqrt(t^2 - 4C^2): t/S decreases, so the value (hence the cost, whose
        # derivative is value'/lambda) decreases then increases, turning at
        # lambda_m = 2C (1 + k/sqrt(k^2 - 1)), k = 1 + 2 N_A/N_C. Local maxima of V need
        # cost' > 0 (V'' = (b_1' + b_2')/(b_1' b_2') with b_1' b_2' < 0): the only
        # candidate is the root of the increasing branch [max(la, lambda_m), lb].
        if k1 == 4:
            na, nc, cc = arm1[0], arm2[0], arm2[1]
        else:
            na, nc, cc = arm2[0], arm1[0], arm1[1]
        kk = 1.0 + 2.0 * na / nc
        lam_m = 2.0 * cc * (1.0 + kk / math.sqrt(kk * kk - 1.0))
        if lam_m >= lb:
            return best
        if lam_m > la:
            la = lam_m
            ya1, ya2, ca1, ca2 = _eval_lam(la, k1, arm1, lo1, hi1, r1, k2, arm2, lo2, hi2, r2, ev)
        fa = ca1 + ca2 - e2
        fb = cb1 + cb2 - e2
        if fa > 0.0 or fb < 0.0:
            return best
        lam = _root(la, fa, lb, fb, k1, arm1, lo1, hi1, r1, k2, arm2, lo2, hi2, r2, e2)
        y1 = _y_of_lam(lam, k1, arm1, lo1, hi1)
        y2 = _y_of_lam(lam, k2, arm2, lo2, hi2)
        cand = _pair_candidate(y1, y2, lam, k1, k2, arm1, arm2, e2, ev)
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
    n1 = arm1[0]
    n2 = arm2[0]
    while top > 0:
        top -= 1
        p = stack_p[top]
        q = stack_q[top]
        yp1, yp2, cp1, cp2 = _eval_lam(p, k1, arm1, lo1, hi1, r1, k2, arm2, lo2, hi2, r2, ev)
        yq1, yq2, cq1, cq2 = _eval_lam(q, k1, arm1, lo1, hi1, r1, k2, arm2, lo2, hi2, r2, ev)
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
                lam = _root(p, fp, q, fq, k1, arm1, lo1, hi1, r1, k2, arm2, lo2, hi2, r2, e2)
            else:
                lam = 0.5 * (p + q)
            y1 = _y_of_lam(lam, k1, arm1, lo1, hi1)
            y2 = _y_of_lam(lam, k2, arm2, lo2, hi2)
            cand = _pair_candidate(y1, y2, lam, k1, k2, arm1, arm2, e2, ev)
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


@njit(cache=True)
def _wf_arm(nu, arm):
    """Concave non-EV arm at ``nu = 1/lambda - 1 >= 0`` (no cancellation near ``lambda = 1``).

    Returns ``(y, N h(y), d(N h)/d nu)``, ``y`` being the inverse of the rate clamped to
    ``[yA, Y]``. Region B: ``x = D``, ``y = (nu + 1 - D)/D``, ``h`` affine in ``nu``. Region C1:
    ``x = w = C/y`` solves ``(w + C)(1 - w) = C(1 + nu)`` (larger root), so
    ``w - 1 = -2C(1 + nu)/(sqrt((1-C)^2 - 4 C nu) + 1 + C)`` and ``h = C + (w-1) - ln w``.
    """
    n = arm[0]
    c = arm[1]
    d = arm[2]
    if nu <= 0.0:
        return arm[4], n * arm[7], 0.0
    if nu >= _nu_cap(arm):
        return arm[3], n * arm[8], 0.0
    if arm[6] == 1.0:
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
    c = arm[1]
    d = arm[2]
    if nu <= 0.0:
        return arm[4]
    if nu >= _nu_cap(arm):
        return arm[3]
    if arm[6] == 1.0:
        return (nu + (1.0 - d)) / d
    sq = math.sqrt(max((1.0 - c) * (1.0 - c) - 4.0 * c * nu, 0.0))
    return c / (1.0 - 2.0 * c * (1.0 + nu) / (sq + 1.0 + c))


@njit(cache=True)
def _wf_der(nu, arm):
    """Left derivative ``d(N h)/d nu`` of :func:`_wf_arm` (no clamping at the cap)."""
    n = arm[0]
    c = arm[1]
    if arm[6] == 1.0:
        return n
    sq = math.sqrt(max((1.0 - c) * (1.0 - c) - 4.0 * c * nu, 0.0))
    u = -2.0 * c * (1.0 + nu) / (sq + 1.0 + c)
    return n * (-u) * c / ((1.0 + u) * sq) if sq > 0.0 else _INF


@njit(cache=True)
def _nu_cap(arm):
    """``1/r(Y) - 1`` at which a concave non-EV arm reaches its cap ``Y = C/D``.

    Region B: ``C + D - 1``; region C1: ``D (1 - C - D) / C`` (both ``>= 0``).
    """
    c = arm[1]
    d = arm[2]
    if arm[6] == 1.0:
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
    if arm_s[0] * arm_s[8] + ho >= e2:
        mlo = 0.0
        mhi = ms
        fhi = arm_s[0] * arm_s[8] + ho - e2
        # Newton step from the right end (left derivative there; fewest iterations in tests)
        ds = _wf_der(ms, arm_s)
        mu = ms - fhi / (ds + do) if ds + do > 0.0 else 0.5 * ms
        if not (0.0 < mu < ms):
            mu = 0.5 * ms
        y1 = arm1[4]
        y2 = arm2[4]
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
        return (0.5 * (arm1[0] * math.log1p(y1) + arm2[0] * math.log1p(y2)), y1, y2)
    # arm_s is capped; arm_o takes the remaining budget
    ys = arm_s[3]
    yo = _hinv((e2 - arm_s[0] * arm_s[8]) / arm_o[0], arm_o)
    val = 0.5 * (arm_s[0] * math.log1p(ys) + arm_o[0] * math.log1p(yo))
    if m1 <= m2:
        return (val, ys, yo)
    return (val, yo, ys)


_LN2 = math.log(2.0)


@njit(cache=True)
def _phi_up_pq(d):
    """``(P, Q)``, ``Q > 0``, with ``phi(D) = D - 1 - ln D <= P/Q``: ``phi_up(D) = t^2 (30 D
    (1+D)^2 + 20 D t + 3 t^3) / (30 D (1+D)^3)``, ``t = 1 - D`` (module docstring, *log-free
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
    by the caller, by bounds; see the module docstring). ``(value, y1, y2)``, or a NaN value
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
    c = arm[1]
    d = arm[2]
    if d >= 0.5:
        return d * (1.0 - d) / c, arm[3], arm[8], False
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
    n = arm[0]
    c = arm[1]
    if kap <= 1.0 - c:
        return arm[4], n * arm[7], 0.0
    if kap >= kend:
        return yend, n * hend, 0.0
    sq = math.sqrt(max(1.0 - 4.0 * c * kap, 0.0))
    u = -2.0 * c * kap / (1.0 + sq)
    w = 1.0 + u
    dc = n * (-u) * c / (w * sq) if sq > 0.0 else _INF
    return c / w, n * (c + _phi(w)), dc


@njit(cache=True)
def _ev_certified(kap, slack, y, nh, arm, c2):
    """Certificate of one arm at multiplier ``1/kap`` (module docstring, certified EV water
    filling): ``psi = kappa y - h > 0`` and, with a C2 piece, ``chi = h(Y) - h - kappa (Y - y)
    > 0``; ``slack`` bounds ``|kappa* - kap|`` (``d psi/d kappa = y``,
    ``d chi/d kappa = -(Y - y)``)."""
    n = arm[0]
    psi = n * kap * y - nh
    if not (psi > 2.0 * n * y * slack + 1e-12 * (n * kap * y + nh)):
        return False
    if c2:
        big_y = arm[3]
        nhy = n * arm[8]
        chi = nhy - nh - n * kap * (big_y - y)
        if not (chi > 2.0 * n * big_y * slack + 1e-12 * (nhy + nh + n * kap * big_y)):
            return False
    return True


@njit(cache=True)
def _ev_capped(arm_j, arm_o, e):
    """EV candidate with arm ``j`` (which has a C2 piece) at its cap ``Y_j`` and arm ``o`` in
    its concave part, certified as in the module docstring; ``(value, Y_j, y_o)`` or a NaN
    value."""
    fail = (math.nan, 0.0, 0.0)
    big_y = arm_j[3]
    hy = arm_j[8]
    rest = (2.0 * e - arm_j[0] * hy) / arm_o[0]
    ko, yeo, heo, c2o = _ev_end(arm_o)
    if not (arm_o[7] < rest < heo):
        return fail
    yo = _hinv(rest, arm_o)
    if not (yo > arm_o[1]):
        return fail
    kap = (yo - arm_o[1]) / (yo * yo)  # 1 / rate of arm_o at yo
    if not _ev_certified(kap, 0.0, yo, arm_o[0] * rest, arm_o, c2o):
        return fail
    # arm j at b = b_max: psi >= 0 (b = 0) and v - lambda b below its value at b_max on the
    # concave part C1, where its maximum is at the point of rate lambda (clamped)
    cj = arm_j[1]
    yt, ht, _ = _ev_arm(kap, arm_j, 0.25 / cj, 2.0 * cj, cj + (_LN2 - 0.5))
    nj = arm_j[0]
    if not (kap * big_y - hy > 1e-12 * (kap * big_y + hy)):
        return fail
    gap = nj * (hy - kap * (big_y - yt)) - ht
    if not (gap < -1e-12 * (nj * hy + nj * kap * big_y + ht)):
        return fail
    return (0.5 * (nj * big_y + arm_o[0] * yo), big_y, yo)


@njit(cache=True)
def _ev_waterfill(arm1, arm2, e):
    """Certified EV water filling: :func:`_ev_restricted`, then, for an arm with a C2 piece,
    :func:`_ev_capped` (that arm at its cap); a NaN value if nothing is certified."""
    res = _ev_restricted(arm1, arm2, e)
    if not math.isnan(res[0]):
        return res
    if arm1[2] < 0.5:
        res = _ev_capped(arm1, arm2, e)
        if not math.isnan(res[0]):
            return res
    if arm2[2] < 0.5:
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
    certificate of the module docstring holds for both arms (:func:`_ev_certified`, with a
    margin covering the last Newton step and rounding); the value is then the global
    maximum. Otherwise returns a NaN value (the caller runs the general enumeration).
    """
    fail = (math.nan, 0.0, 0.0)
    e2 = 2.0 * e
    k1, ye1, he1, c21 = _ev_end(arm1)
    k2, ye2, he2, c22 = _ev_end(arm2)
    klo = max(1.0 - arm1[1], 1.0 - arm2[1])
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
    fhi = arm_s[0] * hs + ho - e2
    if fhi >= 0.0:
        mlo = klo
        mhi = ms
        # Newton step from the right end (left derivative of the clamped arm there)
        cs = arm_s[1]
        sq = math.sqrt(max(1.0 - 4.0 * cs * ms, 0.0))
        us = -2.0 * cs * ms / (1.0 + sq)
        ds = arm_s[0] * (-us) * cs / ((1.0 + us) * sq) if sq > 0.0 else _INF
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
        return (0.5 * (arm1[0] * y1 + arm2[0] * y2), y1, y2)
    # arm_s is at the end of its concave part; arm_o takes the remaining budget, which must
    # stay in its concave part (kappa_o > ms > klo: past region A)
    rest = (e2 - arm_s[0] * hs) / arm_o[0]
    if not (rest < heo):
        return fail
    yo = _hinv(rest, arm_o)
    if not (yo > arm_o[1]):
        return fail
    kap = (yo - arm_o[1]) / (yo * yo)  # 1 / rate of arm_o at yo
    if not (
        _ev_certified(kap, 0.0, ys, arm_s[0] * hs, arm_s, c21 if k1 <= k2 else c22)
        and _ev_certified(kap, 0.0, yo, arm_o[0] * rest, arm_o, c22 if k1 <= k2 else c21)
    ):
        return fail
    val = 0.5 * (arm_s[0] * ys + arm_o[0] * yo)
    if k1 <= k2:
        return (val, ys, yo)
    return (val, yo, ys)


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


@njit(cache=True)
def _bob_core(n1, n2, c1, c2, d1, d2, e, ev, fast):
    """Optimal ``(value, y1, y2)``; ``value`` is NaN on invalid input.

    ``fast=False`` skips the shortcuts that are not needed for correctness (log-free Box
    test, non-EV and EV water filling): the general enumeration then runs; it exists so
    that tests can compare both paths.
    """
    nan = math.nan
    if fast:
        st, v, y1, y2 = _bob_front(n1, n2, c1, c2, d1, d2, e, ev)
        if st == 0:
            return (v, y1, y2)
        if st == 1:
            return (nan, nan, nan)
    elif not _valid(n1, n2, c1, c2, d1, d2, e):
        return (nan, nan, nan)
    return _bob_general(n1, n2, c1, c2, d1, d2, e, ev, fast)


@njit(cache=True)
def _bob_general(n1, n2, c1, c2, d1, d2, e, ev, fast):
    """:func:`_bob_core` after the input check and :func:`_bob_front`: exact Box test,
    region-A case, water filling (``fast``) and the general enumeration."""
    # KL cost of the Box maximiser (x, y) = (D, C/D): h(Y) = C + D - 1 - ln D
    hy1 = c1 + _phi(d1)
    hy2 = c2 + _phi(d2)
    b1max = 0.5 * n1 * hy1
    b2max = 0.5 * n2 * hy2
    if e >= b1max + b2max:  # KL constraint slack at the Box optimum
        y1 = c1 / d1
        y2 = c2 / d2
        return (0.5 * (n1 * _g(y1, ev) + n2 * _g(y2, ev)), y1, y2)
    arm1 = _make_arm_h(n1, c1, d1, ev, hy1)
    arm2 = _make_arm_h(n2, c2, d2, ev, hy2)
    if not ev:
        a1 = 0.5 * n1 * arm1[7]
        a2 = 0.5 * n2 * arm2[7]
        if e <= a1 + a2:  # both arms inside region A: value = KL budget
            b1 = e * a1 / (a1 + a2) if a1 + a2 > 0.0 else 0.0
            y1 = _hinv(2.0 * b1 / n1, arm1)
            y2 = _hinv(2.0 * (e - b1) / n2, arm2)
            return (e, y1, y2)
        if fast and arm1[5] >= arm1[3] and arm2[5] >= arm2[3]:
            return _waterfill(arm1, arm2, e)
    elif fast and arm1[6] == 2.0 and arm2[6] == 2.0 and c1 < 0.5 and c2 < 0.5:
        cand = _ev_waterfill(arm1, arm2, e)
        if not math.isnan(cand[0]):
            return cand
    lo = max(0.0, e - b2max)
    hi = min(e, b1max)
    best = (-_INF, 0.0, 0.0)
    # stationary points of pairs solved by a 1-D root (good incumbents for pruning)
    for p1 in range(3):
        for p2 in range(3):
            best = _solve_pair(p1, p2, arm1, arm2, e, ev, best, False)
    # end points of the split interval, skipped when an upper bound cannot beat the incumbent
    for b1 in (lo, hi):
        if _split_bound(b1, arm1, arm2, e, ev) > best[0]:
            cand = _split_candidate(b1, arm1, arm2, e, ev)
            if cand[0] > best[0]:
                best = cand
    # piece boundaries (in budget units) of each arm: only needed when V can be affine on a
    # pair of constant-rate pieces with the same rate (EV region B, D1 = D2)
    nb = 2 if (ev and arm1[6] == 1.0 and arm2[6] == 1.0 and d1 == d2) else 0
    for k in range(nb):
        bb1 = 0.5 * n1 * (arm1[7] if k == 0 else _h_any(arm1[5], arm1))
        if lo < bb1 < hi:
            cand = _split_candidate(bb1, arm1, arm2, e, ev)
            if cand[0] > best[0]:
                best = cand
        bb2 = 0.5 * n2 * (arm2[7] if k == 0 else _h_any(arm2[5], arm2))
        if lo < e - bb2 < hi:
            cand = _split_candidate(e - bb2, arm1, arm2, e, ev)
            if cand[0] > best[0]:
                best = cand
    # remaining mixed pairs: branch and bound, pruned by the incumbent
    for p1 in range(3):
        for p2 in range(3):
            best = _solve_pair(p1, p2, arm1, arm2, e, ev, best, True)
    return best


@njit(cache=True)
def bob_exact(
    n1: float, n2: float, c1: float, c2: float, d1: float, d2: float, e: float, ev: bool
) -> float:
    r"""Optimal value of the two-arm BoB (``ev=False``) or EV-BoB (``ev=True``) program.

    Implements the optimisation problems of Corollary ``cor:delta_correct_Kinf_thresholds``
    and Corollary ``cor:delta_correct_Kinf_thresholds_ev`` (Appendix
    ``app:ss_Kinf_thresholds``) exactly; see the module docstring for the method and the
    proof that the global maximum is returned (the program is not convex).

    Parameters
    ----------
    n1, n2 : float
        Counts :math:`N_c > 0`.
    c1, c2 : float
        Mean-box bounds :math:`C_c = \varepsilon_\mu(N_c, \cdot) > 0`.
    d1, d2 : float
        Variance-box bounds :math:`D_c = 1 - \varepsilon_{-,\sigma}(N_c - 1, \cdot) \in (0, 1]`.
    e : float
        KL budget :math:`E > 0` (``+inf``: no KL constraint, Box value).
    ev : bool
        EV-BoB objective :math:`\tfrac12\sum_c N_c y_c` instead of
        :math:`\tfrac12\sum_c N_c \ln(1 + y_c)`.

    Returns
    -------
    float
        The optimal value, or NaN if an argument is out of its domain (numba callers cannot
        catch exceptions cheaply; use :func:`solve_bob_exact` for checked input).
    """
    st, v, _, _ = _bob_front(n1, n2, c1, c2, d1, d2, e, ev)
    if st == 0:
        return v
    if st == 1:
        return math.nan
    return _bob_general(n1, n2, c1, c2, d1, d2, e, ev, True)[0]


@njit(cache=True)
def bob_exact_solution(
    n1: float, n2: float, c1: float, c2: float, d1: float, d2: float, e: float, ev: bool
) -> tuple[float, float, float, float, float]:
    """Optimal value and a maximiser ``(value, x1, y1, x2, y2)`` of the BoB program.

    Same program and method as :func:`bob_exact` (Corollaries
    ``cor:delta_correct_Kinf_thresholds`` and ``cor:delta_correct_Kinf_thresholds_ev``);
    ``x_c`` is the projection of ``1/(1 + y_c)`` on ``[D_c, C_c / y_c]`` (Step 1 of the
    module docstring). NaNs on invalid input.
    """
    val, y1, y2 = _bob_core(n1, n2, c1, c2, d1, d2, e, ev, True)
    if math.isnan(val):
        return (val, val, val, val, val)
    x1 = _x_hat(y1, (n1, c1, d1, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0))
    x2 = _x_hat(y2, (n2, c2, d2, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0))
    return (val, x1, y1, x2, y2)


# ----------------------------------------------------------------------------------------
# Checked Python wrappers
# ----------------------------------------------------------------------------------------
def _pair(x, name: str) -> tuple[float, float]:
    try:
        arr = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a pair of real numbers, got {x!r}") from None
    if arr.shape != (2,):
        raise ValueError(f"{name} must have exactly 2 entries (one per arm), got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite, got {arr.tolist()}")
    return float(arr[0]), float(arr[1])


def _check_args(counts, C, D, E) -> tuple[float, ...]:
    n1, n2 = _pair(counts, "counts")
    if n1 <= 0.0 or n2 <= 0.0:
        raise ValueError(f"counts must be > 0, got {[n1, n2]}")
    c1, c2 = _pair(C, "C")
    if c1 <= 0.0 or c2 <= 0.0:
        raise ValueError(f"C must be > 0, got {[c1, c2]}")
    d1, d2 = _pair(D, "D")
    if not (0.0 < d1 <= 1.0 and 0.0 < d2 <= 1.0):
        raise ValueError(f"D must be in (0, 1], got {[d1, d2]}")
    try:
        e = float(E)
    except (TypeError, ValueError):
        raise ValueError(f"E must be a positive number, got {E!r}") from None
    if math.isnan(e) or e <= 0.0:
        raise ValueError(f"E must be > 0 (or +inf), got {E!r}")
    return n1, n2, c1, c2, d1, d2, e


def solve_bob_exact(counts, C, D, E, *, ev: bool = False) -> float:
    r"""Checked wrapper of :func:`bob_exact` (BoB / EV-BoB optimal value).

    Solves exactly the program of Corollary ``cor:delta_correct_Kinf_thresholds``
    (``ev=False``) or Corollary ``cor:delta_correct_Kinf_thresholds_ev`` (``ev=True``).

    Parameters
    ----------
    counts : array_like, shape (2,)
        :math:`(N_a, N_b)`, positive.
    C : array_like, shape (2,)
        :math:`(C_a, C_b)`, positive (mean-box bounds :math:`\varepsilon_\mu`).
    D : array_like, shape (2,)
        :math:`(D_a, D_b)` in :math:`(0, 1]` (variance-box bounds).
    E : float
        KL budget, :math:`> 0`; ``inf`` removes the KL constraint (Box value).
    ev : bool, default False
        Solve the EV-BoB program (linear objective).

    Returns
    -------
    float
        Optimal value.

    Raises
    ------
    ValueError
        If an argument has the wrong shape or is outside its domain (message names it).
    """
    args = _check_args(counts, C, D, E)
    return float(bob_exact(*args, bool(ev)))


def solve_bob_exact_solution(
    counts, C, D, E, *, ev: bool = False
) -> tuple[float, np.ndarray, np.ndarray]:
    """Checked wrapper of :func:`bob_exact_solution`: ``(value, x, y)`` with arrays of length 2.

    Same program as :func:`solve_bob_exact` (Corollaries ``cor:delta_correct_Kinf_thresholds``
    and ``cor:delta_correct_Kinf_thresholds_ev``); ``(x, y)`` is a maximiser.
    """
    args = _check_args(counts, C, D, E)
    val, x1, y1, x2, y2 = bob_exact_solution(*args, bool(ev))
    return float(val), np.array([x1, x2]), np.array([y1, y2])
