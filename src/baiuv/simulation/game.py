"""Zero-sum matrix games solved as linear programs (the FWS step of Wang et al., 2021).

Frank-Wolfe Sampling (Section ``ssec:experiments``; Appendix ``app:ss_implementation_details``)
needs, whenever the ``r``-subdifferential of ``F(x) = min_j f_j(x)`` has several
elements, the solution of the game ``max_{z in simplex} min_j (M z)_j`` where row ``j`` of
``M`` is ``(<e_i - x, grad f_j(x)>)_i``. This is the linear program

    maximise v  subject to  M z >= v 1,  sum_i z_i = 1,  z >= 0.

Two solvers of that same LP are provided:

* :func:`solve_game` -- a dense tableau simplex in numba (Bland's rule, exact up to
  rounding), used inside the simulation kernels where one LP per step is needed;
* :func:`solve_game_highs` -- the same LP handed to scipy's HiGHS, the reference against
  which ``tests/unit/test_sim_game.py`` checks :func:`solve_game` (decision D47).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

_TOL = 1e-12


@njit(cache=True)
def solve_game(M):
    """Value and maximiser strategy of ``max_{z in simplex} min_j (M z)_j``.

    The payoff is affinely rescaled to ``M' = 1 + (M - min M) / (max M - min M)`` (entries
    in ``[1, 2]``, so the value is positive), the minimiser's LP ``max sum(u)`` s.t.
    ``M'^T u <= 1``, ``u >= 0`` is solved with a tableau simplex (feasible origin, Bland's
    anti-cycling rule) and the maximiser's strategy is read from the reduced costs of the
    slack variables (LP duality): ``z = y / sum(y)``, ``value' = 1 / sum(y)``.

    Parameters
    ----------
    M : float64 array of shape ``(m, K)``
        Payoff of the maximiser (column player, strategy ``z``) against row ``j``.

    Returns
    -------
    value : float
        ``max_z min_j (M z)_j``.
    z : float64 array of shape ``(K,)``
        An optimal strategy of the maximiser.
    """
    m, K = M.shape
    lo = M.min()
    hi = M.max()
    z = np.empty(K)
    if not (hi - lo > 1e-300):  # constant payoff: every strategy is optimal
        z[:] = 1.0 / K
        return lo, z
    scale = hi - lo
    nc = m + K
    T = np.zeros((K + 1, nc + 1))
    for i in range(K):
        for j in range(m):
            T[i, j] = 1.0 + (M[j, i] - lo) / scale
        T[i, m + i] = 1.0
        T[i, nc] = 1.0
    for j in range(m):
        T[K, j] = -1.0
    basis = np.empty(K, dtype=np.int64)
    for i in range(K):
        basis[i] = m + i
    for _ in range(10_000):
        e = -1
        for j in range(nc):  # Bland: lowest index with a negative reduced cost
            if T[K, j] < -_TOL:
                e = j
                break
        if e < 0:
            break
        r = -1
        best = math.inf
        for i in range(K):
            if T[i, e] > _TOL:
                ratio = T[i, nc] / T[i, e]
                if ratio < best - _TOL or (ratio <= best + _TOL and r >= 0 and basis[i] < basis[r]):
                    best = ratio
                    r = i
        if r < 0:  # unbounded: impossible since M' > 0
            break
        piv = T[r, e]
        for j in range(nc + 1):
            T[r, j] /= piv
        for i in range(K + 1):
            if i != r:
                f = T[i, e]
                if f != 0.0:
                    for j in range(nc + 1):
                        T[i, j] -= f * T[r, j]
        basis[r] = e
    s = 0.0
    for i in range(K):
        y = max(T[K, m + i], 0.0)
        z[i] = y
        s += y
    for i in range(K):
        z[i] /= s
    value = lo + scale * (1.0 / s - 1.0)
    return value, z


def solve_game_highs(M: np.ndarray) -> tuple[float, np.ndarray]:
    """Reference solver: the LP of :func:`solve_game` solved by scipy's HiGHS.

    Parameters
    ----------
    M : array of shape ``(m, K)``
        Payoff of the maximiser.

    Returns
    -------
    (value, z) : the game value and an optimal strategy of the maximiser.
    """
    # scipy.optimize is slow to import: loaded on first use
    from scipy.optimize import linprog

    M = np.asarray(M, dtype=float)
    if M.ndim != 2 or M.size == 0:
        raise ValueError(f"M must be a non-empty 2-D array, got shape {M.shape}")
    m, K = M.shape
    # variables (z_1..z_K, v); minimise -v; v - (M z)_j <= 0; sum z = 1
    c = np.zeros(K + 1)
    c[-1] = -1.0
    A_ub = np.hstack([-M, np.ones((m, 1))])
    A_eq = np.r_[np.ones(K), 0.0][None, :]
    res = linprog(
        c,
        A_ub=A_ub,
        b_ub=np.zeros(m),
        A_eq=A_eq,
        b_eq=[1.0],
        bounds=[(0, None)] * K + [(None, None)],
        method="highs",
    )
    if not res.success:  # pragma: no cover - the LP is always feasible and bounded
        raise RuntimeError(f"HiGHS failed: {res.message}")
    return float(res.x[-1]), np.asarray(res.x[:K])
