"""beta-EB-TCI and beta-EB-EVTCI (Section ``ssec:instantiating_wrappers``, paragraph "Top Two
algorithm"): the empirical best arm (leader) with probability ``beta``, else the TCI
challenger ``argmin_{a != leader} C_t(leader, a) + log N_{t,a}``.

:func:`step_tci` is the plain step (every statistic given), which the identifier runs; the
GLR loop writes it out with its caches (:mod:`baiuv.simulation.rules.loop`).
"""

from __future__ import annotations

import math

from numba import njit


@njit(cache=True)
def step_tci(counts, Z, best, beta, rng):
    """beta-EB-TCI / beta-EB-EVTCI (paragraph "Top Two algorithm").

    Leader = empirical best, pulled with probability ``beta``; otherwise the TCI challenger
    ``argmin_{a != leader} C_t(leader, a) + log N_{t,a}`` where ``C_t(leader, a)`` is the
    GLR (or EV-GLR) statistic ``Z_a(t)`` already computed by the stopping rule.
    """
    if rng.random() < beta:
        return best
    K = counts.shape[0]
    arm = -1
    vmin = math.inf
    for a in range(K):
        if a == best:
            continue
        v = Z[a] + math.log(counts[a])
        if v < vmin or arm < 0:
            vmin = v
            arm = a
    return arm
