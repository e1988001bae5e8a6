"""The GLR loop: one run of a sampling rule with the GLR (or EV-GLR) stopping rule.

:func:`run_glr_loop` is generic over the rule's step kernel and the threshold kernel;
:func:`run_glr` is its cached instance for the built-in rules
(:func:`~baiuv.simulation.rules.select.select_arm`) and threshold families
(:func:`~baiuv.thresholds.kernels.pair_threshold_kernel`).

The loop is built from the kernels the identifier also runs: the stopping check
(:func:`~baiuv.simulation.rules.stopping.glr_stop_check`) and the TCI challenger
(:func:`~baiuv.simulation.rules.tci.tci_challenger`), which read and fill the statistics
cache (:mod:`~baiuv.simulation.rules.zcache`, invalidated after each sample by
:func:`~baiuv.simulation.rules.zcache.invalidate`) and compute a statistic, an enclosure
or a threshold only when a decision needs it. Both are inlined into the loop and receive
borrowed views of its arrays (:func:`~baiuv.simulation.rules.borrow.borrowed`): with the
arrays themselves, each call would update their reference counts, atomically, and cost
as much as the whole step of the cheapest rules (decision D247).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from baiuv.model.glr_kernels import empirical_best
from baiuv.registry import BUILTIN_WORKSPACE, P_BETA, RULE_FIXED, RULE_TCI, RULE_UNIFORM
from baiuv.thresholds.kernels import has_state, pair_threshold_kernel, update_state

from .borrow import borrowed
from .select import select_arm
from .statistics import certified_arm, degenerate_arm, draw, draw_observe, welford
from .stopping import glr_stop_check, lazy_check_time, lazy_next_index
from .tci import tci_challenger
from .tracking import c_tracking
from .workspace import W_SUMW, init_workspace
from .zcache import ZC_Z, invalidate, new_zcache, refresh_zcache

_BUILTIN_WS = tuple(BUILTIN_WORKSPACE)  # (rows, rows_per_arm, scalars), a compile-time constant


@njit(cache=True)
def run_glr(
    rule,
    plug_in,
    mu,
    sigma2,
    n0,
    thr_code,
    thr_fparams,
    thr_table,
    states,
    params,
    wfix,
    rng,
    max_samples,
    lazy_ratio=0.0,
):
    """:func:`run_glr_loop` with the built-in rules (:func:`select_arm`) and threshold
    families (:func:`~baiuv.thresholds.kernels.pair_threshold_kernel`): compiled once and
    kept in numba's cache (the generic loop is compiled into this function, with the step
    and threshold functions inlined)."""
    return run_glr_loop(
        select_arm,
        pair_threshold_kernel,
        _BUILTIN_WS,
        rule,
        plug_in,
        mu,
        sigma2,
        n0,
        thr_code,
        thr_fparams,
        thr_table,
        states,
        params,
        wfix,
        rng,
        max_samples,
        lazy_ratio,
    )


@njit(inline="always")
def run_glr_loop(
    step,
    threshold,
    ws_size,
    rule,
    plug_in,
    mu,
    sigma2,
    n0,
    thr_code,
    thr_fparams,
    thr_table,
    states,
    params,
    wfix,
    rng,
    max_samples,
    lazy_ratio=0.0,
):
    """One run of the sampling rule ``step`` with the GLR (or EV-GLR) stopping rule.

    ``step`` is a compiled kernel with the signature of :func:`select_arm`, ``step(rule, t,
    counts, means, variances, best, Z, plug_in, params, ws, scal, wfix, rng) -> arm``,
    called before every sample after the initialisation (unless the degeneracy guard
    forces an arm): ``Z[a]`` is the current statistic ``Z_a(t)`` of every ``a != best``,
    ``ws``/``scal`` the rule's workspace (:func:`init_workspace`, kept between steps, of
    the size ``ws_size = (rows, rows_per_arm, scalars)`` of the rule's record,
    :class:`baiuv.registry.Workspace`) and ``rng`` the run's generator. The built-in codes
    ``RULE_UNIFORM``, ``RULE_TCI`` and ``RULE_FIXED`` take inlined paths; a registered
    rule runs with ``rule = RULE_CUSTOM``. ``threshold`` is the threshold kernel, with the
    signature of :func:`~baiuv.thresholds.kernels.pair_threshold_kernel` (a registered
    family's own kernel runs with ``thr_code = THRESHOLD_CUSTOM``). Not cached (numba
    cannot cache a function that receives a compiled function): :func:`run_glr` is its
    cached instance, and a registered kernel costs one compilation per process.

    Each arm is first pulled ``n0`` times (round robin). Then the run stops at the first
    ``t`` with ``Z_a(t) > c_{hat a_t, a}(N_t, delta)`` for every ``a != hat a_t``
    (:func:`glr_stop_check`, eqs. ``def_stopping_rule_glrt`` /
    ``def_stopping_rule_evglrt``), ``Z_a(t)`` being the GLR statistic (``plug_in=False``;
    ``tc_unknown`` with counts) or ``Z^EV_a(t)`` (``plug_in=True``) against the empirical
    best arm ``hat a_t``, with the ``1/N`` empirical variances of Section
    ``ssec:GLR_stopping_rule``. With ``lazy_ratio > 1`` the stopping rule is only
    evaluated at the times ``ceil(n0 K lazy_ratio^k)``, ``k = 0, 1, ...`` (the "lazy" rule
    of Section ``ssec:simulations_stopping_thresholds``, decision D70); ``lazy_ratio = 0``
    checks at every step. Returns ``(tau, recommendation, counts, truncated)``: the
    stopping time (all samples counted), the empirical best arm at ``tau``, the final
    counts, and whether ``max_samples`` was hit.
    """
    K = mu.shape[0]
    sd = np.sqrt(sigma2)
    counts = np.zeros(K, dtype=np.int64)
    means = np.zeros(K)
    m2 = np.zeros(K)
    variances = np.zeros(K)
    initial_rounds(n0, mu, sd, rng, counts, means, m2, variances, thr_code, thr_fparams, states)
    t = n0 * K
    ws, scal = init_workspace(counts, params, ws_size, rule >= 0)
    # the statistics cache (zcache, D160: exact speed-ups by cached statistics), each entry
    # computed when read (D191: statistics computed when read)
    zc, zf = new_zcache(K)
    Z = zc[ZC_Z]
    # borrowed views of the loop's arrays for the inlined kernels: no reference counting
    # per call (decision D247)
    b_counts = borrowed(counts)
    b_means = borrowed(means)
    b_vars = borrowed(variances)
    b_zc = borrowed(zc)
    b_zf = borrowed(zf)
    b_states = borrowed(states)
    b_fparams = borrowed(thr_fparams)
    b_table = borrowed(thr_table)
    # certificate of the degeneracy guard (D191): n_uncert = number of arms outside
    # certified_arm; when it is 0, degenerate_arm returns -1 whatever the statistics
    n_uncert = 0
    for a in range(K):
        if not certified_arm(means[a], variances[a]):
            n_uncert += 1
    stateful = has_state(thr_fparams)
    thr_lo = -math.inf  # bounds of a t-only threshold (glr_stop_check)
    thr_hi = math.inf
    t_hi = -1
    lazy = lazy_ratio > 1.0
    t0 = float(t)
    k_next = 0
    truncated = False
    best = empirical_best(means)
    reads_all_z = rule == RULE_TCI or rule < 0
    while True:
        if n_uncert > 0:  # exact guard: it reads every challenger's statistic
            refresh_zcache(zc, zf, best, plug_in, counts, means, variances)
            forced = degenerate_arm(counts, variances, Z, best)
        else:
            forced = -1
        # int(): the index typed int64, not as the literal 0, so one compiled callee (D225)
        if not lazy or t >= lazy_check_time(t0, lazy_ratio, int(k_next)):
            if lazy:
                k_next = lazy_next_index(t, t0, lazy_ratio, int(k_next))
            if forced < 0:
                fail, thr_lo, thr_hi, t_hi = glr_stop_check(
                    threshold, thr_code, b_fparams, b_table, b_states, t, b_counts, b_means, b_vars,
                    best, plug_in, not plug_in and n_uncert == 0, b_zc, b_zf, thr_lo, thr_hi, t_hi,
                )  # fmt: skip
                if fail < 0:
                    break
        if t >= max_samples:
            truncated = True
            break
        if forced >= 0:
            arm = forced
        elif rule == RULE_UNIFORM:
            arm = t % K
        elif rule == RULE_TCI:
            if rng.random() < params[P_BETA]:
                arm = best
            else:
                arm = tci_challenger(
                    b_counts, b_means, b_vars, best, plug_in, not plug_in and n_uncert == 0, b_zc,
                    b_zf,
                )  # fmt: skip
        elif rule == RULE_FIXED:
            arm = c_tracking(ws[W_SUMW], counts, wfix)
        else:
            if reads_all_z:
                refresh_zcache(zc, zf, best, plug_in, counts, means, variances)
            arm = step(
                rule, t, counts, means, variances, best, Z, plug_in, params, ws, scal, wfix, rng
            )
        # draw_observe, with the threshold-state update in this loop (see welford)
        was_certified = certified_arm(means[arm], variances[arm])
        n = welford(arm, draw(arm, mu, sd, rng), counts, means, m2, variances)
        if stateful:
            update_state(thr_code, thr_fparams, states[arm], n, means[arm], variances[arm])
        now_certified = certified_arm(means[arm], variances[arm])
        if now_certified and not was_certified:
            n_uncert -= 1
        elif was_certified and not now_certified:
            n_uncert += 1
        t += 1
        if n_uncert == 0 and arm != best:  # finite means: argmax changes only at arm
            ma = means[arm]
            mb = means[best]
            new_best = arm if (ma > mb or (ma == mb and arm < best)) else best
        else:
            new_best = empirical_best(means)
        invalidate(b_zf, arm, best, new_best)
        best = new_best
    rec = 0
    for a in range(1, K):
        if means[a] > means[rec]:
            rec = a
    return t, rec, counts, truncated


@njit(cache=True)
def initial_rounds(n0, mu, sd, rng, counts, means, m2, variances, thr_code, thr_fparams, states):
    """The initialisation of a run: ``n0`` rounds of one sample of each arm, in index
    order (:func:`draw_observe`), into the zero statistics ``counts, means, m2,
    variances``."""
    for _ in range(n0):
        for a in range(mu.shape[0]):
            draw_observe(
                a, mu, sd, rng, counts, means, m2, variances, thr_code, thr_fparams, states
            )
