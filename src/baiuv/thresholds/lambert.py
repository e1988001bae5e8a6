"""Lambert-function helpers of Appendix "The Lambert W Function" (app:lambert_W_functions).

The paper uses, for ``x >= 1``, the transforms (eq:lambert_transforms)

    Wbar_{-1}(x) = -W_{-1}(-exp(-x))   and   Wbar_0(x) = -W_0(-exp(-x)).

Both are inverses of ``h(w) = w - ln(w)``: ``Wbar_{-1}`` is the branch with ``w >= 1`` and
``Wbar_0`` the branch with ``w in (0, 1]`` (Lemma 49, lem:lambert_branches_properties, part 1).
Evaluating ``W(-exp(-x))`` directly is inaccurate near the branch point (``x -> 1``) and
underflows for large ``x``, so both functions are computed here by solving
``h(w) = x`` with a monotone Newton iteration in a well-conditioned variable:

* ``Wbar_{-1}``: ``w = 1 + d`` with ``d >= 0`` solving ``d - log1p(d) = x - 1``;
* ``Wbar_0``: ``w = exp(l)`` with ``l <= 0`` solving ``expm1(l) - l = x - 1``.

Both left-hand sides are evaluated with a Taylor series near 0, so the relative accuracy
is close to machine precision for every ``x >= 1`` (checked against
``scipy.special.lambertw`` in the tests). The scalar kernels are numba ``njit`` functions,
usable from the threshold kernels.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

__all__ = [
    "lambert_wbar_m1",
    "lambert_wbar_0",
    "log_lambert_wbar_0",
    "wbar_m1_scalar",
    "log_wbar_0_scalar",
]

_SERIES_CUT = 0.1
_MAX_ITER = 100


@njit(cache=True)
def _phi(d: float) -> float:
    """``d - log1p(d)`` accurate for small ``|d|`` (series), ``d > -1``."""
    if abs(d) < _SERIES_CUT:
        # sum_{k>=2} (-1)^k d^k / k, 24 terms: |d|^22 < 1e-22 relative to d^2/2.
        s = 0.0
        p = d * d
        sign = 1.0
        for k in range(2, 26):
            s += sign * p / k
            p *= d
            sign = -sign
        return s
    return d - math.log1p(d)


@njit(cache=True)
def _psi(l: float) -> float:
    """``expm1(l) - l`` accurate for small ``|l|`` (series)."""
    if abs(l) < _SERIES_CUT:
        s = 0.0
        p = l * l
        fact = 2.0
        for k in range(2, 22):
            s += p / fact
            p *= l
            fact *= k + 1
        return s
    return math.expm1(l) - l


@njit(cache=True)
def wbar_m1_scalar(x: float) -> float:
    """Scalar ``Wbar_{-1}(x) = -W_{-1}(-e^{-x})`` for ``x >= 1`` (nan otherwise).

    Solves ``d - log1p(d) = x - 1`` for ``d >= 0`` by Newton's method started above the
    root (``phi`` is convex increasing on ``[0, inf)``, so the iterates decrease
    monotonically to the root). The start is the smaller of two upper bounds:
    ``u + sqrt(u^2 + 2u)`` (from ``phi(d) >= d^2 / (2(1 + d))``) and
    ``x + ln x + min(1/2, 1/sqrt(x)) - 1`` (Lemma lem:lambert_branches_properties).
    """
    if not (x >= 1.0):
        return math.nan
    if math.isinf(x):
        return math.inf
    u = x - 1.0
    if u == 0.0:
        return 1.0
    d1 = u + math.sqrt(u * u + 2.0 * u)
    d2 = x + math.log(x) + min(0.5, 1.0 / math.sqrt(x)) - 1.0
    d = min(d1, d2)
    for _ in range(_MAX_ITER):
        step = (_phi(d) - u) * (1.0 + d) / d
        if step <= 0.0:
            break
        d_new = d - step
        if d_new <= 0.0:
            d_new = 0.5 * d
        if d - d_new <= 4e-16 * d:
            d = d_new
            break
        d = d_new
    return 1.0 + d


@njit(cache=True)
def log_wbar_0_scalar(x: float) -> float:
    """Scalar ``ln Wbar_0(x)`` for ``x >= 1`` (nan otherwise); finite even when
    ``Wbar_0(x)`` underflows.

    Solves ``expm1(l) - l = x - 1`` for ``l <= 0``; ``psi(l) = expm1(l) - l`` is convex and
    decreasing on ``(-inf, 0]`` so Newton's method started left of the root (where
    ``psi > x - 1``) increases monotonically to it. Starts: ``-x + e^{-x}`` (Lemma
    lem:lambert_branches_properties lower bound ``Wbar_0(x) >= exp(-x + e^{-x})``) and the
    local expansion ``-p - p^2/3`` with ``p = sqrt(2(x - 1))`` when it lies left of the root.
    """
    if not (x >= 1.0):
        return math.nan
    if math.isinf(x):
        return -math.inf
    u = x - 1.0
    if u == 0.0:
        return 0.0
    l_lo = -x + math.exp(-x)
    p = math.sqrt(2.0 * u)
    l_c = -p - p * p / 3.0
    l = l_lo
    if l_c > l_lo and _psi(l_c) >= u:
        l = l_c
    for _ in range(_MAX_ITER):
        g = _psi(l) - u
        if g <= 0.0:
            break
        dg = math.expm1(l)  # psi'(l) < 0 for l < 0
        if dg == 0.0:
            break
        l_new = l - g / dg
        if l_new >= 0.0:
            l_new = 0.5 * l
        if abs(l_new - l) <= 4e-16 * abs(l):
            l = l_new
            break
        l = l_new
    return l


# Elementwise maps as plain njit loops (compiled on first use), not ``numba.vectorize``
# ufuncs with eager signatures: those are built at import time, which every pipeline job
# would pay even when it never evaluates a Lambert function.
_WBAR_M1 = 0
_LOG_WBAR_0 = 1


@njit(cache=True)
def _map(which, a):
    """``wbar_m1_scalar`` (``which == 0``) or ``log_wbar_0_scalar`` on each entry of ``a``."""
    out = np.empty_like(a)
    for i in range(a.size):
        out[i] = wbar_m1_scalar(a[i]) if which == _WBAR_M1 else log_wbar_0_scalar(a[i])
    return out


def _elementwise(which: int, arr: np.ndarray) -> np.ndarray:
    flat = np.ascontiguousarray(arr, dtype=np.float64).reshape(-1)
    return _map(which, flat).reshape(arr.shape)


def _check_domain(x, name: str = "x") -> np.ndarray:
    arr = np.asarray(x, dtype=np.float64)
    if np.any(np.isnan(arr)) or np.any(arr < 1.0):
        raise ValueError(f"{name} must be >= 1 (domain of the Lambert transforms), got {x!r}")
    return arr


def lambert_wbar_m1(x):
    """``Wbar_{-1}(x) = -W_{-1}(-e^{-x})`` for ``x >= 1`` (vectorised).

    Implements eq:lambert_transforms of Appendix app:lambert_W_functions: the unique
    ``w >= 1`` with ``w - ln(w) = x``. Increasing and strictly concave, with
    ``x + ln x <= Wbar_{-1}(x) <= x + ln x + min(1/2, 1/sqrt(x))``
    (Lemma lem:lambert_branches_properties).

    Parameters
    ----------
    x : float or array_like
        Argument(s), ``>= 1``; ``+inf`` maps to ``+inf``.

    Returns
    -------
    float or numpy.ndarray
        Same shape as ``x``.

    Raises
    ------
    ValueError
        If some ``x < 1`` or is nan.
    """
    arr = _check_domain(x)
    out = _elementwise(_WBAR_M1, arr)
    return float(out) if np.ndim(out) == 0 else out


def lambert_wbar_0(x):
    """``Wbar_0(x) = -W_0(-e^{-x})`` for ``x >= 1`` (vectorised).

    Implements eq:lambert_transforms of Appendix app:lambert_W_functions: the unique
    ``w in (0, 1]`` with ``w - ln(w) = x``. Decreasing and strictly convex, with
    ``exp(-x + e^{-x}) <= Wbar_0(x) <= exp(-x + e^{1-x})``
    (Lemma lem:lambert_branches_properties). Underflows to 0 for ``x > ~745``; use
    :func:`log_lambert_wbar_0` there.

    Parameters
    ----------
    x : float or array_like
        Argument(s), ``>= 1``.

    Returns
    -------
    float or numpy.ndarray

    Raises
    ------
    ValueError
        If some ``x < 1`` or is nan.
    """
    arr = _check_domain(x)
    out = np.exp(_elementwise(_LOG_WBAR_0, arr))
    return float(out) if np.ndim(out) == 0 else out


def log_lambert_wbar_0(x):
    """``ln Wbar_0(x)`` for ``x >= 1`` (vectorised), finite where ``Wbar_0`` underflows.

    See :func:`lambert_wbar_0` (eq:lambert_transforms).

    Raises
    ------
    ValueError
        If some ``x < 1`` or is nan.
    """
    arr = _check_domain(x)
    out = _elementwise(_LOG_WBAR_0, arr)
    return float(out) if np.ndim(out) == 0 else out
