"""The statistics cache of a GLR run: a float64 array ``zc`` of ``N_ZC`` rows and ``K``
columns and its validity flags, a ``uint8`` array ``zf`` of ``N_ZF`` rows and ``K``
columns, read and filled by the stopping check
(:func:`~baiuv.simulation.rules.stopping.glr_stop_check`) and the TCI challenger
(:func:`~baiuv.simulation.rules.tci.tci_challenger`), invalidated by each sample
(:func:`invalidate`).

Row ``ZC_Z`` holds ``Z_a(t)`` (or ``Z^EV_a(t)``) against the empirical best arm and row
``ZC_THR`` the pair threshold of a family that does not depend on ``t`` (``nan`` until
computed), both valid where ``zf[ZF_OK, a] != 0`` (decision D160); the certified
enclosures of ``Z_a`` (unknown variances), logarithmic ``[ZC_ZLO, ZC_ZHI]`` valid where
``ZF_BND`` (decision D210) and rational ``[ZC_RLO, ZC_RHI]`` valid where ``ZF_RAT``
(decision D216); ``log N_a`` in ``ZC_LOGN``, valid where ``ZF_LOG``. Row ``ZC_LB`` holds a
lower bound of the threshold of the pair (``ZC_LBB``, ``a``) at any later counts up to ``ZC_HIA``
(for ``a``) and ``ZC_HIB`` (for ``ZC_LBB``) while the states of ``a`` and ``ZC_LBB`` stay
at the peeling levels ``ZC_LVA`` and ``ZC_LVB`` (decision D254), valid where ``ZF_LB``; no
sample invalidates it. Rows ``ZC_UB`` ... ``ZC_UHB`` hold likewise an upper bound of that
pair threshold (best arm ``ZC_UBB``) at counts up to ``ZC_UHA`` and ``ZC_UHB``, the states at
the levels ``ZC_ULVA`` and ``ZC_ULVB`` (D348: cached upper bounds of the pair thresholds), valid where ``ZF_UB``. A flag is ``1``
(valid) or ``0``; flags are bytes, apart from the values, so that testing one is a byte
compare (decision D253). One sample of arm ``j`` invalidates the statistics of ``j``
only, or of every arm when ``j`` is (or the sample makes a new) empirical best arm; it
invalidates ``log N_j``. A cache whose flags are all ``0`` is always valid
(:func:`new_zcache`).

With an indifference zone ``epsilon > 0`` the stopping check reads and fills a second
block of rows, ``EPS_ROWS`` further down (``ZC_Z + EPS_ROWS`` ... ``ZC_RHI + EPS_ROWS``:
the ε-statistic, its pair threshold and its enclosures) with its flags ``EPS_FLAGS``
further down (``ZF_OK + EPS_FLAGS`` ... ``ZF_RAT + EPS_FLAGS``), invalidated with the first
block; the first block keeps the statistics of ``epsilon = 0`` (D291: the
epsilon-statistics in their own cache block). The TCI challenger with a sampling epsilon
``> 0`` (:func:`~baiuv.simulation.rules.tci.eps_challenger`) reads and fills the epsilon
block of the same zone (D323: the Top Two rules take their challenger with the run's
sampling epsilon).
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
ZC_LB = 7  # lower bound of the pair threshold (best arm ZC_LBB, challenger a), D254
ZC_LBB = 8  # the best arm of that pair
ZC_LVA = 9  # peeling level of a's state when the bound was taken
ZC_LVB = 10  # peeling level of ZC_LBB's state when the bound was taken
ZC_HIA = 11  # largest count of a for which the bound holds
ZC_HIB = 12  # largest count of ZC_LBB for which the bound holds
EPS_ROWS = 13  # offset of the epsilon block: rows ZC_Z ... ZC_RHI of the epsilon-statistic
ZC_UB = 19  # upper bound of the pair threshold (best arm ZC_UBB, challenger a), D348
ZC_UBB = 20  # the best arm of that pair
ZC_ULVA = 21  # peeling level of a's state when the bound was taken
ZC_ULVB = 22  # peeling level of ZC_UBB's state when the bound was taken
ZC_UHA = 23  # largest count of a for which the bound holds
ZC_UHB = 24  # largest count of ZC_UBB for which the bound holds
N_ZC = 25
# rows of the flags zf
ZF_OK = 0  # Z and THR valid
ZF_BND = 1  # logarithmic enclosure valid
ZF_RAT = 2  # rational enclosure valid
ZF_LOG = 3  # log N_a valid
ZF_LB = 4  # lower bound of the pair threshold valid (kept across samples)
EPS_FLAGS = 5  # offset of the epsilon block's flags: ZF_OK ... ZF_RAT of the epsilon-statistic
ZF_UB = 8  # upper bound of the pair threshold valid (kept across samples)
N_ZF = 9


@njit(cache=True)
def new_zcache(K):
    """An empty cache of ``K`` arms: ``(zc, zf)``, every flag ``0``."""
    return np.zeros((N_ZC, K)), np.zeros((N_ZF, K), dtype=np.uint8)


@njit(cache=True)
def exact_zcache(Z):
    """A cache holding the statistics ``Z`` (every ``Z_a`` valid, no threshold, no
    enclosure), ``(zc, zf)``: the stopping check and the TCI challenger then read ``Z``
    only."""
    K = Z.shape[0]
    zc, zf = new_zcache(K)
    for a in range(K):
        zc[ZC_Z, a] = Z[a]
        zc[ZC_THR, a] = np.nan
        zf[ZF_OK, a] = 1
    return zc, zf


@njit(cache=True, inline="always")
def invalidate(zf, arm, best, new_best):
    """Invalidate what one sample of ``arm`` changes (flags ``zf``), ``best`` being the
    empirical best arm before the sample and ``new_best`` after it."""
    zf[ZF_LOG, arm] = 0
    if arm == best or new_best != best:
        for a in range(zf.shape[1]):
            forget_stats(zf, a)
    else:
        forget_stats(zf, arm)


@njit(cache=True, inline="always")
def forget_stats(zf, a):
    """Invalidate the statistics of challenger ``a`` (both blocks: ``Z_a``, its pair
    threshold and enclosures, and their epsilon versions); the pair lower bound and
    ``log N_a`` stay."""
    zf[ZF_OK, a] = 0
    zf[ZF_BND, a] = 0
    zf[ZF_RAT, a] = 0
    zf[ZF_OK + EPS_FLAGS, a] = 0
    zf[ZF_BND + EPS_FLAGS, a] = 0
    zf[ZF_RAT + EPS_FLAGS, a] = 0


@njit(cache=True)
def refresh_zcache(zc, zf, best, plug_in, counts, means, variances):
    """Compute the statistic of every challenger missing from the cache (the degeneracy
    guard and a registered step kernel read all of them)."""
    mb = means[best]
    sb = variances[best]
    nb = counts[best]
    for a in range(zc.shape[1]):
        if a != best and zf[ZF_OK, a] == 0:
            zc[ZC_Z, a] = pair_stat(plug_in, mb, sb, nb, means[a], variances[a], counts[a])
            zc[ZC_THR, a] = math.nan
            zf[ZF_OK, a] = 1


@njit(cache=True, inline="always")
def share_statistics(src_zc, src_zf, dst_zc, dst_zf):
    """Copy into the cache ``dst_zc, dst_zf`` the statistics and enclosures valid in
    ``src_zc, src_zf`` and missing from it (rows ``ZC_Z``, ``ZC_ZLO``/``ZC_ZHI``,
    ``ZC_RLO``/``ZC_RHI``; ``ZC_THR`` of a copied statistic becomes ``nan``): two caches
    invalidated by the same samples hold values of the same functions of the same
    statistics, so a copy is the value ``dst`` would compute (the stopping levels of one
    run, :func:`~baiuv.simulation.rules.loop.check_levels`)."""
    for a in range(src_zf.shape[1]):
        if src_zf[ZF_OK, a] != 0 and dst_zf[ZF_OK, a] == 0:
            dst_zc[ZC_Z, a] = src_zc[ZC_Z, a]
            dst_zc[ZC_THR, a] = math.nan
            dst_zf[ZF_OK, a] = 1
        if src_zf[ZF_BND, a] != 0 and dst_zf[ZF_BND, a] == 0:
            dst_zc[ZC_ZLO, a] = src_zc[ZC_ZLO, a]
            dst_zc[ZC_ZHI, a] = src_zc[ZC_ZHI, a]
            dst_zf[ZF_BND, a] = 1
        if src_zf[ZF_RAT, a] != 0 and dst_zf[ZF_RAT, a] == 0:
            dst_zc[ZC_RLO, a] = src_zc[ZC_RLO, a]
            dst_zc[ZC_RHI, a] = src_zc[ZC_RHI, a]
            dst_zf[ZF_RAT, a] = 1
