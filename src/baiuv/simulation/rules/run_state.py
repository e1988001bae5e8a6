"""One run's state and its two steps, shared by the simulator's loop, the batched replay
and the identifier (D350: one run state, one step, three callers).

A run of the GLR (or EV-GLR) stopping rule keeps the same things whoever feeds it: the
per-arm statistics, the threshold states, the statistics cache (:mod:`.zcache`), the
empirical best arm, the number of arms outside
:func:`~baiuv.simulation.rules.statistics.certified_arm` (the degeneracy guard's
certificate, D191), the bounds of a ``t``-only threshold (D160: exact speed-ups by cached
statistics; D192: certified threshold bounds) and the lazy grid's next index (D70).
:class:`RunState` holds them; :class:`StopRule` holds what does not change during a run
(the threshold family, the statistic, the lazy grid). The two steps:

* :func:`observe_sample`: what one observation changes (Welford statistics, threshold
  state, certification count, empirical best arm, cache invalidation);
* :func:`check_step`: what one time ``t`` checks (the degeneracy guard, the lazy grid, the
  stopping check :func:`~baiuv.simulation.rules.stopping.glr_stop_check`).

The simulator's loop (:mod:`.loop`) is a draw and these steps, the replay
(:func:`baiuv.simulation.replay.ingest`) rows and these steps, and the identifier's
:meth:`~baiuv.BestArmIdentifier.observe` one replay of one row: the three take the same
decisions at every sample because they run the same code.

A :class:`RunState` is a value: the steps return the new one (its arrays are updated in
place, its scalars are new). Inlined into a loop, its scalars stay in registers; the
arrays of a loop's state are borrowed views (:func:`~.borrow.borrowed`, D247), so that
rebuilding the record costs no reference counting.
"""

from __future__ import annotations

from collections import namedtuple

from numba import njit

from baiuv.model.glr_kernels import empirical_best
from baiuv.thresholds.kernels import has_state, update_state

from .borrow import borrowed
from .statistics import certified_arm, degenerate_arm, welford
from .stopping import glr_stop_check, lazy_check_time, lazy_next_index
from .zcache import ZC_Z, invalidate, refresh_zcache

__all__ = [
    "FORCED",
    "NOT_CHECKED",
    "RunState",
    "StopRule",
    "check_step",
    "guard",
    "borrowed_rule",
    "borrowed_state",
    "new_run_state",
    "observe_sample",
    "owned_state",
    "stop_rule",
    "with_scalars",
]

#: The state of one run: the statistics ``counts, means, m2, variances`` (Welford, ``1/N``
#: variances), the per-arm threshold states ``states``, the statistics cache ``zc, zf``,
#: the number of samples ``t``, the empirical best arm ``best`` (``-1`` before any sample),
#: the number ``n_uncert`` of arms outside ``certified_arm``, the bounds ``thr_lo, thr_hi,
#: t_hi`` of :func:`~baiuv.simulation.rules.stopping.glr_stop_check` and the index
#: ``k_next`` of the lazy grid's next time.
RunState = namedtuple(
    "RunState",
    (
        "counts",
        "means",
        "m2",
        "variances",
        "states",
        "zc",
        "zf",
        "t",
        "best",
        "n_uncert",
        "thr_lo",
        "thr_hi",
        "t_hi",
        "k_next",
    ),
)

#: What a run's stopping rule does not change: the threshold family ``code, fparams,
#: table`` (one stopping level), whether its arms have states (``stateful``), the statistic
#: (``plug_in``: EV-GLR) and the lazy grid ``ceil(t0 ratio^k)`` (``ratio <= 1``: every
#: time).
StopRule = namedtuple(
    "StopRule", ("code", "fparams", "table", "stateful", "plug_in", "ratio", "t0")
)

#: :func:`check_step`'s verdict when the time is not checked (off the lazy grid, or the
#: level has stopped).
NOT_CHECKED = -2
#: :func:`check_step`'s verdict when the time is checked while the guard forces an arm
#: (the rule does not stop).
FORCED = -3


@njit(cache=True, inline="always")
def stop_rule(code, fparams, table, plug_in, ratio, t0):
    """The :class:`StopRule` of a threshold family and statistic (``ratio`` the lazy
    ratio, ``t0 = n0 K`` the grid's first time)."""
    return StopRule(code, fparams, table, has_state(fparams), plug_in, float(ratio), float(t0))


@njit(cache=True, inline="always")
def new_run_state(stats, states, cache, bounds, k_next):
    """The :class:`RunState` of the statistics ``stats = (counts, means, m2, variances)``
    (any number of samples), the threshold states and the cache ``cache = (zc, zf)``:
    ``t``, ``best`` and ``n_uncert`` computed from them, ``bounds = (thr_lo, thr_hi, t_hi)``
    and ``k_next`` as given."""
    counts, means, m2, variances = stats
    zc, zf = cache
    thr_lo, thr_hi, t_hi = bounds
    t = 0
    n_uncert = 0
    for a in range(counts.shape[0]):
        t += counts[a]
        if not certified_arm(means[a], variances[a]):
            n_uncert += 1
    best = empirical_best(means) if t > 0 else -1
    return RunState(
        counts,
        means,
        m2,
        variances,
        states,
        zc,
        zf,
        t,
        best,
        n_uncert,
        float(thr_lo),
        float(thr_hi),
        int(t_hi),
        int(k_next),
    )


@njit(inline="always")
def with_scalars(run, t, best, n_uncert, bounds, k_next):
    """``run`` with new scalars (``bounds = (thr_lo, thr_hi, t_hi)``), the same arrays."""
    thr_lo, thr_hi, t_hi = bounds
    return RunState(
        run.counts,
        run.means,
        run.m2,
        run.variances,
        run.states,
        run.zc,
        run.zf,
        t,
        best,
        n_uncert,
        thr_lo,
        thr_hi,
        t_hi,
        k_next,
    )


@njit(inline="always")
def borrowed_state(run):
    """``run`` with borrowed views of its arrays (:func:`~.borrow.borrowed`, D247): for a
    compiled loop that owns ``run`` (or received it) and passes it to inlined steps."""
    return RunState(
        borrowed(run.counts),
        borrowed(run.means),
        borrowed(run.m2),
        borrowed(run.variances),
        borrowed(run.states),
        borrowed(run.zc),
        borrowed(run.zf),
        run.t,
        run.best,
        run.n_uncert,
        run.thr_lo,
        run.thr_hi,
        run.t_hi,
        run.k_next,
    )


@njit(inline="always")
def borrowed_rule(stop):
    """``stop`` with borrowed views of its arrays (as :func:`borrowed_state`)."""
    return StopRule(
        stop.code,
        borrowed(stop.fparams),
        borrowed(stop.table),
        stop.stateful,
        stop.plug_in,
        stop.ratio,
        stop.t0,
    )


@njit(inline="always")
def owned_state(run, owner):
    """The scalars of ``run`` with the arrays of ``owner`` (the state a loop returns after
    running on :func:`borrowed_state` views of ``owner``)."""
    bounds = (run.thr_lo, run.thr_hi, run.t_hi)
    return with_scalars(owner, run.t, run.best, run.n_uncert, bounds, run.k_next)


@njit(inline="always")
def observe_sample(run, rule, arm, x):
    """Add the observation ``x`` of ``arm`` to ``run``: the Welford update of its count,
    mean and ``1/N`` variance (Section ``ssec:GLR_stopping_rule``), its threshold state
    (``update_state``, when the family has states), the certification count, ``t``, the
    empirical best arm (the first of the largest means) and the invalidation of the
    statistics cache (:func:`~.zcache.invalidate`). Returns ``(run, n)``, the new state and
    the arm's new count."""
    counts = run.counts
    means = run.means
    variances = run.variances
    best = run.best
    n_uncert = run.n_uncert
    was_certified = certified_arm(means[arm], variances[arm])
    n = welford(arm, x, counts, means, run.m2, variances)
    if rule.stateful:
        update_state(rule.code, rule.fparams, run.states[arm], n, means[arm], variances[arm])
    now_certified = certified_arm(means[arm], variances[arm])
    if now_certified and not was_certified:
        n_uncert -= 1
    elif was_certified and not now_certified:
        n_uncert += 1
    if n_uncert == 0 and arm != best:  # finite means: argmax changes only at arm
        ma = means[arm]
        mb = means[best]
        new_best = arm if (ma > mb or (ma == mb and arm < best)) else best
    else:
        new_best = empirical_best(means)
    invalidate(run.zf, arm, best, new_best)
    bounds = (run.thr_lo, run.thr_hi, run.t_hi)
    return with_scalars(run, run.t + 1, new_best, n_uncert, bounds, run.k_next), n


@njit(inline="always")
def guard(run, rule):
    """The degeneracy guard (D120) at ``run``'s time: the arm it forces, ``-1`` when the
    statistics are not degenerate. With every arm certified it is ``-1`` without reading a
    statistic (D191); else every challenger's statistic is computed into the cache."""
    if run.n_uncert > 0:  # exact guard: it reads every challenger's statistic
        zc = run.zc
        zf = run.zf
        refresh_zcache(zc, zf, run.best, rule.plug_in, run.counts, run.means, run.variances)
        return degenerate_arm(run.counts, run.variances, zc[ZC_Z], run.best)
    return -1


@njit(inline="always")
def check_step(threshold, run, rule, live):
    """The check of ``run`` at its time ``t`` by the stopping rule ``rule`` (threshold
    kernel ``threshold``, the signature of
    :func:`~baiuv.thresholds.kernels.pair_threshold_kernel`): the degeneracy guard
    (:func:`guard`) and, when ``live`` and ``t`` is on the lazy grid (every ``t`` without
    one), the GLR stopping check
    :func:`~baiuv.simulation.rules.stopping.glr_stop_check` unless the guard forces an arm
    (the certified enclosures of ``Z_a`` decide first for the GLR with every arm certified,
    D191).

    Returns ``(run, forced, verdict)``: the new state (bounds, lazy index), the forced arm
    (``-1``: none) and the verdict, ``-1`` when the rule stops, the first challenger not
    beaten, :data:`FORCED` (checked while the guard forces an arm) or :data:`NOT_CHECKED`.
    """
    forced = guard(run, rule)
    t = run.t
    k_next = run.k_next
    ratio = rule.ratio
    lazy = ratio > 1.0
    if not live or (lazy and t < lazy_check_time(rule.t0, ratio, k_next)):
        return run, forced, NOT_CHECKED
    if lazy:
        k_next = lazy_next_index(t, rule.t0, ratio, k_next)
    if forced >= 0:
        bounds = (run.thr_lo, run.thr_hi, run.t_hi)
        return with_scalars(run, t, run.best, run.n_uncert, bounds, k_next), forced, FORCED
    fail, thr_lo, thr_hi, t_hi = glr_stop_check(threshold, run, rule)
    bounds = (thr_lo, thr_hi, t_hi)
    return with_scalars(run, t, run.best, run.n_uncert, bounds, k_next), forced, fail
