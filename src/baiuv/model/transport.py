"""Transportation costs between two Gaussian arms (Lemma ``lem:calcul``).

All functions are ``@njit(cache=True, error_model="numpy")`` and take scalars. Arm ``a`` is the candidate best
arm (larger mean), arm ``b`` the challenger; ``w_a``, ``w_b`` are weights or counts.
"""

from __future__ import annotations

import math

from numba import njit


@njit(cache=True, error_model="numpy")
def tc_known(mu_a, s2_a, w_a, mu_b, s2_b, w_b):
    """Known-variance cost ``1{mu_a > mu_b} (mu_a - mu_b)^2 / (2 (s2_a/w_a + s2_b/w_b))``."""
    if mu_a <= mu_b or w_a <= 0.0 or w_b <= 0.0:
        return 0.0
    d = mu_a - mu_b
    return 0.5 * d * d / (s2_a / w_a + s2_b / w_b)


@njit(cache=True, error_model="numpy")
def _polish(z, a2, a1, a0):
    """Two Newton steps on ``u^3 + a2 u^2 + a1 u + a0`` from ``z`` (kept when a step fails)."""
    for _ in range(2):
        f = ((z + a2) * z + a1) * z + a0
        fp = (3.0 * z + 2.0 * a2) * z + a1
        if fp == 0.0:
            break
        z_new = z - f / fp
        if not math.isfinite(z_new):
            break
        z = z_new
    return z


@njit(cache=True, error_model="numpy")
def _depressed(a2, a1, a0):
    """``(p, q, disc)`` of ``u^3 + a2 u^2 + a1 u + a0`` in depressed form ``t^3 + p t + q``
    (``u = t - a2/3``), ``disc = (q/2)^2 + (p/3)^3``: three real roots when ``p < 0`` and
    ``disc <= 0``, one otherwise."""
    p = a1 - a2 * a2 / 3.0
    q = 2.0 * a2 * a2 * a2 / 27.0 - a2 * a1 / 3.0 + a0
    return p, q, (q * 0.5) ** 2 + (p / 3.0) ** 3


@njit(cache=True, error_model="numpy")
def _unknown_cubic(mu_a, s2_a, mu_b, s2_b, x):
    """The first-order condition of :func:`lambda_unknown` in scaled coordinates
    ``u = (lambda - m) / h`` (``m`` midpoint, ``h`` half-gap, ``x = w_b / w_a``):
    ``(h, m, sa, sb, a2, a1, a0)``, with the monic cubic
    ``u^3 + a2 u^2 + a1 u + a0 = 0``, i.e.
    ``(1+x) u^3 - (x-1) u^2 + [(sb-1) + x (sa-1)] u - [(1+sb) - x (1+sa)] = 0``."""
    h = 0.5 * (mu_a - mu_b)
    m = 0.5 * (mu_a + mu_b)
    sa = s2_a / (h * h)
    sb = s2_b / (h * h)
    inv = 1.0 / (1.0 + x)
    a2 = -(x - 1.0) * inv
    a1 = ((sb - 1.0) + x * (sa - 1.0)) * inv
    a0 = -((1.0 + sb) - x * (1.0 + sa)) * inv
    return h, m, sa, sb, a2, a1, a0


@njit(cache=True, error_model="numpy")
def single_stationary_point(mu_a, s2_a, mu_b, s2_b, x):
    """Whether ``log1p((l - mu_a)^2 / s2_a) + x log1p((l - mu_b)^2 / s2_b)`` has a single
    stationary point, hence any local minimiser is the one :func:`lambda_unknown` returns:
    its cubic has one real root (``p >= 0``, or a discriminant positive by ``1e-8`` relative
    to its larger term, far above its rounding)."""
    a2, a1, a0 = _unknown_cubic(mu_a, s2_a, mu_b, s2_b, x)[4:]
    p, q, disc = _depressed(a2, a1, a0)
    if p >= 0.0:
        return True
    return disc > 1e-8 * max((q * 0.5) ** 2, -((p / 3.0) ** 3))


@njit(cache=True, error_model="numpy")
def _cubic_real_roots(a2, a1, a0):
    """Real roots of ``u^3 + a2 u^2 + a1 u + a0``: ``(n, r0, r1, r2)``, the first ``n`` valid.

    Trigonometric form when three roots are real, Cardano otherwise, then two Newton
    polishing steps on the original polynomial. Scalars only (no allocation: the GLR
    statistic and the oracles call it at every sample).
    """
    p, q, disc = _depressed(a2, a1, a0)
    shift = -a2 / 3.0
    if p < 0.0 and disc <= 0.0:
        r = 2.0 * math.sqrt(-p / 3.0)
        arg = 3.0 * q / (p * r) if r > 0.0 else 0.0
        arg = min(1.0, max(-1.0, arg))
        phi = math.acos(arg) / 3.0
        r0 = _polish(r * math.cos(phi - 2.0 * math.pi * 0 / 3.0) + shift, a2, a1, a0)
        r1 = _polish(r * math.cos(phi - 2.0 * math.pi * 1 / 3.0) + shift, a2, a1, a0)
        r2 = _polish(r * math.cos(phi - 2.0 * math.pi * 2 / 3.0) + shift, a2, a1, a0)
        return 3, r0, r1, r2
    sd = math.sqrt(max(disc, 0.0))
    u = -q * 0.5 + sd
    v = -q * 0.5 - sd
    r0 = math.copysign(abs(u) ** (1.0 / 3.0), u) + math.copysign(abs(v) ** (1.0 / 3.0), v)
    r0 += shift
    return 1, _polish(r0, a2, a1, a0), 0.0, 0.0


@njit(cache=True, error_model="numpy")
def _h_scaled(u, sa, sb, x):
    """Objective in scaled coordinates (mu_a = 1, mu_b = -1): ``d_a(u) + x d_b(u)``."""
    return math.log1p((u - 1.0) ** 2 / sa) + x * math.log1p((u + 1.0) ** 2 / sb)


@njit(cache=True, error_model="numpy")
def lambda_unknown(mu_a, s2_a, w_a, mu_b, s2_b, w_b):
    """Minimiser ``lambda`` and minimum of ``sum_c w_c/2 log(1 + (mu_c - lambda)^2 / s2_c)``.

    The infimum over ``lambda in [mu_b, mu_a]`` of Lemma ``lem:calcul``. The first-order
    condition is the cubic ``P_a(lambda, x)`` of Lemma
    ``lem:characteristic_time_properties_to_show_equivalent`` (with ``x = w_b / w_a``),
    solved in closed form after the affine change ``u = (lambda - m) / h`` (``m`` midpoint,
    ``h`` half-gap), which leaves the objective invariant; the real root in ``[-1, 1]``
    with the smallest objective is returned (end points are kept as safe candidates).

    Returns
    -------
    (lam, value) : the minimiser and ``inf_lambda sum_c w_c/2 log(...)``; ``(mu_a, 0)`` when
    ``mu_a <= mu_b`` or a weight is zero.
    """
    if mu_a <= mu_b:
        return mu_a, 0.0
    if w_b <= 0.0:  # only arm a counts: minimised at its own mean
        return mu_a, 0.0
    if w_a <= 0.0:
        return mu_b, 0.0
    x = w_b / w_a
    h, m, sa, sb, a2, a1, a0 = _unknown_cubic(mu_a, s2_a, mu_b, s2_b, x)
    n, r0, r1, r2 = _cubic_real_roots(a2, a1, a0)
    # Candidates: the end points u = 1, then u = -1, then the roots in (-1, 1) in order, each
    # taken when strictly below the best so far. That is the first interior root with the
    # smallest value when that value is below both end points' (else the end-point choice).
    # The interior roots are evaluated first; the end points, x log1p(4/sb) and log1p(4/sa),
    # only when a certified lower bound of one (log1p(z) >= 2z/(2+z), widened by 1e-12 for
    # the rounding of both sides) does not exceed the interior value.
    in_u = 0.0
    in_v = math.inf
    for i in range(n):
        u = r0 if i == 0 else (r1 if i == 1 else r2)
        if u > -1.0 and u < 1.0:
            v = _h_scaled(u, sa, sb, x)
            if v < in_v:
                in_v = v
                in_u = u
    if in_v < math.inf:
        zb = 4.0 / sb
        za = 4.0 / sa
        if in_v < x * (2.0 * zb / (2.0 + zb)) * (1.0 - 1e-12) and in_v < (2.0 * za / (2.0 + za)) * (
            1.0 - 1e-12
        ):
            return m + h * in_u, 0.5 * w_a * in_v
    best_u = 1.0
    best_v = _h_scaled(1.0, sa, sb, x)
    v = _h_scaled(-1.0, sa, sb, x)
    if v < best_v:
        best_u = -1.0
        best_v = v
    if in_v < best_v:
        best_v = in_v
        best_u = in_u
    return m + h * best_u, 0.5 * w_a * best_v


@njit(cache=True, error_model="numpy")
def tc_unknown(mu_a, s2_a, w_a, mu_b, s2_b, w_b):
    """Unknown-variance cost ``C(a, b; w)`` of Lemma ``lem:calcul``."""
    return lambda_unknown(mu_a, s2_a, w_a, mu_b, s2_b, w_b)[1]


#: Relative margin of :func:`tc_unknown_bounds` (and of the known-variance upper bound the
#: simulation loop tries first): far above the rounding of the bounds and of
#: :func:`tc_unknown` (about 1e-15 relative), far below the gaps the bounds are used to decide.
BOUND_MARGIN = 1e-9


@njit(cache=True, error_model="numpy")
def _widened(lo, hi):
    """``(lo, hi)`` widened by :data:`BOUND_MARGIN` relative to ``hi`` plus ``1e-300``;
    ``(-inf, inf)`` when either end is not finite."""
    tol = BOUND_MARGIN * hi + 1e-300
    lo = lo - tol
    hi = hi + tol
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return -math.inf, math.inf
    return lo, hi


@njit(cache=True, error_model="numpy")
def tc_unknown_bounds(mu_a, s2_a, w_a, mu_b, s2_b, w_b):
    """Certified enclosure ``(lo, hi)`` of :func:`tc_unknown` at a fraction of its cost.

    With ``f(l) = w_a/2 log(1 + (mu_a - l)^2/s2_a) + w_b/2 log(1 + (mu_b - l)^2/s2_b)``
    and ``C = min f`` (attained in ``[mu_b, mu_a]``):

    * ``hi``: ``f`` at the known-variance minimiser ``l0`` (weights ``w/s2``), so ``C <= f(l0)``;
    * ``lo``: when ``s2_a`` and ``s2_b`` exceed ``D^2`` (``D = mu_a - mu_b``), ``f`` is
      strongly convex on ``[mu_b, mu_a]`` with modulus
      ``m = sum_c w_c (s2_c - D^2) / (s2_c + D^2)^2`` (the smallest second derivative of each
      term there), so ``C >= f(l0) - f'(l0)^2 / (2 m)``; otherwise concavity of ``log1p`` on
      ``[0, Q_c]`` (``Q_c = D^2/s2_c``, the largest argument there) gives
      ``log1p(q) >= q log1p(Q_c)/Q_c`` and ``C`` is at least the known-variance cost with
      variances ``s2_c Q_c / log1p(Q_c)``.

    Both are widened by :data:`BOUND_MARGIN` relative to ``hi`` (plus ``1e-300``), which
    covers the rounding of the bounds and of the computed :func:`tc_unknown` (the value of
    ``f`` at a polished root of its cubic, never below ``C`` by more than rounding and above
    it by a second-order term). ``tests/unit/test_transport.py`` checks the
    enclosure on random and extreme inputs. Returns ``(-inf, inf)`` where the caller must
    compute the cost itself (no positive gap, weight or variance, or a non-finite bound).
    """
    if not (mu_a > mu_b and w_a > 0.0 and w_b > 0.0 and s2_a > 0.0 and s2_b > 0.0):
        return -math.inf, math.inf
    pa = w_a / s2_a
    pb = w_b / s2_b
    lam = (pa * mu_a + pb * mu_b) / (pa + pb)
    lam = min(max(lam, mu_b), mu_a)
    ua = lam - mu_a
    ub = lam - mu_b
    qa = ua * ua
    qb = ub * ub
    hi = 0.5 * (w_a * math.log1p(qa / s2_a) + w_b * math.log1p(qb / s2_b))
    d = mu_a - mu_b
    d2 = d * d
    if s2_a > d2 and s2_b > d2:
        fp = w_a * ua / (s2_a + qa) + w_b * ub / (s2_b + qb)
        ea = s2_a + d2
        eb = s2_b + d2
        m = w_a * (s2_a - d2) / (ea * ea) + w_b * (s2_b - d2) / (eb * eb)
        lo = hi - fp * fp / (2.0 * m)
    else:
        za = d2 / s2_a
        zb = d2 / s2_b
        lo = 0.5 * d2 / (s2_a * za / (math.log1p(za) * w_a) + s2_b * zb / (math.log1p(zb) * w_b))
    return _widened(lo, hi)


@njit(cache=True, error_model="numpy")
def tc_unknown_rational_bounds(mu_a, s2_a, w_a, mu_b, s2_b, w_b):
    """A looser enclosure ``(lo, hi)`` of :func:`tc_unknown` without logarithms.

    On ``[mu_b, mu_a]`` the argument ``q_c`` of each ``log1p`` is at most
    ``Q_c = D^2/s2_c`` (``D = mu_a - mu_b``), and ``q/(1 + Q_c/2) <= 2q/(2 + q) <= log1p(q)
    <= q`` there: ``hi`` is the known-variance cost (:func:`tc_known`), ``lo`` the
    known-variance cost with variances ``s2_c + D^2/2``. Both are widened as in
    :func:`tc_unknown_bounds` (:func:`_widened`); ``(-inf, inf)`` where that function returns
    it. A few divisions where :func:`tc_unknown_bounds` takes two ``log1p``."""
    if not (mu_a > mu_b and w_a > 0.0 and w_b > 0.0 and s2_a > 0.0 and s2_b > 0.0):
        return -math.inf, math.inf
    d = mu_a - mu_b
    d2 = d * d
    hi = 0.5 * d2 / (s2_a / w_a + s2_b / w_b)
    h2 = 0.5 * d2
    lo = 0.5 * d2 / ((s2_a + h2) / w_a + (s2_b + h2) / w_b)
    return _widened(lo, hi)


@njit(cache=True, error_model="numpy")
def tc(mu_a, s2_a, w_a, mu_b, s2_b, w_b, known):
    """Dispatch: known-variance (plug-in) cost if ``known`` else unknown-variance cost."""
    if known:
        return tc_known(mu_a, s2_a, w_a, mu_b, s2_b, w_b)
    return tc_unknown(mu_a, s2_a, w_a, mu_b, s2_b, w_b)
