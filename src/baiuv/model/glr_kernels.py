"""GLR statistics ``Z_a(t)`` and ``Z^EV_a(t)`` (Section ``ssec:GLR_stopping_rule``)."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from baiuv.model.transport import tc_known, tc_unknown


@njit(cache=True, error_model="numpy")
def empirical_best(means):
    """Index of the largest empirical mean (first one on ties)."""
    return int(np.argmax(means))


@njit(cache=True, error_model="numpy")
def glr_stats_into(counts, means, variances, known, out):
    """GLR statistic of every arm against the empirical best arm, written to ``out``.

    ``Z_a = inf_{lambda} sum_{b in {a, best}} N_b/2 log(1 + (mu_b - lambda)^2 / s2_b)``
    (unknown variance, ``tc_unknown``, eq. ``def_stopping_rule_glrt``) or ``Z^EV_a =
    (mu_best - mu_a)^2 / (2 (s2_a/N_a + s2_best/N_best))`` (``known=True``: empirical
    variance plugged in, ``tc_known``, eq. ``def_stopping_rule_evglrt``). ``+inf`` at the
    empirical best arm (first maximiser, decision D3), whose index is returned. Used by the
    public :func:`baiuv.glr_statistics` and by the simulation loop.
    """
    K = means.shape[0]
    best = empirical_best(means)
    for a in range(K):
        if a == best:
            out[a] = math.inf
        elif known:
            out[a] = tc_known(
                means[best], variances[best], counts[best], means[a], variances[a], counts[a]
            )
        else:
            out[a] = tc_unknown(
                means[best], variances[best], counts[best], means[a], variances[a], counts[a]
            )
    return best


@njit(cache=True, error_model="numpy")
def glr_stats(counts, means, variances, known):
    """:func:`glr_stats_into` in a new array."""
    out = np.empty(means.shape[0])
    glr_stats_into(counts, means, variances, known, out)
    return out
