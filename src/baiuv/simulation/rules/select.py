"""The step of every sampling rule, by its ``RULE_*`` code of the registry:
:func:`select_arm` dispatches to the rule's module (``uniform``: round robin; ``fixed``:
C-tracking of the true optimal allocation, a baseline of the simulator; ``TCI``: the
leader coin and the challenger on the run's statistics cache), the one selection of the
simulator's loop and of the identifier (D351: one selection, inlined where it is called).

A step reads the run's state (:class:`~.run_state.RunState`: ``t``, ``counts``,
``means``, ``variances``, ``best`` and the statistics cache ``zc, zf``) and the rule's
work record :class:`RuleWork`, and returns the arm to sample; a rule registered with its
own step kernel has the same signature (``docs/extending.md``).
"""

from __future__ import annotations

from collections import namedtuple

from numba import njit

from baiuv.registry import (
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
from .run_state import with_scalars
from .tas import step_tas
from .tci import tci_choice
from .tracking import c_tracking
from .workspace import W_SUMW
from .zcache import ZF_LOG

__all__ = ["RuleWork", "select_arm", "select_arms"]

#: What a sampling rule works with besides the run's state: the statistic (``plug_in``:
#: EV-GLR), the rule's parameters ``params``, its workspace ``ws, scal`` (kept between
#: steps), the weights ``wfix`` tracked by ``fixed``, and the statistics cache ``szc,
#: szf`` of the Top Two challenger with its indifference zone ``s_eps`` (the run's cache,
#: or one of its own when its zone is not that of the stopping rule; D324).
RuleWork = namedtuple(
    "RuleWork", ("plug_in", "params", "ws", "scal", "wfix", "szc", "szf", "s_eps")
)


@njit(cache=True, inline="always")
def select_arm(rule, run, work, rng):
    """The arm the sampling rule ``rule`` (one of the ``RULE_*`` codes) samples at the
    state ``run`` (a :class:`~.run_state.RunState`) with the work record ``work``
    (:class:`RuleWork`) and the run's generator ``rng``. Inlined where it is called, so
    that the cheapest rules cost no call (D351: one selection, inlined where it is
    called)."""
    if rule == RULE_UNIFORM:
        return run.t % run.counts.shape[0]
    if rule == RULE_TCI:
        return tci_choice(run, work, rng)
    if rule == RULE_FIXED:
        return c_tracking(work.ws[W_SUMW], run.counts, work.wfix)
    counts = run.counts
    means = run.means
    variances = run.variances
    if rule == RULE_TAS:
        return step_tas(counts, means, variances, run.best, run.t, work.plug_in, work.ws, work.scal)
    if rule == RULE_DKM:
        return step_dkm(counts, means, variances, run.best, run.t, work.plug_in, work.ws, work.scal)
    if rule == RULE_FWS:
        exponent = work.params[P_FWS_EXPONENT]
        return step_fws(counts, means, variances, run.best, run.t, work.plug_in, work.ws, exponent)
    raise ValueError("unknown sampling rule code")


@njit(cache=True)
def select_arms(rule, run, work, rng, out):
    """``out.shape[0]`` successive choices of :func:`select_arm`, each counted as a sample
    before the next (``counts[a] += 1``, its ``log N_a`` forgotten by the cache, time
    ``t + i``): the requests of a batch (:mod:`baiuv.simulation.pending`); ``run.counts``
    is the caller's counts plus pending requests."""
    bounds = (run.thr_lo, run.thr_hi, run.t_hi)
    for i in range(out.shape[0]):
        now = with_scalars(run, run.t + i, run.best, run.n_uncert, bounds, run.k_next)
        a = select_arm(rule, now, work, rng)
        out[i] = a
        run.counts[a] += 1
        run.zf[ZF_LOG, a] = 0
        work.szf[ZF_LOG, a] = 0
