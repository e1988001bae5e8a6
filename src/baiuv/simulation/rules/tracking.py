"""Tracking shared by the rules that follow a weight vector: C-tracking (TaS, DKM, FWS and
the ``fixed`` baseline) and the forced exploration of Track-and-Stop. The workspace of
every tracking rule has the cumulative weights in its row :data:`W_SUMW` (:func:`init_tracking`);
the ``fixed`` baseline's has that row alone (:data:`WORKSPACE`)."""

from __future__ import annotations

import math

from numba import njit

from baiuv.registry import Workspace

#: Row of the cumulative tracked weights in the workspace of every rule that C-tracks.
W_SUMW = 0
#: The workspace of the ``fixed`` baseline (C-tracking of the true optimal allocation).
WORKSPACE = Workspace(rows=W_SUMW + 1)


@njit(cache=True)
def init_tracking(ws, scal, counts, params):
    """A tracking rule's workspace at the start of the sampling: the cumulative weights
    (row :data:`W_SUMW`) at the counts."""
    for a in range(counts.shape[0]):
        ws[W_SUMW, a] = counts[a]


@njit(cache=True, inline="always")
def c_tracking(sumw, counts, w):
    """C-tracking (Garivier and Kaufmann, 2016) of a weight vector ``w``.

    Adds ``w`` to the cumulative weights ``sumw`` (initialised to the initial counts) and
    returns ``argmin_a N_a - sumw_a`` (first index on ties). Section
    ``ssec:instantiating_wrappers``, paragraph "Track-and-Stop"; decision D41.
    """
    K = counts.shape[0]
    arm = 0
    best = math.inf
    for a in range(K):
        sumw[a] += w[a]
        v = counts[a] - sumw[a]
        if v < best:
            best = v
            arm = a
    return arm


@njit(cache=True)
def forced_exploration(counts, t, w, out):
    """Forced exploration of Track-and-Stop (decision D41).

    If some arm has ``N_a <= sqrt(t) - K/2``, ``out`` is the uniform distribution on those
    under-sampled arms, otherwise a copy of ``w``.
    """
    K = counts.shape[0]
    thr = math.sqrt(t) - 0.5 * K
    n_under = 0
    for a in range(K):
        if counts[a] <= thr:
            n_under += 1
    for a in range(K):
        if n_under > 0:
            out[a] = (1.0 / n_under) if counts[a] <= thr else 0.0
        else:
            out[a] = w[a]
    return n_under
