"""Optimal allocation oracles (Theorem ``thm:equivalent_optimization_problem``).

With ``1`` the best arm, ``d_c(l) = log(1 + (l - mu_c)^2 / s2_c)`` (unknown variance) or
``d_c(l) = (l - mu_c)^2 / s2_c`` (known variance), ``g_a(x) = min_l d_1(l) + x d_a(l)`` and
``x_a = g_a^{-1}``, the optimal allocation is ``w_a = x_a(y*) w_1``,
``w_1 = 1 / (1 + sum_a x_a(y*))`` and ``2 / T* = y* / (1 + sum_a x_a(y*))`` where ``y*``
solves ``F(y) = sum_a d_1(l_a) / d_a(l_a) = 1`` with ``l_a = lambda_a(x_a(y))``.

For the beta-version (``w_1 = beta``), ``2 / T*_beta = beta * y`` where ``y`` solves
``sum_a x_a(y) = (1 - beta) / beta`` and ``w_a = beta x_a(y)`` (same argument as the
theorem with the outer constraint ``w_1 = beta``).

Two methods are provided:

* ``oracle_bisection``: the paper's nested binary searches (outer on ``y``, inner on each
  ``x_a(y)``) -- the reference mode;
* ``oracle_fast``: safeguarded Newton's method on the outer equation (analytic derivative,
  bisection inside the current bracket when a Newton step leaves it or stalls) and, inside,
  Newton's method on the concave increasing ``g_a`` (``g_a'(x) = d_a(lambda_a(x))``) from a
  warm start: one tangent step from a point right of the root lands left of it (concavity),
  from where the iterates increase monotonically and quadratically to the root.
  ``oracle_warm_work`` keeps the per-arm solutions ``x_a`` between calls (Track-and-Stop
  calls the oracle at every step on statistics that change in one arm; decision D95).

Derivative of the outer function. With ``l_a = lambda_a(x_a(y))``, the first-order
condition ``d_1'(l) + x d_a'(l) = 0``, ``g_a = y`` and ``x_a'(y) = 1 / d_a(l_a)`` give
``d/dy [d_1(l_a) / d_a(l_a)] = y d_a'(l_a)^2 / (d_a(l_a)^3 (d_1''(l_a) + x_a d_a''(l_a)))``
(free allocation) and ``d/dy x_a(y) = 1 / d_a(l_a)`` (beta-version).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from baiuv.model.transport import lambda_unknown, single_stationary_point

_REL = 1e-14


@njit(cache=True, error_model="numpy")
def _d(l, mu, s2, known):
    z = (l - mu) * (l - mu) / s2
    if known:
        return z
    return math.log1p(z)


@njit(cache=True, error_model="numpy")
def _g(mu1, s21, mua, s2a, x, known):
    """Return ``(g_a(x), lambda_a(x))``."""
    if known:
        lam = (mu1 * s2a + x * mua * s21) / (s2a + x * s21)
        return _d(lam, mu1, s21, known) + x * _d(lam, mua, s2a, known), lam
    lam, half = lambda_unknown(mu1, s21, 1.0, mua, s2a, x)
    return 2.0 * half, lam


@njit(cache=True, error_model="numpy")
def _x_of_y_newton(mu1, s21, mua, s2a, y, known, x0):
    """Solve ``g_a(x) = y`` (``0 <= y < d_1(mu_a)``) by Newton's method from ``x0``.

    ``g_a`` is concave and increasing with ``g_a(0) = 0`` and ``g_a' = d_a(lambda_a)``, so
    Newton iterates started where ``g_a < y`` increase monotonically to the root; from
    ``x0`` right of the root, one tangent step lands left of it. Returns ``(x, lambda)``.
    """
    if y <= 0.0:
        return 0.0, mu1
    if known:
        delta2 = (mu1 - mua) * (mu1 - mua)
        den = delta2 - y * s21
        if den <= 0.0:
            return math.inf, mua
        x = y * s2a / den
        lam = (mu1 * s2a + x * mua * s21) / (s2a + x * s21)
        return x, lam
    x = x0
    if not (x > 0.0 and x < math.inf):
        x, gx, lam = 0.0, 0.0, mu1
    else:
        gx, lam = _g(mu1, s21, mua, s2a, x, known)
        if gx > y:
            # right of the root: the tangent of the concave g_a lies above it, so one
            # tangent step lands left of the root (or at 0 when it would go below)
            slope = _d(lam, mua, s2a, known)
            x = x - (gx - y) / slope if slope > 0.0 else 0.0
            if not (x > 0.0):
                x, gx, lam = 0.0, 0.0, mu1
            else:
                gx, lam = _g(mu1, s21, mua, s2a, x, known)
                if gx > y:  # rounding only
                    x, gx, lam = 0.0, 0.0, mu1
    for _ in range(200):
        slope = _d(lam, mua, s2a, known)
        if slope <= 0.0:
            break
        step = (y - gx) / slope
        x_new = x + step
        if not (x_new > x):
            break
        g_new, lam_new = _g(mu1, s21, mua, s2a, x_new, known)
        if g_new > y * (1.0 + 1e-15):  # only possible by rounding: stop on the left side
            if step <= _REL * x_new:
                x, gx, lam = x_new, g_new, lam_new
            break
        x, gx, lam = x_new, g_new, lam_new
        if step <= _REL * x:
            break
    return x, lam


@njit(cache=True, error_model="numpy")
def _x_of_y_bisect(mu1, s21, mua, s2a, y, known):
    """Reference: ``g_a(x) = y`` by bracketing then 100 bisection steps."""
    if y <= 0.0:
        return 0.0, mu1
    hi = 1.0
    for _ in range(2000):
        if _g(mu1, s21, mua, s2a, hi, known)[0] >= y:
            break
        hi *= 2.0
    lo = 0.0
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        if _g(mu1, s21, mua, s2a, mid, known)[0] < y:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-16 * hi:
            break
    x = 0.5 * (lo + hi)
    return x, _g(mu1, s21, mua, s2a, x, known)[1]


@njit(cache=True, error_model="numpy")
def _outer(mu, s2, best, y, known, beta, xs, fast):
    """Outer function: ``F(y) - 1`` (free) or ``sum x_a(y) - (1-beta)/beta`` (beta).

    Fills ``xs`` with ``x_a(y)`` (warm start input for the fast method).
    """
    K = mu.shape[0]
    total = 0.0
    mu1 = mu[best]
    s21 = s2[best]
    for a in range(K):
        if a == best:
            continue
        if fast:
            x, lam = _x_of_y_newton(mu1, s21, mu[a], s2[a], y, known, xs[a])
        else:
            x, lam = _x_of_y_bisect(mu1, s21, mu[a], s2[a], y, known)
        xs[a] = x
        if beta > 0.0:
            if not math.isfinite(x):
                return math.inf
            total += x
        else:
            da = _d(lam, mu[a], s2[a], known)
            if da <= 0.0 or not math.isfinite(x):
                return math.inf
            total += _d(lam, mu1, s21, known) / da
    if beta > 0.0:
        return total - (1.0 - beta) / beta
    return total - 1.0


@njit(cache=True, error_model="numpy")
def _ymax(mu, s2, best, known):
    m = math.inf
    for a in range(mu.shape[0]):
        if a != best:
            v = _d(mu[a], mu[best], s2[best], known)
            if v < m:
                m = v
    return m


@njit(cache=True, error_model="numpy")
def _allocation(best, y, beta, xs):
    """Allocation and characteristic time from the root ``y`` and ``xs = x_a(y)``."""
    w = np.empty(xs.shape[0])
    return _allocation_into(best, y, beta, xs, w)


@njit(cache=True, error_model="numpy")
def _allocation_into(best, y, beta, xs, w):
    """:func:`_allocation` written to ``w``; returns ``(T, w)``."""
    K = xs.shape[0]
    sx = 0.0
    for a in range(K):
        if a != best:
            sx += xs[a]
    if beta > 0.0:
        w1 = beta
    else:
        w1 = 1.0 / (1.0 + sx)
    for a in range(K):
        w[a] = w1 if a == best else w1 * xs[a]
    s = w.sum()
    w /= s
    T = 2.0 / (w1 * y) if beta > 0.0 else 2.0 * (1.0 + sx) / y
    return T, w


@njit(cache=True, error_model="numpy")
def _finish(mu, s2, best, y, known, beta, xs, fast):
    """Allocation and characteristic time from the root ``y``."""
    _outer(mu, s2, best, y, known, beta, xs, fast)
    return _allocation(best, y, beta, xs)


@njit(cache=True, error_model="numpy")
def oracle_bisection(mu, s2, best, known, beta):
    """Reference nested binary search (Appendix ``app:ss_implementation_details``).

    Returns ``(T, w)``: the characteristic time (``T*``, ``T*_{sigma^2}`` or their
    beta-versions when ``beta > 0``) and the optimal allocation.
    """
    K = mu.shape[0]
    xs = np.zeros(K)
    hi = _ymax(mu, s2, best, known)
    lo = 0.0
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:
            break
        if _outer(mu, s2, best, mid, known, beta, xs, False) < 0.0:
            lo = mid
        else:
            hi = mid
    return _finish(mu, s2, best, 0.5 * (lo + hi), known, beta, xs, False)


@njit(cache=True, error_model="numpy")
def _dd(l, mu, s2, known):
    """``(d(l), d'(l), d''(l))`` for ``d(l) = log(1 + (l - mu)^2 / s2)`` (or ``(l - mu)^2 / s2``
    when ``known``)."""
    u = l - mu
    if known:
        return u * u / s2, 2.0 * u / s2, 2.0 / s2
    q = s2 + u * u
    return math.log1p(u * u / s2), 2.0 * u / q, 2.0 * (s2 - u * u) / (q * q)


@njit(cache=True, error_model="numpy")
def _term(mu1, s21, mua, s2a, y, known, beta, x0):
    """``(x_a(y), term_a(y))``: the inner solve from ``x0`` and arm ``a``'s term of the outer
    function, ``d_1(l_a) / d_a(l_a)`` (free) or ``x_a`` (beta); ``term = inf`` outside the
    domain. Every term is non-decreasing in ``y``: ``x_a`` is, and ``d_1 / d_a`` increases
    along each branch of ``l_a`` (derivative in the module docstring) and jumps up where
    ``l_a`` jumps (``g_a' = d_a(l_a)`` drops, ``d_1(l_a) = y - x_a d_a(l_a)`` rises)."""
    x, lam = _x_of_y_newton(mu1, s21, mua, s2a, y, known, x0)
    if not math.isfinite(x):
        return x, math.inf
    da = _d(lam, mua, s2a, known)
    if not (da > 0.0):
        return x, math.inf
    if beta > 0.0:
        return x, x
    return x, _d(lam, mu1, s21, known) / da


@njit(cache=True, error_model="numpy")
def _outer_newton(mu, s2, best, y, known, beta, xs, terms):
    """Outer function of :func:`_outer` (fast inner solves, warm-started from ``xs`` and
    writing ``x_a(y)`` to it, and each arm's term to ``terms``) and its derivative in ``y``
    (module docstring).

    Returns ``(F, F')``; ``(inf, nan)`` when ``y`` is beyond the domain, ``F' = nan`` when
    the derivative is not defined (degenerate second-order condition).
    """
    K = mu.shape[0]
    total = 0.0
    deriv = 0.0
    mu1 = mu[best]
    s21 = s2[best]
    for a in range(K):
        if a == best:
            continue
        x, lam = _x_of_y_newton(mu1, s21, mu[a], s2[a], y, known, xs[a])
        if not math.isfinite(x):
            return math.inf, math.nan
        xs[a] = x
        da, dpa, ddpa = _dd(lam, mu[a], s2[a], known)
        if not (da > 0.0):
            return math.inf, math.nan
        if beta > 0.0:
            terms[a] = x
            total += x
            deriv += 1.0 / da
        else:
            d1, _, ddp1 = _dd(lam, mu1, s21, known)
            terms[a] = d1 / da
            total += terms[a]
            h = ddp1 + x * ddpa
            deriv += y * dpa * dpa / (da * da * da * h) if h > 0.0 else math.nan
    if beta > 0.0:
        return total - (1.0 - beta) / beta, deriv
    return total - 1.0, deriv


@njit(cache=True, error_model="numpy")
def _jump_bisect(inst, beta, xs, bracket, ends, terms):
    """Bisection of the bracket ``bracket = (lo, hi)`` (``ends = (f_lo, f_hi)``,
    ``F(lo) = f_lo < 0 < f_hi = F(hi)``, ``terms = (t_lo, t_hi)`` the terms there) of the
    instance ``inst = (mu, s2, best, known)`` on the single arm ``a`` whose term changed
    most across it.

    Where some ``l_a`` jumps (two minimisers of ``d_1 + x d_a`` exchange), ``F`` jumps and
    its root is the jump point: Newton steps leave the bracket and plain bisection would
    cost a full evaluation (all arms) per halving. The other terms are non-decreasing
    (:func:`_term`), so with ``r_lo = f_lo - t_lo[a]``, ``r_hi = f_hi - t_hi[a]`` and ``y`` in
    the bracket, ``r_lo + term_a(y) <= F(y) <= r_hi + term_a(y)``: the sign of ``F(y)`` is
    certified by arm ``a`` alone while one bound decides it. Stops when neither does (the
    caller then evaluates ``F`` at the midpoint) or when the bracket is as narrow as
    rounding allows. Returns the new bracket; ``xs[a]`` is left at the last ``x_a``.
    """
    mu, s2, best, known = inst
    lo, hi = bracket
    f_lo, f_hi = ends
    t_lo, t_hi = terms
    K = mu.shape[0]
    a = -1
    jump = 0.0
    for b in range(K):
        if b != best and t_hi[b] - t_lo[b] > jump:
            jump = t_hi[b] - t_lo[b]
            a = b
    if a < 0:
        return lo, hi
    r_lo = f_lo - t_lo[a]
    r_hi = f_hi - t_hi[a]
    for _ in range(200):
        if hi - lo <= 4.0 * 2.2e-16 * hi:
            break
        y = 0.5 * (lo + hi)
        x, term = _term(mu[best], s2[best], mu[a], s2[a], y, known, beta, xs[a])
        if math.isfinite(x):
            xs[a] = x
        if r_lo + term > 0.0:
            hi = y
        elif r_hi + term < 0.0:
            lo = y
        else:
            break
    return lo, hi


# a Newton step of relative size <= _Y_STEP ends the outer iteration: by quadratic
# convergence the next iterate is exact to rounding
_Y_STEP = 1e-10


# the joint iteration of :func:`_joint_newton` ends after a step of relative size
# <= _JOINT_STEP (the step is taken: by quadratic convergence the new point is exact to
# rounding); more than _JOINT_ITERS evaluations hand over to the safeguarded iteration
_JOINT_STEP = 1e-10
_JOINT_ITERS = 8


@njit(cache=True, error_model="numpy")
def _joint_newton(inst, ymax, y0, xs, scratch, ls, track):
    """Newton's method on the joint system ``g_a(x_a) = y`` (every ``a != best``),
    ``sum_a d_1(l_a) / d_a(l_a) = 1`` of the free oracle (unknown or known variances) of
    the instance ``inst = (mu, s2, best, known)``, from ``(y0, xs)``.

    The nested iteration of :func:`oracle_warm_work` solves every inner equation to rounding
    at every outer iterate; from a nearby instance's solution (Track-and-Stop: statistics
    that changed in one arm) the joint iteration reaches the same root with one inner
    evaluation per arm and iterate. With ``D_a = g_a'(x_a) = d_a(l_a)``,
    ``r_a = d_1(l_a) / d_a(l_a)`` and ``r_a' = g_a d_a'(l_a)^2 / (d_a(l_a)^2 h_a)``
    (``h_a = d_1''(l_a) + x_a d_a''(l_a)``, module docstring), the linearised system gives
    ``dy = (1 - sum r_a - sum r_a' (y - g_a) / D_a) / sum (r_a' / D_a)`` and
    ``dx_a = (y + dy - g_a) / D_a``. The root is unique (the outer function is
    non-decreasing and each ``g_a`` increasing), so a converged iterate is the root that the
    safeguarded iteration finds, to rounding.

    With ``track`` (unknown variances), ``l_a`` is not recomputed from the cubic of
    :func:`baiuv.model.transport.lambda_unknown` at every evaluation but followed by Newton's
    method on the first-order condition ``d_1'(l) + x_a d_a'(l) = 0`` (rational functions)
    from its value at the previous evaluation, kept in ``ls`` between calls (``nan``, or a
    value outside ``(mu_a, mu_1)``: start from the cubic). A followed ``l_a`` is a local
    minimiser; it is the global one, hence ``g_a`` the right function, when the cubic has
    a single real root, which the last iterate certifies by its discriminant (with a margin
    of ``1e-8`` relative); otherwise ``ls`` is reset to ``nan`` and the call fails.

    ``scratch = (xcur, gs, ds)`` are scratch rows. Returns the root ``y`` with ``xs`` holding
    ``x_a(y)``, or ``-1.0`` (``xs`` untouched) when an iterate leaves the domain, a second
    derivative is not positive, or no step of relative size ``<= 1e-10`` came within
    ``_JOINT_ITERS`` evaluations (a root at a jump of some ``l_a``, or a start too far);
    the caller then runs the safeguarded iteration.
    """
    mu, s2, best, known = inst
    xcur = scratch[0]
    K = mu.shape[0]
    mu1 = mu[best]
    s21 = s2[best]
    for a in range(K):
        if a != best:
            if not (xs[a] > 0.0 and xs[a] < math.inf):
                return -1.0
            xcur[a] = xs[a]
            if track and not (ls[a] > mu[a] and ls[a] < mu1):
                ls[a] = lambda_unknown(mu1, s21, 1.0, mu[a], s2[a], xs[a])[0]
    y = _joint_iterate(inst, ymax, y0, scratch, ls, track)
    if y > 0.0 and track:
        for a in range(K):
            if a != best and not single_stationary_point(mu1, s21, mu[a], s2[a], xcur[a]):
                y = -1.0
                break
    if not (y > 0.0):
        if track:
            ls[:] = math.nan
        return -1.0
    for a in range(K):
        if a != best:
            xs[a] = xcur[a]
    return y


@njit(cache=True, error_model="numpy")
def _foc_newton(mu1, s21, mua, s2a, x, lam):
    """Newton's method on ``d_1'(l) + x d_a'(l) = 0`` (unknown variances) from ``lam``,
    ending after a step of at most ``1e-10`` times the gap (taken: the error is then of the
    order of rounding). Returns the local minimiser, or ``nan`` when the second derivative is
    not positive on the way or 8 steps do not converge."""
    gap = mu1 - mua
    for _ in range(8):
        u1 = lam - mu1
        ua = lam - mua
        q1 = s21 + u1 * u1
        qa = s2a + ua * ua
        e = 2.0 * u1 / q1 + x * (2.0 * ua / qa)
        h = 2.0 * (s21 - u1 * u1) / (q1 * q1) + x * (2.0 * (s2a - ua * ua) / (qa * qa))
        if not (h > 0.0):
            return math.nan
        step = e / h
        lam = lam - step
        if abs(step) <= 1e-10 * gap:
            return lam
    return math.nan


@njit(cache=True, error_model="numpy")
def _joint_iterate(inst, ymax, y, scratch, ls, track):
    """The iterations of :func:`_joint_newton` on ``(y, xcur)``, ``scratch = (xcur, gs,
    ds)``: returns the root or ``-1``."""
    mu, s2, best, known = inst
    xcur, gs, ds = scratch
    K = mu.shape[0]
    mu1 = mu[best]
    s21 = s2[best]
    for _ in range(_JOINT_ITERS):
        sum_r = 0.0
        sum_c = 0.0
        sum_q = 0.0
        for a in range(K):
            if a == best:
                continue
            x = xcur[a]
            if track:
                lam = _foc_newton(mu1, s21, mu[a], s2[a], x, ls[a])
                if not (lam > mu[a] and lam < mu1):
                    return -1.0
                ls[a] = lam
                g = math.nan
            else:
                g, lam = _g(mu1, s21, mu[a], s2[a], x, known)
            da, dpa, ddpa = _dd(lam, mu[a], s2[a], known)
            d1, _, ddp1 = _dd(lam, mu1, s21, known)
            if track:
                g = d1 + x * da
            h = ddp1 + x * ddpa
            if not (da > 0.0 and h > 0.0):
                return -1.0
            rp = g * dpa * dpa / (da * da * h)
            sum_r += d1 / da
            sum_c += rp * (y - g) / da
            sum_q += rp / da
            gs[a] = g
            ds[a] = da
        if not (sum_q > 0.0 and math.isfinite(sum_q)):
            return -1.0
        dy = (1.0 - sum_r - sum_c) / sum_q
        y_new = y + dy
        if not (y_new > 0.0 and y_new < ymax):
            return -1.0
        done = abs(dy) <= _JOINT_STEP * y_new
        for a in range(K):
            if a == best:
                continue
            dx = (y_new - gs[a]) / ds[a]
            x_new = xcur[a] + dx
            if not (x_new > 0.0 and x_new < math.inf):
                return -1.0
            if abs(dx) > _JOINT_STEP * x_new:
                done = False
            xcur[a] = x_new
        y = y_new
        if done:
            return y
    return -1.0


@njit(cache=True, error_model="numpy")
def oracle_warm_work(mu, s2, best, known, beta, y_hint, xs, work):
    """Fast exact oracle, warm-started at the root ``y_hint`` of a nearby instance (``<= 0``
    for none) and at the per-arm solutions ``xs`` (in/out, any non-negative values are
    valid starts; on return ``xs[a] = x_a(y)`` for ``a != best``).

    Safeguarded Newton's method on the outer equation: the root is kept in a bracket
    ``[lo, hi]`` (initially ``[0, y_max]``, the outer function being increasing), each
    iterate is a Newton step, replaced by the bracket's midpoint when it leaves the bracket
    or when ``|F|`` did not halve; the iteration ends after a Newton step of relative size
    ``<= 1e-10`` (the outer function is then evaluated once more at the new point, which
    also computes ``xs``, unless the step is below rounding), or when the bracket is as
    narrow as rounding allows. Returns ``(T, w, y)``.

    Scratch arrays are in ``work`` (``(4, K)`` or ``(5, K)``; row 3 holds the returned
    allocation ``w``), so that Track-and-Stop allocates nothing per sample. A fifth row keeps
    the minimisers ``l_a`` between calls (unknown variances: the joint iteration follows them
    instead of solving their cubics, decision D213); it must be left to this function between
    calls (``nan`` to start). With that row, a hint at or above this instance's ``y_max``
    still starts the joint iterations, at ``y_max / 2`` (decision D224).
    """
    ymax = _ymax(mu, s2, best, known)
    if not (ymax > 0.0):  # tie with the best arm: no allocation separates them
        if work.shape[0] > 4:
            work[4, :] = math.nan
        _outer(mu, s2, best, 0.0, known, beta, xs, True)
        T, w = _allocation_into(best, 0.0, beta, xs, work[3])
        return T, w, 0.0
    # row 4 of ``work``, when there is one, keeps the minimisers l_a between calls
    track = not known and work.shape[0] > 4
    ls = work[4] if track else work[3]
    if track and beta <= 0.0 and y_hint >= ymax:
        # the hint's instance had a larger y_max: the joint iterations start from the
        # kept x_a and l_a at the safeguarded iteration's start
        y_hint = 0.5 * ymax
    if beta <= 0.0 and y_hint > 0.0 and y_hint < ymax:
        y = -1.0
        inst = (mu, s2, best, known)
        scratch = (work[0], work[1], work[2])
        if track:
            y = _joint_newton(inst, ymax, y_hint, xs, scratch, ls, True)
        if not (y > 0.0):
            y = _joint_newton(inst, ymax, y_hint, xs, scratch, ls, False)
        if y > 0.0:
            T, w = _allocation_into(best, y, beta, xs, work[3])
            return T, w, y
    elif track:
        ls[:] = math.nan
    terms = work[0]
    t_lo = work[1]  # terms at lo and hi (when evaluated there, finite)
    t_hi = work[2]
    terms[:] = 0.0
    t_lo[:] = 0.0
    t_hi[:] = 0.0
    f_lo = math.nan
    f_hi = math.nan
    lo = 0.0
    hi = ymax
    y = y_hint if (y_hint > 0.0 and y_hint < ymax) else 0.5 * ymax
    f_prev = math.inf
    final = False
    for it in range(400):
        f, fp = _outer_newton(mu, s2, best, y, known, beta, xs, terms)
        if final or f == 0.0 or it == 399:
            break
        if f < 0.0:
            lo, f_lo = y, f
            for a in range(terms.shape[0]):  # not t_lo[:] = terms: see D220
                t_lo[a] = terms[a]
        else:
            hi = y
            f_hi = f if math.isfinite(f) else math.nan
            if math.isfinite(f):
                for a in range(terms.shape[0]):
                    t_hi[a] = terms[a]
        y_new = y - f / fp if (math.isfinite(f) and fp > 0.0 and math.isfinite(fp)) else math.nan
        if abs(y_new - y) <= _Y_STEP * y:  # converged (also if nan: False)
            if y_new == y:  # step below rounding: xs already hold x_a(y)
                break
            final = True
            if not (y_new > lo and y_new < hi):
                y_new = 0.5 * (lo + hi)
        elif not (y_new > lo and y_new < hi) or abs(f) > 0.5 * abs(f_prev):
            if math.isfinite(f_lo) and math.isfinite(f_hi):
                lo, hi = _jump_bisect(
                    (mu, s2, best, known), beta, xs, (lo, hi), (f_lo, f_hi), (t_lo, t_hi)
                )
            y_new = 0.5 * (lo + hi)
        if hi - lo <= 4.0 * 2.2e-16 * hi:
            final = True
            y_new = 0.5 * (lo + hi)
        f_prev = f
        y = y_new
    T, w = _allocation_into(best, y, beta, xs, work[3])
    return T, w, y


@njit(cache=True, error_model="numpy")
def oracle_fast(mu, s2, best, known, beta):
    """Fast exact oracle (:func:`oracle_warm_work` from a cold start).

    Same output as :func:`oracle_bisection` (``(T, w)``), to about 1e-12 relative.
    """
    K = mu.shape[0]
    # oracle_warm_work directly, with the argument types Track-and-Stop's step passes: a
    # process that loaded the simulation kernels loads it from numba's cache
    T, w, _ = oracle_warm_work(mu, s2, best, known, beta, -1.0, np.zeros(K), np.empty((4, K)))
    return T, w
