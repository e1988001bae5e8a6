"""The GLR loop: one run of a sampling rule with the GLR (or EV-GLR) stopping rule.

:func:`run_glr_loop` is generic over the rule's step kernel and the threshold kernel;
:func:`run_glr` is its cached instance for the built-in rules
(:func:`~baiuv.simulation.rules.select.select_arm`) and threshold families
(:func:`~baiuv.thresholds.kernels.pair_threshold_kernel`).

The loop is a draw, the sampling rule's choice and the two steps of the run state
(:mod:`~baiuv.simulation.rules.run_state`: :func:`~.run_state.observe_sample` after each
sample, :func:`~.run_state.check_step` before each choice; D350: one run state, one step,
three callers), the steps the identifier and its replay run too. The stopping check
(:func:`~baiuv.simulation.rules.stopping.glr_stop_check`) and the TCI challenger
(:func:`~baiuv.simulation.rules.tci.eps_challenger`) read and fill the statistics cache
(:mod:`~baiuv.simulation.rules.zcache`, invalidated after each sample) and compute a
statistic, an enclosure or a threshold only when a decision needs it. Everything is
inlined into the loop, whose run state holds borrowed views of its arrays
(:func:`~baiuv.simulation.rules.borrow.borrowed`): with the arrays themselves, each call
would update their reference counts, atomically, and cost as much as the whole step of
the cheapest rules (decision D247).

One trajectory serves several stopping levels (D306: the sampling rules never read the
level): level 0 is checked as a run with that level alone, the others by
:func:`check_levels`, each with its statistics cache and threshold bounds.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from baiuv.registry import BOB, EV_BOB, KL, P_SAMPLING_EPSILON, RULE_TCI
from baiuv.thresholds.kernels import P_EPS, has_state, pair_threshold_kernel, update_state
from baiuv.thresholds.layout import P_GAMMA, S_LEVEL

from .borrow import alive, borrowed
from .run_state import (
    RunState,
    StopRule,
    borrowed_state,
    check_step,
    new_run_state,
    observe_sample,
    stop_rule,
)
from .select import RuleWork, select_arm
from .statistics import draw, welford
from .stopping import glr_stop_check, lazy_check_time, lazy_next_index
from .workspace import init_workspace
from .zcache import (
    N_ZC,
    N_ZF,
    invalidate,
    new_zcache,
    refresh_zcache,
    share_statistics,
)

_BUILTIN_WS = (0, 0, 0)  # unused: a built-in rule's module sizes its workspace (D390)

# columns of the integer bookkeeping of the levels (new_levels)
_I_THI = 0  # t_hi of glr_stop_check
_I_KNEXT = 1  # index of the next time of the lazy grid
_I_LIVE = 2  # 1 while the level has not stopped


@njit(cache=True)
def run_glr(rule, plug_in, bandit, levels, states, rule_data, rng, limits):
    """:func:`run_glr_loop` with the built-in rules (:func:`select_arm`) and threshold
    families (:func:`~baiuv.thresholds.kernels.pair_threshold_kernel`): compiled once and
    kept in numba's cache (the generic loop is compiled into this function, with the step
    and threshold functions inlined). One stopping level: the first of ``levels``."""
    run_args = (rule, plug_in, bandit, levels, states, rule_data, rng, limits)
    return glr_run(select_arm, pair_threshold_kernel, _BUILTIN_WS, False, run_args)


@njit(cache=True)
def run_glr_levels(rule, plug_in, bandit, levels, states, rule_data, rng, limits):
    """:func:`run_glr` at every stopping level of ``levels`` (:func:`run_glr_levels_loop`),
    compiled apart: the one-level loop keeps none of the code of the others."""
    run_args = (rule, plug_in, bandit, levels, states, rule_data, rng, limits)
    return glr_run(select_arm, pair_threshold_kernel, _BUILTIN_WS, True, run_args)


@njit(inline="always")
def run_glr_loop(step, threshold, ws_size, rule, args):
    """One run of the GLR loop (:func:`glr_run`) at the first stopping level of
    ``levels``, ``args = (plug_in, bandit, levels, states, rule_data, rng, limits)``."""
    plug_in, bandit, levels, states, rule_data, rng, limits = args
    run_args = (rule, plug_in, bandit, levels, states, rule_data, rng, limits)
    return glr_run(step, threshold, ws_size, False, run_args)


@njit(inline="always")
def run_glr_levels_loop(step, threshold, ws_size, rule, args):
    """One run of the GLR loop (:func:`glr_run`) at every stopping level of ``levels``
    (``args`` as :func:`run_glr_loop`'s)."""
    plug_in, bandit, levels, states, rule_data, rng, limits = args
    run_args = (rule, plug_in, bandit, levels, states, rule_data, rng, limits)
    return glr_run(step, threshold, ws_size, True, run_args)


@njit(inline="always")
def glr_run(step, threshold, ws_size, multi, run_args):
    """One run of the sampling rule ``step`` with the GLR (or EV-GLR) stopping rule at
    each stopping level of ``levels``: draws, the sampling rule's choices and the two steps
    of the run state (:func:`~baiuv.simulation.rules.run_state.observe_sample`,
    :func:`~baiuv.simulation.rules.run_state.check_step`; D350: one run state, one step,
    three callers).

    ``run_args = (rule, plug_in, bandit, levels, states, rule_data, rng, limits)``:
    ``bandit = (mu, sigma2)``; ``rule_data = (params, wfix)``, the rule's parameters and
    the weights tracked by ``fixed``; ``limits = (n0, max_samples)``; ``levels`` and
    ``states`` the stopping levels (the module's docstring). ``multi`` is a constant:
    ``False``, the first level alone, and the code of the others folds away; ``True``,
    every level.

    ``step`` is a compiled kernel with the signature of :func:`select_arm`, ``step(rule,
    run, work, rng) -> arm``, called before every sample after the initialisation (unless
    the degeneracy guard forces an arm) with the run state ``run`` and the rule's work
    record ``work`` (:class:`~.select.RuleWork`: its workspace of the size ``ws_size =
    (rows, rows_per_arm, scalars)`` of the rule's record, :class:`baiuv.registry.Workspace`,
    kept between steps). Every rule is chosen by ``step`` (D351: one selection, inlined
    where it is called): :func:`select_arm` for the built-in codes, a registered kernel
    with ``rule = RULE_CUSTOM``, which finds every statistic ``Z_a(t)`` in ``run.zc[ZC_Z]``.
    ``threshold`` is the threshold kernel of every level, with the signature of
    :func:`~baiuv.thresholds.kernels.pair_threshold_kernel` (a registered family's own
    kernel runs with ``thr_code = THRESHOLD_CUSTOM``). Not cached (numba cannot cache a
    function that receives a compiled function): :func:`run_glr` and
    :func:`run_glr_levels` are its cached instances, and a registered kernel costs one
    compilation per process.

    Each arm is first pulled ``n0`` times (round robin). Then a level stops at the first
    ``t`` with ``Z_a(t) > c_{hat a_t, a}(N_t, delta)`` for every ``a != hat a_t``
    (:func:`glr_stop_check`), checked at every time or on its lazy grid (D70). The run ends
    when every level has stopped or at ``max_samples``; no rule reads a level, so each
    level stops where a run with that level alone stops on the same stream (D306: one
    trajectory serves every stopping level). Level 0 is checked here, exactly as a run
    with one level, the others by :func:`check_levels`.

    Returns ``(taus, recs, counts, truncated, means, variances)``, an entry (a row of
    ``counts``, ``means``, ``variances``) per level: its stopping time (all samples
    counted), the empirical best arm then, whether ``max_samples`` was hit before it
    stopped, and the counts, empirical means and ``1/N`` variances then (at
    ``max_samples`` for a truncated level).
    """
    rule, plug_in, bandit, levels, states, rule_data, rng, limits = run_args
    mu, sigma2 = bandit
    params, wfix = rule_data
    n0, max_samples = limits
    codes, fparams, tables, offsets, ratios = levels
    K = mu.shape[0]
    sd = np.sqrt(sigma2)
    stats = (np.zeros(K, dtype=np.int64), np.zeros(K), np.zeros(K), np.zeros(K))
    counts, means, m2, variances = stats
    out = new_outcomes(codes.shape[0], K)
    owned_more = new_levels(codes.shape[0], K, states)  # the levels after level 0
    # the levels' arrays as borrowed views too: indexing one per level and sample then
    # updates no reference count (D247)
    more = borrowed_levels(owned_more)
    blevels = (
        borrowed(codes),
        borrowed(fparams),
        borrowed(tables),
        borrowed(offsets),
        borrowed(ratios),
    )
    n_more = codes.shape[0] - 1 if multi else 0
    initial_rounds(n0, mu, sd, rng, stats, levels, states)
    t0 = float(n0 * K)
    ws, scal = init_workspace(counts, params, ws_size, rule)
    table0 = borrowed(tables[offsets[0] : offsets[1]])
    stop = stop_rule(codes[0], borrowed(fparams[0]), table0, plug_in, ratios[0], t0)
    # the statistics cache (zcache, D160: exact speed-ups by cached statistics), each entry
    # computed when read (D191: statistics computed when read)
    zc, zf = new_zcache(K)
    owner = new_run_state(stats, states[0], (zc, zf), (-math.inf, math.inf, -1), 0)
    # the steps run on borrowed views of the loop's arrays: no reference counting per step
    # (decision D247), the arrays kept alive by owner (:func:`alive` at the end)
    run = borrowed_state(owner)
    own_cache, szc, szf = sampling_cache(rule, params, fparams[0], zc, zf)
    s_eps = params[P_SAMPLING_EPSILON]
    work = RuleWork(
        plug_in,
        borrowed(params),
        borrowed(ws),
        borrowed(scal),
        borrowed(wfix),
        borrowed(szc),
        borrowed(szf),
        s_eps,
    )
    live0 = True  # level 0 has not stopped
    peel0 = peeling_state(codes[0])
    gamma0 = fparams[0, P_GAMMA]
    truncated = False
    while True:
        run, forced, verdict = check_step(threshold, run, stop, live0 or not multi)
        t = run.t
        best = run.best
        if verdict == -1:
            if not multi or n_more == 0:
                break
            record_level(out, 0, t, counts, means, variances, False)
            live0 = False
        if multi and n_more > 0:
            n_more = check_levels(threshold, (blevels, more), run, stop, forced, out)
            if n_more == 0 and not live0:
                break
        if t >= max_samples:
            truncated = True
            break
        if forced >= 0:
            arm = forced
        else:
            if rule < 0:  # a registered rule reads every statistic
                refresh_zcache(run.zc, run.zf, best, plug_in, run.counts, run.means, run.variances)
            arm = step(rule, run, work, rng)
        held0 = run.states[arm, S_LEVEL] if multi and n_more > 0 and peel0 else math.nan
        run, n = observe_sample(run, stop, arm, draw(arm, mu, sd, rng))
        if own_cache:
            invalidate(work.szf, arm, best, run.best)
        if multi and n_more > 0:
            # level 0's peeling level of the arm, when this sample did not move it (D420)
            kept0 = held0 if run.states[arm, S_LEVEL] == held0 else math.nan
            sample = (arm, n, means[arm], variances[arm])
            observe_levels(blevels, more, sample, (best, run.best), (kept0, gamma0))
    t = run.t
    alive((owner, ws, scal, szc, szf, owned_more))  # the borrowed views' arrays live to here
    if live0:
        record_level(out, 0, t, counts, means, variances, truncated)
    if multi and truncated:
        for lv in range(1, codes.shape[0]):
            if more[4][lv, _I_LIVE] != 0:
                record_level(out, lv, t, counts, means, variances, True)
    return out


@njit(inline="always")
def sampling_cache(rule, params, fparams0, zc, zf):
    """``(own, szc, szf)``: the statistics cache of the Top Two challenger (D323: the run's
    sampling epsilon): level 0's cache ``zc, zf`` when the rule is not a Top Two rule, has
    no indifference zone or the zone of level 0's (one computation serves both), else a
    cache of its own (``own``; D324: a stopping level's epsilon changes its stopping
    only)."""
    s_eps = params[P_SAMPLING_EPSILON] if rule == RULE_TCI else 0.0
    if s_eps > 0.0 and not (fparams0[P_EPS] == s_eps):
        szc, szf = new_zcache(zc.shape[1])
        return True, szc, szf
    return False, zc, zf


@njit(cache=True)
def new_outcomes(L, K):
    """The outcomes of ``L`` levels on ``K`` arms: ``(taus, recs, counts, truncated,
    means, variances)``, zero."""
    return (
        np.zeros(L, dtype=np.int64),
        np.zeros(L, dtype=np.int64),
        np.zeros((L, K), dtype=np.int64),
        np.zeros(L, dtype=np.bool_),
        np.zeros((L, K)),
        np.zeros((L, K)),
    )


@njit(cache=True)
def new_levels(L, K, states):
    """The bookkeeping of levels ``1 .. L-1`` (row 0 unused): ``(states, zcs, zfs, bnd,
    idx)``, with a statistics cache per level (``zcs[l], zfs[l]``, :func:`new_zcache`), the
    bounds ``thr_lo, thr_hi`` of :func:`glr_stop_check` in ``bnd[l]`` and its ``t_hi``, the
    lazy grid's next index and the live flag in ``idx[l]`` (columns ``_I_*``)."""
    bnd = np.empty((L, 2))
    bnd[:, 0] = -math.inf
    bnd[:, 1] = math.inf
    idx = np.zeros((L, 3), dtype=np.int64)
    idx[:, _I_THI] = -1
    idx[:, _I_LIVE] = 1
    zcs = np.zeros((L, N_ZC, K))
    zfs = np.zeros((L, N_ZF, K), dtype=np.uint8)
    return states, zcs, zfs, bnd, idx


@njit(inline="always")
def borrowed_levels(more):
    """The bookkeeping ``more`` of :func:`new_levels` as borrowed views
    (:func:`~baiuv.simulation.rules.borrow.borrowed`; valid while ``more`` is alive)."""
    states, zcs, zfs, bnd, idx = more
    return borrowed(states), borrowed(zcs), borrowed(zfs), borrowed(bnd), borrowed(idx)


@njit(inline="always")
def check_levels(threshold, all_levels, run, stop, forced, out):
    """The stopping checks of the live levels ``1 .. L-1`` at level 0's state ``run`` and
    stopping rule ``stop`` (its statistic, its grid's first time), ``forced`` the arm the
    guard forces (as level 0's in :func:`glr_run`: the lazy grid, no check while the guard
    forces an arm), recording those that stop in ``out``; ``all_levels = (levels, more)``
    (:func:`new_levels`). Each level's cache shares the statistics of level 0's
    (:func:`~baiuv.simulation.rules.zcache.share_statistics`). Returns the number of live
    levels among them."""
    levels, more = all_levels
    codes, fparams, tables, offsets, ratios = levels
    states, zcs, zfs, bnd, idx = more
    t = run.t
    n_live = 0
    for lv in range(1, codes.shape[0]):
        if idx[lv, _I_LIVE] == 0:
            continue
        n_live += 1
        ratio = ratios[lv]
        if ratio > 1.0:
            k = idx[lv, _I_KNEXT]
            if t < lazy_check_time(stop.t0, ratio, k):
                continue
            idx[lv, _I_KNEXT] = lazy_next_index(t, stop.t0, ratio, k)
        if forced >= 0:
            continue
        share_statistics(run.zc, run.zf, zcs[lv], zfs[lv])
        table = tables[offsets[lv] : offsets[lv + 1]]
        fp = fparams[lv]
        rule = StopRule(codes[lv], fp, table, has_state(fp), stop.plug_in, ratio, stop.t0)
        bounds = (bnd[lv, 0], bnd[lv, 1], idx[lv, _I_THI])
        lrun = level_state(run, (states[lv], zcs[lv], zfs[lv]), bounds)
        fail, bnd[lv, 0], bnd[lv, 1], idx[lv, _I_THI] = glr_stop_check(threshold, lrun, rule)
        share_statistics(zcs[lv], zfs[lv], run.zc, run.zf)
        if fail < 0:
            record_level(out, lv, t, run.counts, run.means, run.variances, False)
            idx[lv, _I_LIVE] = 0
            n_live -= 1
    return n_live


@njit(inline="always")
def level_state(run, arrays, bounds):
    """``run`` (level 0's state) with the threshold states and the statistics cache
    ``arrays = (states, zc, zf)`` of another level and its bounds ``bounds = (thr_lo,
    thr_hi, t_hi)``: the state that level's check reads."""
    states, zc, zf = arrays
    thr_lo, thr_hi, t_hi = bounds
    return RunState(
        run.counts,
        run.means,
        run.m2,
        run.variances,
        states,
        zc,
        zf,
        run.t,
        run.best,
        run.n_uncert,
        thr_lo,
        thr_hi,
        t_hi,
        run.k_next,
    )


@njit(inline="always")
def peeling_state(code):
    """Whether the built-in family ``code`` keeps the KL state of peeling levels
    (:func:`baiuv.thresholds.builtin.kl.update_state`: KL, BoB, EV-BoB)."""
    return code == KL or code == BOB or code == EV_BOB


@njit(inline="always")
def observe_levels(levels, more, sample, bests, peel0):
    """What one sample ``sample = (arm, n, mean, var)`` (the arm, its new count, mean and
    variance) changes for the live levels ``1 .. L-1``: their threshold states and their
    statistics caches (:func:`~baiuv.simulation.rules.zcache.invalidate`), ``bests = (best,
    new_best)`` the empirical best arm before and after the sample. ``peel0 = (kept0,
    gamma0)``: level 0's peeling level of the arm when the sample did not move it
    (``nan`` otherwise, or when level 0 keeps no peeling state) and its ``gamma``; a
    level whose state holds that level at that ``gamma`` would not move it either, so its
    update is skipped (D420)."""
    codes, fparams, tables, offsets, ratios = levels
    states, zcs, zfs, bnd, idx = more
    arm, n, mean, var = sample
    best, new_best = bests
    kept0, gamma0 = peel0
    for lv in range(1, codes.shape[0]):
        if idx[lv, _I_LIVE] != 0:
            if has_state(fparams[lv]):
                same = (
                    states[lv, arm, S_LEVEL] == kept0
                    and fparams[lv, P_GAMMA] == gamma0
                    and peeling_state(codes[lv])
                )
                if not same:
                    update_state(codes[lv], fparams[lv], states[lv, arm], n, mean, var)
            invalidate(zfs[lv], arm, best, new_best)


@njit(cache=True)
def record_level(out, lv, t, counts, means, variances, truncated):
    """Record in ``out`` that level ``lv`` ends at ``t``: its stopping time, the empirical
    best arm (the first of the largest means), ``truncated`` and the final statistics (the
    counts, means and ``1/N`` variances)."""
    taus, recs, out_counts, truncs, out_means, out_vars = out
    rec = 0
    for a in range(1, means.shape[0]):
        if means[a] > means[rec]:
            rec = a
    taus[lv] = t
    recs[lv] = rec
    out_counts[lv, :] = counts
    truncs[lv] = truncated
    out_means[lv, :] = means
    out_vars[lv, :] = variances


@njit(cache=True)
def initial_rounds(n0, mu, sd, rng, stats, levels, states):
    """The initialisation of a run: ``n0`` rounds of one sample of each arm, in index
    order, into the zero statistics ``stats = (counts, means, m2, variances)`` and the
    threshold states of every level (as
    :func:`~baiuv.simulation.rules.statistics.draw_observe` with each level)."""
    counts, means, m2, variances = stats
    codes, fparams, tables, offsets, ratios = levels
    for _ in range(n0):
        for a in range(mu.shape[0]):
            n = welford(a, draw(a, mu, sd, rng), counts, means, m2, variances)
            for lv in range(codes.shape[0]):
                if has_state(fparams[lv]):
                    update_state(codes[lv], fparams[lv], states[lv, a], n, means[a], variances[a])
