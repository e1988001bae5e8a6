"""The statistics cache of a GLR run: one float64 array ``zc`` of ``N_ZC`` rows and ``K``
columns, read and filled by the stopping check
(:func:`~baiuv.simulation.rules.stopping.glr_stop_check`) and the TCI challenger
(:func:`~baiuv.simulation.rules.tci.tci_challenger`), invalidated by each sample
(:func:`invalidate`).

Row ``ZC_Z`` holds ``Z_a(t)`` (or ``Z^EV_a(t)``) against the empirical best arm and row
``ZC_THR`` the pair threshold of a family that does not depend on ``t`` (``nan`` until
computed), both valid where ``zc[ZC_OK, a] != 0`` (decision D160); the certified
enclosures of ``Z_a`` (unknown variances), logarithmic ``[ZC_ZLO, ZC_ZHI]`` valid where
``ZC_BND`` (decision D210) and rational ``[ZC_RLO, ZC_RHI]`` valid where ``ZC_RAT``
(decision D216); ``log N_a`` in ``ZC_LOGN``, valid where ``ZC_LOG``. A flag is ``1.0``
(valid) or ``0.0``. One sample of arm ``j`` invalidates the statistics of ``j`` only, or of
every arm when ``j`` is (or the sample makes a new) empirical best arm; it invalidates
``log N_j``. A cache whose flags are all ``0`` is always valid (:func:`new_zcache`).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .statistics import pair_stat

ZC_Z = 0  # Z_a(t) against the empirical best arm
ZC_THR = 1  # pair threshold (families that do not depend on t), nan until computed
ZC_ZLO = 2  # logarithmic enclosure of Z_a (tc_unknown_bounds)
ZC_ZHI = 3
ZC_RLO = 4  # rational enclosure of Z_a (tc_unknown_rational_bounds)
ZC_RHI = 5
ZC_LOGN = 6  # log N_a
ZC_OK = 7  # flags: Z and THR valid
ZC_BND = 8  # logarithmic enclosure valid
ZC_RAT = 9  # rational enclosure valid
ZC_LOG = 10  # log N_a valid
N_ZC = 11


@njit(cache=True)
def new_zcache(K):
    """An empty cache of ``K`` arms (every flag ``0``)."""
    return np.zeros((N_ZC, K))


@njit(cache=True)
def exact_zcache(Z):
    """A cache holding the statistics ``Z`` (every ``Z_a`` valid, no threshold, no
    enclosure): the stopping check and the TCI challenger then read ``Z`` only."""
    K = Z.shape[0]
    zc = np.zeros((N_ZC, K))
    for a in range(K):
        zc[ZC_Z, a] = Z[a]
        zc[ZC_THR, a] = np.nan
        zc[ZC_OK, a] = 1.0
    return zc


@njit(cache=True, inline="always")
def invalidate(zc, arm, best, new_best):
    """Invalidate what one sample of ``arm`` changes, ``best`` being the empirical best arm
    before the sample and ``new_best`` after it."""
    zc[ZC_LOG, arm] = 0.0
    if arm == best or new_best != best:
        for a in range(zc.shape[1]):
            zc[ZC_OK, a] = 0.0
            zc[ZC_BND, a] = 0.0
            zc[ZC_RAT, a] = 0.0
    else:
        zc[ZC_OK, arm] = 0.0
        zc[ZC_BND, arm] = 0.0
        zc[ZC_RAT, arm] = 0.0


@njit(cache=True)
def refresh_zcache(zc, best, plug_in, counts, means, variances):
    """Compute the statistic of every challenger missing from the cache (the degeneracy
    guard and a registered step kernel read all of them)."""
    mb = means[best]
    sb = variances[best]
    nb = counts[best]
    for a in range(zc.shape[1]):
        if a != best and zc[ZC_OK, a] == 0.0:
            zc[ZC_Z, a] = pair_stat(plug_in, mb, sb, nb, means[a], variances[a], counts[a])
            zc[ZC_THR, a] = math.nan
            zc[ZC_OK, a] = 1.0
