"""The step of every built-in sampling rule, by its ``RULE_*`` code of the registry:
:func:`select_arm` dispatches to the rule's module (``uniform``: round robin; ``fixed``:
C-tracking of the true optimal allocation, a baseline of the simulator)."""

from __future__ import annotations

from numba import njit

from baiuv.registry import (
    P_BETA,
    P_FWS_EXPONENT,
    RULE_DKM,
    RULE_FIXED,
    RULE_FWS,
    RULE_TAS,
    RULE_TCI,
    RULE_UNIFORM,
)

from .dkm import step_dkm
from .fws import step_fws
from .tas import step_tas
from .tci import step_tci
from .tracking import c_tracking
from .workspace import W_SUMW


@njit(cache=True)
def select_arm(rule, t, counts, means, variances, best, Z, plug_in, params, ws, scal, wfix, rng):
    """Dispatch to the sampling rule ``rule`` (one of the ``RULE_*`` codes)."""
    if rule == RULE_UNIFORM:
        return t % counts.shape[0]
    if rule == RULE_FIXED:
        return c_tracking(ws[W_SUMW], counts, wfix)
    if rule == RULE_TAS:
        return step_tas(counts, means, variances, best, t, plug_in, ws, scal)
    if rule == RULE_TCI:
        return step_tci(counts, Z, best, params[P_BETA], rng)
    if rule == RULE_DKM:
        return step_dkm(counts, means, variances, best, t, plug_in, ws, scal)
    if rule == RULE_FWS:
        return step_fws(counts, means, variances, best, t, plug_in, ws, params[P_FWS_EXPONENT])
    raise ValueError("unknown sampling rule code")


@njit(cache=True)
def select_arms(rule, t, counts, stats, best, plug_in, params, work, rng, out):
    """``out.shape[0]`` successive choices of :func:`select_arm`, each counted as a sample
    before the next (``counts[a] += 1``, time ``t + i``): the requests of a batch
    (:mod:`baiuv.simulation.pending`). ``stats = (means, variances, Z)``,
    ``work = (ws, scal, wfix)``; ``counts`` is the caller's counts plus pending requests."""
    means, variances, Z = stats
    ws, scal, wfix = work
    for i in range(out.shape[0]):
        a = select_arm(
            rule, t + i, counts, means, variances, best, Z, plug_in, params, ws, scal, wfix, rng
        )
        out[i] = a
        counts[a] += 1
