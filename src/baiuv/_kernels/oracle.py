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
* ``oracle_fast``: Brent's method on the outer equation and, inside, Newton's method on the
  concave increasing ``g_a`` started on its left (monotone, quadratically convergent, with
  ``g_a'(x) = d_a(lambda_a(x))``), warm-started from the previous outer iterate.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from baiuv._kernels.transport import lambda_unknown

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
    """Solve ``g_a(x) = y`` (``0 <= y < d_1(mu_a)``) by Newton from the left.

    ``g_a`` is concave and increasing with ``g_a(0) = 0`` and ``g_a' = d_a(lambda_a)``, so
    Newton iterates started where ``g_a < y`` increase monotonically to the root.
    Returns ``(x, lambda)``.
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
    gx, lam = _g(mu1, s21, mua, s2a, x, known)
    if x > 0.0 and gx > y:
        x = 0.0
        gx, lam = 0.0, mu1
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
def _finish(mu, s2, best, y, known, beta, xs, fast):
    """Allocation and characteristic time from the root ``y``."""
    _outer(mu, s2, best, y, known, beta, xs, fast)
    K = mu.shape[0]
    w = np.empty(K)
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
def oracle_fast(mu, s2, best, known, beta):
    """Fast exact oracle: Brent's method on the outer equation, Newton inside.

    Same output as :func:`oracle_bisection` (``(T, w)``), to about 1e-12 relative.
    """
    T, w, _ = oracle_warm(mu, s2, best, known, beta, -1.0)
    return T, w


@njit(cache=True, error_model="numpy")
def oracle_warm(mu, s2, best, known, beta, y_hint):
    """:func:`oracle_fast` warm-started at ``y_hint`` (the root ``y`` of a nearby instance,
    e.g. the previous step of Track-and-Stop; ``y_hint <= 0`` for none).

    The root is first bracketed around ``y_hint`` by geometrically growing steps (the outer
    function is increasing with a single root, so the bracket is valid), then refined by
    Brent's method exactly as without a hint. Returns ``(T, w, y)``.
    """
    K = mu.shape[0]
    xs = np.zeros(K)
    ymax = _ymax(mu, s2, best, known)
    a = 0.0
    fa = -1.0 if beta <= 0.0 else -(1.0 - beta) / beta
    if y_hint > 0.0 and y_hint < ymax:
        fh = _outer(mu, s2, best, y_hint, known, beta, xs, True)
        h = 1e-4 * y_hint
        if fh > 0.0:
            b, fb = y_hint, fh
            for _ in range(200):
                lo = max(0.0, y_hint - h)
                if lo <= 0.0:
                    break  # keep a = 0
                flo = _outer(mu, s2, best, lo, known, beta, xs, True)
                if flo <= 0.0:
                    a, fa = lo, flo
                    break
                b, fb = lo, flo
                h *= 8.0
        else:
            a, fa = y_hint, fh
            b = y_hint
            fb = fh
            for _ in range(200):
                hi = y_hint + h
                if hi >= ymax:
                    hi = 0.5 * (b + ymax)
                    if hi <= b:
                        break
                fhi = _outer(mu, s2, best, hi, known, beta, xs, True)
                if fhi > 0.0:
                    b, fb = hi, fhi
                    break
                a, fa = hi, fhi
                b = hi
                h *= 8.0
    else:
        # upper bracket: move towards ymax until the outer function is positive
        b = 0.5 * ymax
        fb = _outer(mu, s2, best, b, known, beta, xs, True)
        gap = 0.5 * ymax
        for _ in range(200):
            if fb > 0.0:
                break
            a, fa = b, fb
            gap *= 0.5
            b = ymax - gap
            if b <= a:
                break
            fb = _outer(mu, s2, best, b, known, beta, xs, True)
    # Brent's method on [a, b]
    c, fc = a, fa
    d = b - a
    e = d
    for _ in range(200):
        if (fb > 0.0) == (fc > 0.0):
            c, fc = a, fa
            d = b - a
            e = d
        if abs(fc) < abs(fb):
            a, fa = b, fb
            b, fb = c, fc
            c, fc = a, fa
        tol = 2.0 * 2.2e-16 * abs(b) + 1e-300
        m = 0.5 * (c - b)
        if abs(m) <= tol or fb == 0.0:
            break
        if abs(e) >= tol and abs(fa) > abs(fb):
            s = fb / fa
            if a == c:
                p = 2.0 * m * s
                q = 1.0 - s
            else:
                q = fa / fc
                r = fb / fc
                p = s * (2.0 * m * q * (q - r) - (b - a) * (r - 1.0))
                q = (q - 1.0) * (r - 1.0) * (s - 1.0)
            if p > 0.0:
                q = -q
            else:
                p = -p
            if 2.0 * p < min(3.0 * m * q - abs(tol * q), abs(e * q)):
                e = d
                d = p / q
            else:
                d = m
                e = m
        else:
            d = m
            e = m
        a, fa = b, fb
        if abs(d) > tol:
            b += d
        else:
            b += tol if m > 0 else -tol
        if b >= ymax:
            b = 0.5 * (a + ymax)
        fb = _outer(mu, s2, best, b, known, beta, xs, True)
    T, w = _finish(mu, s2, best, b, known, beta, xs, True)
    return T, w, b
