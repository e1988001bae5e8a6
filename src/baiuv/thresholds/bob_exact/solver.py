"""The solver: input check and shortcuts (:func:`_bob_front`), exact Box test, region A,
water filling and the general enumeration (:func:`_bob_general`), the public numba
functions and their checked Python wrappers."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from baiuv.thresholds.bob_exact.arms import (
    _INF,
    REGION_B,
    REGION_C,
    Arm,
    _g,
    _h_any,
    _hinv,
    _make_arm_h,
    _phi,
    _valid,
    _x_hat,
)
from baiuv.thresholds.bob_exact.enumeration import (
    _solve_pair,
    _split_bound,
    _split_candidate,
)
from baiuv.thresholds.bob_exact.shortcuts import (
    _bob_front,
    _ev_waterfill,
    _waterfill,
)


@njit(cache=True)
def _bob_core(prog, ev, fast):
    """Optimal ``(value, y1, y2)`` of the program ``prog = (n1, n2, c1, c2, d1, d2, e)``;
    ``value`` is NaN on invalid input.

    ``fast=False`` skips the shortcuts that are not needed for correctness (log-free Box
    test, non-EV and EV water filling): the general enumeration then runs; it exists so
    that tests can compare both paths.
    """
    n1, n2, c1, c2, d1, d2, e = prog
    nan = math.nan
    if fast:
        st, v, y1, y2 = _bob_front(n1, n2, c1, c2, d1, d2, e, ev)
        if st == 0:
            return (v, y1, y2)
        if st == 1:
            return (nan, nan, nan)
    elif not _valid(n1, n2, c1, c2, d1, d2, e):
        return (nan, nan, nan)
    return _bob_general(prog, ev, fast)


@njit(cache=True)
def _bob_general(prog, ev, fast):
    """:func:`_bob_core` after the input check and :func:`_bob_front`: exact Box test,
    region-A case, water filling (``fast``) and the general enumeration."""
    n1, n2, c1, c2, d1, d2, e = prog
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
        a1 = 0.5 * n1 * arm1.hA
        a2 = 0.5 * n2 * arm2.hA
        if e <= a1 + a2:  # both arms inside region A: value = KL budget
            b1 = e * a1 / (a1 + a2) if a1 + a2 > 0.0 else 0.0
            y1 = _hinv(2.0 * b1 / n1, arm1)
            y2 = _hinv(2.0 * (e - b1) / n2, arm2)
            return (e, y1, y2)
        if fast and arm1.ys >= arm1.Y and arm2.ys >= arm2.Y:
            return _waterfill(arm1, arm2, e)
    elif fast and arm1.rt == REGION_C and arm2.rt == REGION_C and c1 < 0.5 and c2 < 0.5:
        cand = _ev_waterfill(arm1, arm2, e)
        if not math.isnan(cand[0]):
            return cand
    lo = max(0.0, e - b2max)
    hi = min(e, b1max)
    best = (-_INF, 0.0, 0.0)
    # flags typed bool, not as literals: one compiled _solve_pair for both (decision D225)
    no_bb = bool(False)  # noqa: UP018
    with_bb = bool(True)  # noqa: UP018
    # stationary points of pairs solved by a 1-D root (good incumbents for pruning)
    for p1 in range(3):
        for p2 in range(3):
            best = _solve_pair(p1, p2, arm1, arm2, e, ev, best, no_bb)
    # end points of the split interval, skipped when an upper bound cannot beat the incumbent
    for b1 in (lo, hi):
        if _split_bound(b1, arm1, arm2, e, ev) > best[0]:
            cand = _split_candidate(b1, arm1, arm2, e, ev)
            if cand[0] > best[0]:
                best = cand
    # piece boundaries (in budget units) of each arm: only needed when V can be affine on a
    # pair of constant-rate pieces with the same rate (EV region B, D1 = D2)
    nb = 2 if (ev and arm1.rt == REGION_B and arm2.rt == REGION_B and d1 == d2) else 0
    for k in range(nb):
        bb1 = 0.5 * n1 * (arm1.hA if k == 0 else _h_any(arm1.ys, arm1))
        if lo < bb1 < hi:
            cand = _split_candidate(bb1, arm1, arm2, e, ev)
            if cand[0] > best[0]:
                best = cand
        bb2 = 0.5 * n2 * (arm2.hA if k == 0 else _h_any(arm2.ys, arm2))
        if lo < e - bb2 < hi:
            cand = _split_candidate(e - bb2, arm1, arm2, e, ev)
            if cand[0] > best[0]:
                best = cand
    # remaining mixed pairs: branch and bound, pruned by the incumbent
    for p1 in range(3):
        for p2 in range(3):
            best = _solve_pair(p1, p2, arm1, arm2, e, ev, best, with_bb)
    return best


@njit(cache=True)
def bob_exact(
    n1: float, n2: float, c1: float, c2: float, d1: float, d2: float, e: float, ev: bool
) -> float:
    r"""Optimal value of the two-arm BoB (``ev=False``) or EV-BoB (``ev=True``) program.

    Implements the optimisation problems of Corollary ``cor:delta_correct_Kinf_thresholds``
    and Corollary ``cor:delta_correct_Kinf_thresholds_ev`` (Appendix
    ``app:ss_Kinf_thresholds``) exactly; see ``docs/bob-exact-proof.md`` for the method and the
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
    return _bob_general((n1, n2, c1, c2, d1, d2, e), ev, True)[0]


@njit(cache=True)
def bob_exact_solution(
    n1: float, n2: float, c1: float, c2: float, d1: float, d2: float, e: float, ev: bool
) -> tuple[float, float, float, float, float]:
    """Optimal value and a maximiser ``(value, x1, y1, x2, y2)`` of the BoB program.

    Same program and method as :func:`bob_exact` (Corollaries
    ``cor:delta_correct_Kinf_thresholds`` and ``cor:delta_correct_Kinf_thresholds_ev``);
    ``x_c`` is the projection of ``1/(1 + y_c)`` on ``[D_c, C_c / y_c]`` (Step 1 of
    ``docs/bob-exact-proof.md``). NaNs on invalid input.
    """
    val, y1, y2 = _bob_core((n1, n2, c1, c2, d1, d2, e), ev, True)
    if math.isnan(val):
        return (val, val, val, val, val)
    x1 = _x_hat(y1, Arm(n1, c1, d1, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0))
    x2 = _x_hat(y2, Arm(n2, c2, d2, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0))
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
