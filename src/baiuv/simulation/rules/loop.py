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

from baiuv.registry import (
    P_BETA,
    P_SAMPLING_EPSILON,
    RULE_FIXED,
    RULE_TCI,
    RULE_UNIFORM,
)
from baiuv.thresholds.kernels import P_EPS, has_state, pair_threshold_kernel, update_state

from .borrow import alive, borrowed
from .run_state import borrowed_state, check_step, new_run_state, observe_sample, stop_rule
from .select import select_arm
from .statistics import draw, welford
from .stopping import glr_stop_check, lazy_check_time, lazy_next_index
from .tci import eps_challenger
from .tracking import c_tracking
from .workspace import W_SUMW, init_workspace
from .zcache import (
    N_ZC,
    N_ZF,
    ZC_Z,
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
def run_glr_loop(
    step, threshold, ws_size, rule, plug_in, bandit, levels, states, rule_data, rng, limits
):
    """One run of the GLR loop (:func:`glr_run`) at the first stopping level of
    ``levels``."""
    run_args = (rule, plug_in, bandit, levels, states, rule_data, rng, limits)
    return glr_run(step, threshold, ws_size, False, run_args)


@njit(inline="always")
def run_glr_levels_loop(
    step, threshold, ws_size, rule, plug_in, bandit, levels, states, rule_data, rng, limits
):
    """One run of the GLR loop (:func:`glr_run`) at every stopping level of ``levels``."""
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
    the weights tracked by ``fixed``; ``limits = (n0, max_samples)``. ``levels = (codes,
    fparams, tables, offsets, ratios)`` holds ``L >= 1`` stopping levels: level ``l`` is
    the threshold family ``codes[l]`` with its parameters ``fparams[l]`` (an ``L x
    FPARAMS_SIZE`` array; ``ln(1/delta)`` is among them), its table ``tables[offsets[l] :
    offsets[l + 1]]`` and its lazy ratio ``ratios[l]`` (``0``: checked at every step);
    ``states[l]`` holds its per-arm threshold states
    (:func:`~baiuv.thresholds.kernels.new_state`). ``multi`` is a constant: ``False``, the
    first level alone, and the code of the others folds away (the one-level loop of
    :func:`run_glr` runs no instruction of theirs); ``True``, every level.

    ``step`` is a compiled kernel with the signature of :func:`select_arm`, ``step(rule, t,
    counts, means, variances, best, Z, plug_in, params, ws, scal, wfix, rng) -> arm``,
    called before every sample after the initialisation (unless the degeneracy guard
    forces an arm): ``Z[a]`` is the current statistic ``Z_a(t)`` of every ``a != best``,
    ``ws``/``scal`` the rule's workspace (:func:`init_workspace`, kept between steps, of
    the size ``ws_size = (rows, rows_per_arm, scalars)`` of the rule's record,
    :class:`baiuv.registry.Workspace`) and ``rng`` the run's generator. The built-in codes
    ``RULE_UNIFORM``, ``RULE_TCI`` and ``RULE_FIXED`` take inlined paths (D351: a call of
    ``step`` per sample costs the cheapest rules more than their whole step); a registered
    rule runs with ``rule = RULE_CUSTOM``. ``threshold`` is the threshold kernel of every
    level, with the signature of :func:`~baiuv.thresholds.kernels.pair_threshold_kernel`
    (a registered family's own kernel runs with ``thr_code = THRESHOLD_CUSTOM``). Not
    cached (numba cannot cache a function that receives a compiled function):
    :func:`run_glr` and :func:`run_glr_levels` are its cached instances, and a registered
    kernel costs one compilation per process.

    Each arm is first pulled ``n0`` times (round robin). Then a level stops at the first
    ``t`` with ``Z_a(t) > c_{hat a_t, a}(N_t, delta)`` for every ``a != hat a_t``
    (:func:`glr_stop_check`, eqs. ``def_stopping_rule_glrt`` /
    ``def_stopping_rule_evglrt``), ``Z_a(t)`` being the GLR statistic (``plug_in=False``;
    ``tc_unknown`` with counts) or ``Z^EV_a(t)`` (``plug_in=True``) against the empirical
    best arm ``hat a_t``, with the ``1/N`` empirical variances of Section
    ``ssec:GLR_stopping_rule``. With a ratio ``> 1`` the level is only checked at the times
    ``ceil(n0 K ratio^k)``, ``k = 0, 1, ...`` (the "lazy" rule of Section
    ``ssec:simulations_stopping_thresholds``, decision D70). The run ends when every level
    has stopped or at ``max_samples``; no rule reads a level, so each level stops where a
    run with that level alone stops on the same stream (D306: one trajectory serves every
    stopping level). Level 0 is checked here, exactly as a run with one level, the others
    by :func:`check_levels`.

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
    counts = np.zeros(K, dtype=np.int64)
    means = np.zeros(K)
    m2 = np.zeros(K)
    variances = np.zeros(K)
    out = new_outcomes(codes.shape[0], K)
    more = new_levels(codes.shape[0], K, states)  # the levels after level 0
    n_more = codes.shape[0] - 1 if multi else 0
    initial_rounds(n0, mu, sd, rng, (counts, means, m2, variances), levels, states)
    t0 = float(n0 * K)
    ws, scal = init_workspace(counts, params, ws_size, rule)
    # the statistics cache (zcache, D160: exact speed-ups by cached statistics), each entry
    # computed when read (D191: statistics computed when read)
    zc, zf = new_zcache(K)
    Z = zc[ZC_Z]
    stop = stop_rule(
        codes[0],
        borrowed(fparams[0]),
        borrowed(tables[offsets[0] : offsets[1]]),
        plug_in,
        ratios[0],
        t0,
    )
    bounds = (-math.inf, math.inf, -1)
    owner = new_run_state((counts, means, m2, variances), states[0], (zc, zf), bounds, 0)
    # the steps run on borrowed views of the loop's arrays: no reference counting per step
    # (decision D247), the arrays kept alive by owner (:func:`alive` at the end)
    run = borrowed_state(owner)
    b_counts = run.counts
    b_means = run.means
    b_vars = run.variances
    b_zc = run.zc
    b_zf = run.zf
    live0 = True  # level 0 has not stopped
    truncated = False
    reads_all_z = rule == RULE_TCI or rule < 0
    # the Top Two challenger's indifference zone (D323: the run's sampling epsilon): its
    # statistics are those of level 0's epsilon block when the zones agree (one
    # computation serves both), else in a cache of their own (D324: a stopping level's
    # epsilon changes its stopping only)
    s_eps = params[P_SAMPLING_EPSILON] if rule == RULE_TCI else 0.0
    own_cache = s_eps > 0.0 and not (fparams[0, P_EPS] == s_eps)
    if own_cache:
        szc, szf = new_zcache(K)
    else:
        szc, szf = zc, zf
    b_szc = borrowed(szc)
    b_szf = borrowed(szf)
    while True:
        run, forced, verdict = check_step(threshold, run, stop, live0 or not multi)
        t = run.t
        best = run.best
        # bounds: unknown variances, every arm certified (D191)
        bounds = not plug_in and run.n_uncert == 0
        if verdict == -1:
            if not multi or n_more == 0:
                break
            record_level(out, 0, t, counts, means, variances, False)
            live0 = False
        if multi and n_more > 0:
            n_more = check_levels(
                threshold,
                levels,
                more,
                (b_counts, b_means, b_vars, b_zc, b_zf),
                (t, t0, best, forced, bounds),
                plug_in,
                out,
            )
            if n_more == 0 and not live0:
                break
        if t >= max_samples:
            truncated = True
            break
        stats = (b_counts, b_means, b_vars)
        if forced >= 0:
            arm = forced
        elif rule == RULE_UNIFORM:
            arm = t % K
        elif rule == RULE_TCI:
            if rng.random() < params[P_BETA]:
                arm = best
            elif s_eps > 0.0:
                arm = eps_challenger(stats, best, plug_in, bounds, b_szc, b_szf, s_eps)
            else:
                arm = eps_challenger(stats, best, plug_in, bounds, b_zc, b_zf, 0.0)
        elif rule == RULE_FIXED:
            arm = c_tracking(ws[W_SUMW], counts, wfix)
        else:
            if reads_all_z:
                refresh_zcache(zc, zf, best, plug_in, counts, means, variances)
            arm = step(
                rule, t, counts, means, variances, best, Z, plug_in, params, ws, scal, wfix, rng
            )
        run, n = observe_sample(run, stop, arm, draw(arm, mu, sd, rng))
        if own_cache:
            invalidate(b_szf, arm, best, run.best)
        if multi and n_more > 0:
            observe_levels(levels, more, (arm, n, means[arm], variances[arm]), best, run.best)
    t = run.t
    alive((owner, szc, szf))  # the arrays of the borrowed views live to here
    if live0:
        record_level(out, 0, t, counts, means, variances, truncated)
    if multi and truncated:
        for lv in range(1, codes.shape[0]):
            if more[4][lv, _I_LIVE] != 0:
                record_level(out, lv, t, counts, means, variances, True)
    return out


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
def check_levels(threshold, levels, more, stats, now, plug_in, out):
    """The stopping checks of the live levels ``1 .. L-1`` at ``now = (t, t0, best,
    forced, bounds)`` (as level 0's in :func:`run_glr_loop`: the lazy grid, no check while
    the guard forces an arm), recording those that stop in ``out``; ``stats = (counts,
    means, variances, zc, zf)``, ``zc, zf`` level 0's statistics cache, whose statistics
    each level's cache shares (:func:`~baiuv.simulation.rules.zcache.share_statistics`).
    Returns the number of live levels among them."""
    codes, fparams, tables, offsets, ratios = levels
    states, zcs, zfs, bnd, idx = more
    counts, means, variances, zc0, zf0 = stats
    t, t0, best, forced, bounds = now
    n_live = 0
    for lv in range(1, codes.shape[0]):
        if idx[lv, _I_LIVE] == 0:
            continue
        n_live += 1
        ratio = ratios[lv]
        if ratio > 1.0:
            k = idx[lv, _I_KNEXT]
            if t < lazy_check_time(t0, ratio, k):
                continue
            idx[lv, _I_KNEXT] = lazy_next_index(t, t0, ratio, k)
        if forced >= 0:
            continue
        zc = zcs[lv]
        zf = zfs[lv]
        share_statistics(zc0, zf0, zc, zf)
        fail, bnd[lv, 0], bnd[lv, 1], idx[lv, _I_THI] = glr_stop_check(
            threshold, codes[lv], fparams[lv], tables[offsets[lv] : offsets[lv + 1]], states[lv],
            t, counts, means, variances, best, plug_in, bounds, zc, zf, bnd[lv, 0], bnd[lv, 1],
            idx[lv, _I_THI],
        )  # fmt: skip
        share_statistics(zc, zf, zc0, zf0)
        if fail < 0:
            record_level(out, lv, t, counts, means, variances, False)
            idx[lv, _I_LIVE] = 0
            n_live -= 1
    return n_live


@njit(inline="always")
def observe_levels(levels, more, sample, best, new_best):
    """What one sample ``sample = (arm, n, mean, var)`` (the arm, its new count, mean and
    variance) changes for the live levels ``1 .. L-1``: their threshold states and their
    statistics caches (:func:`~baiuv.simulation.rules.zcache.invalidate`)."""
    codes, fparams, tables, offsets, ratios = levels
    states, zcs, zfs, bnd, idx = more
    arm, n, mean, var = sample
    for lv in range(1, codes.shape[0]):
        if idx[lv, _I_LIVE] != 0:
            if has_state(fparams[lv]):
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
