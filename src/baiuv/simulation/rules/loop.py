"""The GLR loop: one run of a sampling rule with the GLR (or EV-GLR) stopping rule.

:func:`run_glr_loop` is generic over the rule's step kernel; :func:`run_glr` is its cached
instance for the built-in rules (:func:`~baiuv.simulation.rules.select.select_arm`).

The loop writes out, with its caches, two steps that have a plain implementation
elsewhere: the stopping check (:func:`~baiuv.simulation.rules.stopping.glr_stop_check`,
which the identifier calls) and the TCI challenger
(:func:`~baiuv.simulation.rules.tci.step_tci`). The caches decide without computing every
statistic and threshold, and the decisions are the same bits as the plain steps
(``tests/unit/test_kernel_exact.py``; the identifier fed with the simulator's draws
reproduces its runs, ``tests/unit/test_identify.py``). A kernel that binds the loop's
arrays costs reference-count updates at every call, whether numba inlines it in its IR,
LLVM inlines it, or it is called: written as kernels of their own, these steps made the
loop 2 to 3 times slower (decision D210).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from baiuv.model.glr_kernels import empirical_best
from baiuv.model.transport import tc_unknown, tc_unknown_bounds, tc_unknown_rational_bounds
from baiuv.registry import BUILTIN_WORKSPACE, P_BETA, RULE_FIXED, RULE_TCI, RULE_UNIFORM
from baiuv.thresholds.kernels import (
    depends_on_t_only,
    has_state,
    pair_threshold_kernel,
    update_state,
)

from .select import select_arm
from .statistics import (
    certified_arm,
    degenerate_arm,
    draw,
    draw_observe,
    pair_stat,
    refresh_z,
    welford,
)
from .stopping import lazy_check_time, lazy_next_index
from .tracking import c_tracking
from .workspace import W_SUMW, init_workspace

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
    forces an arm): ``Z[a]`` is the current GLR (or EV-GLR) statistic ``Z_a(t)`` of every
    ``a != best``, ``ws``/``scal`` the rule's workspace (:func:`init_workspace`, kept
    between steps, of the size ``ws_size = (rows, rows_per_arm, scalars)`` of the rule's
    record, :class:`baiuv.registry.Workspace`) and ``rng`` the run's generator.
    ``threshold`` is the threshold kernel,
    with the signature of :func:`~baiuv.thresholds.kernels.pair_threshold_kernel` (that
    function for the built-in families, a family's own kernel for a family registered with
    one, run with ``thr_code = THRESHOLD_CUSTOM``). The built-in codes ``RULE_UNIFORM``,
    ``RULE_TCI`` and ``RULE_FIXED`` take inlined paths of this loop; a rule registered
    with its own kernel runs with ``rule = RULE_CUSTOM``. This function is not cached
    (numba cannot cache a function that receives a compiled function as an argument):
    :func:`run_glr` is its cached instance for the built-in rules and families, and a
    registered kernel costs one compilation of the loop per process.

    Each arm is first pulled ``n0`` times (round robin). Then, before every sample, the
    statistics ``Z_a(t)`` (``plug_in=False``; ``tc_unknown`` with counts) or ``Z^EV_a(t)``
    (``plug_in=True``) are computed against the empirical best arm ``hat a_t``
    (:func:`baiuv.model.glr_kernels.glr_stats_into`) and the run stops at the first ``t`` with ``Z_a(t) >
    c_{hat a_t, a}(N_t, delta)`` for every ``a != hat a_t`` (:func:`glr_stop_check`, eqs.
    ``def_stopping_rule_glrt`` / ``def_stopping_rule_evglrt``). Variances are the ``1/N``
    empirical variances of Section ``ssec:GLR_stopping_rule``.

    With ``lazy_ratio > 1`` the stopping rule is only evaluated at the times
    ``ceil(n0 K lazy_ratio^k)``, ``k = 0, 1, ...`` (the "lazy" rule of Section
    ``ssec:simulations_stopping_thresholds``, decision D70); sampling and the per-arm
    states are updated at every step. ``lazy_ratio = 0`` checks at every step.

    Returns
    -------
    (tau, recommendation, counts, truncated) : stopping time (all samples counted), the
    empirical best arm at ``tau``, final counts, and whether ``max_samples`` was hit.
    """
    K = mu.shape[0]
    sd = np.sqrt(sigma2)
    counts = np.zeros(K, dtype=np.int64)
    means = np.zeros(K)
    m2 = np.zeros(K)
    variances = np.zeros(K)
    for _ in range(n0):
        for a in range(K):
            draw_observe(
                a, mu, sd, rng, counts, means, m2, variances, thr_code, thr_fparams, states
            )
    t = n0 * K
    ws, scal = init_workspace(counts, params, ws_size, rule >= 0)
    # Cached statistics (decision D160): Z[a] and thr_pair[a] are valid while ok[a]; one
    # sample of arm j invalidates j only, or every arm when j is (or the sample changes)
    # the empirical best arm. log_counts[a] = log N_a for the TCI challenger. Z[a] and log N_a are
    # computed when read (decision D191): by the stopping check, the TCI challenger, a
    # registered step kernel, or the degeneracy guard when the certificate fails.
    Z = np.empty(K)
    thr_pair = np.empty(K)
    ok = np.zeros(K, dtype=np.bool_)
    log_counts = np.empty(K)  # valid where log_ok: log N_a is computed when TCI reads it
    log_ok = np.zeros(K, dtype=np.bool_)
    # certified enclosure [zlo[a], zhi[a]] of the computed Z_a (unknown variances, decision
    # D210), valid where bnd_ok (invalidated with ok): it decides the stopping check and the
    # TCI challenger without the cubic solve when it can
    zlo = np.empty(K)
    zhi = np.empty(K)
    bnd_ok = np.zeros(K, dtype=np.bool_)
    # the looser rational enclosure [rlo[a], rhi[a]] (divisions only, decision D217), valid
    # where rat_ok (invalidated with ok): the TCI challenger tries it first
    rlo = np.empty(K)
    rhi = np.empty(K)
    rat_ok = np.zeros(K, dtype=np.bool_)
    bounded = not plug_in
    # certificate of the degeneracy guard (D191): n_uncert = number of arms outside
    # certified_arm; when it is 0, degenerate_arm returns -1 whatever the statistics
    n_uncert = 0
    for a in range(K):
        if not certified_arm(means[a], variances[a]):
            n_uncert += 1
    t_only = depends_on_t_only(thr_fparams)
    stateful = has_state(thr_fparams)
    thr_lo = -math.inf  # certified lower bound of the t-only threshold at every t >= now
    thr_hi = math.inf  # certified upper bound of the t-only threshold at every t <= t_hi
    t_hi = -1
    st0 = states[0]  # the t-only threshold reads no state: no per-call slices (D192)
    lazy = lazy_ratio > 1.0
    t0 = float(t)
    k_next = 0
    truncated = False
    best = empirical_best(means)
    reads_all_z = rule == RULE_TCI or rule < 0
    while True:
        if n_uncert > 0:  # exact guard: it reads every challenger's statistic
            refresh_z(Z, thr_pair, ok, best, plug_in, counts, means, variances)
            forced = degenerate_arm(counts, variances, Z, best)
        else:
            forced = -1
        # int(): the index typed int64, not as the literal 0, so one compiled callee (D225)
        if not lazy or t >= lazy_check_time(t0, lazy_ratio, int(k_next)):
            if lazy:
                k_next = lazy_next_index(t, t0, lazy_ratio, int(k_next))
            stop = forced < 0
            thr_t = math.nan
            have_thr_t = False
            for a in range(K):  # glr_stop_check, in the same order, with cached values
                if not stop:
                    break
                if a == best:
                    continue
                if not ok[a]:
                    mb = means[best]
                    sb = variances[best]
                    nb = counts[best]
                    if bounded and t_only and n_uncert == 0:
                        # an upper bound of Z_a at most thr_lo decides: not (Z_a > c(t)) (D210);
                        # a lower bound above thr_hi (an upper bound of c(t) while t <= t_hi)
                        # decides: Z_a > c(t) (D218). Rational enclosure first (D216), then
                        # the logarithmic one, then Z_a.
                        if not rat_ok[a]:
                            rlo[a], rhi[a] = tc_unknown_rational_bounds(
                                mb, sb, nb, means[a], variances[a], counts[a]
                            )
                            rat_ok[a] = True
                        if rhi[a] <= thr_lo:
                            stop = False
                            break
                        if t <= t_hi and rlo[a] > thr_hi:
                            continue
                        if not bnd_ok[a]:
                            zlo[a], zhi[a] = tc_unknown_bounds(
                                mb, sb, nb, means[a], variances[a], counts[a]
                            )
                            bnd_ok[a] = True
                        if zhi[a] <= thr_lo:
                            stop = False
                            break
                        if t <= t_hi and zlo[a] > thr_hi:
                            continue
                    Z[a] = pair_stat(plug_in, mb, sb, nb, means[a], variances[a], counts[a])
                    thr_pair[a] = math.nan
                    ok[a] = True
                z = Z[a]
                if t_only:
                    if not (z > thr_lo):  # then not (z > c(t)) either
                        stop = False
                        break
                    if t > t_hi:  # upper bound c(t_hi) for the times up to t_hi (D192)
                        t_hi = t + t // 16 + 1
                        c_hi = threshold(
                            thr_code,
                            thr_fparams,
                            thr_table,
                            float(t_hi),
                            counts[best],
                            counts[a],
                            st0,
                            st0,
                        )
                        thr_hi = c_hi + 1e-9 * (1.0 + abs(c_hi))
                        if not math.isfinite(thr_hi):
                            thr_hi = math.inf
                    if z > thr_hi:  # then z > c(t) too
                        continue
                    if not have_thr_t:
                        thr_t = threshold(
                            thr_code,
                            thr_fparams,
                            thr_table,
                            float(t),
                            counts[best],
                            counts[a],
                            st0,
                            st0,
                        )
                        have_thr_t = True
                        if math.isfinite(thr_t):
                            thr_lo = thr_t - 1e-9 * (1.0 + abs(thr_t))
                    c = thr_t
                else:
                    if math.isnan(thr_pair[a]):
                        thr_pair[a] = threshold(
                            thr_code,
                            thr_fparams,
                            thr_table,
                            float(t),
                            counts[best],
                            counts[a],
                            states[best],
                            states[a],
                        )
                    c = thr_pair[a]
                if not (z > c):
                    stop = False
                    break
            if stop:
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
                # the TCI challenger argmin_{a != best} Z_a + log N_a, first index on ties
                # (step_tci). v_a = Z_a + log N_a lies in [zlo_a + log N_a, zhi_a +
                # log N_a] (rounding is monotone) or is exact where ok[a]. a* has the smallest
                # upper end v*; an arm whose lower end exceeds v* cannot attain the minimum;
                # when every other arm is such, a* is the challenger, else the exact v_a of the
                # remaining arms decide in index order (decision D210).
                mb = means[best]
                sb = variances[best]
                nb = counts[best]
                use_bounds = bounded and n_uncert == 0
                for a in range(K):
                    if a != best and not log_ok[a]:
                        log_counts[a] = math.log(counts[a])
                        log_ok[a] = True
                arm = -1
                if use_bounds:
                    # the same test on the tightest enclosure at hand, rational where there
                    # is no other: when it certifies a*, no logarithm is taken (D217)
                    v_star = math.inf
                    for a in range(K):
                        if a == best:
                            continue
                        if ok[a]:
                            hi = Z[a]
                        elif bnd_ok[a]:
                            hi = zhi[a]
                        else:
                            if not rat_ok[a]:
                                rlo[a], rhi[a] = tc_unknown_rational_bounds(
                                    mb, sb, nb, means[a], variances[a], counts[a]
                                )
                                rat_ok[a] = True
                            hi = rhi[a]
                        hi += log_counts[a]
                        if hi < v_star or arm < 0:
                            v_star = hi
                            arm = a
                    # the tightest lower end at hand, written out here and below: an inlined
                    # helper for it made this loop 1.2x (K = 5) to 2x (K = 20) slower
                    for a in range(K):
                        if a != best and a != arm:
                            lo = Z[a] if ok[a] else (zlo[a] if bnd_ok[a] else rlo[a])
                            if not (lo + log_counts[a] > v_star):
                                arm = -1
                                break
                if arm < 0:  # not certified by the enclosures above
                    # v_star, an upper end of some v_a, bounds min v_a: an arm whose rational
                    # lower end exceeds it cannot attain the minimum, and keeps its rational
                    # enclosure (no logarithms, decision D231)
                    v_cut = v_star if use_bounds else math.inf
                    all_exact = True
                    v_star = math.inf
                    for a in range(K):
                        if a == best:
                            continue
                        if not ok[a] and not use_bounds:
                            Z[a] = pair_stat(plug_in, mb, sb, nb, means[a], variances[a], counts[a])
                            thr_pair[a] = math.nan
                            ok[a] = True
                        if ok[a]:
                            hi = Z[a] + log_counts[a]
                        else:
                            all_exact = False
                            if not bnd_ok[a]:
                                if rlo[a] + log_counts[a] > v_cut:
                                    continue
                                zlo[a], zhi[a] = tc_unknown_bounds(
                                    mb, sb, nb, means[a], variances[a], counts[a]
                                )
                                bnd_ok[a] = True
                            hi = zhi[a] + log_counts[a]
                        if hi < v_star or arm < 0:
                            v_star = hi
                            arm = a
                    if not all_exact:  # certify a*, else decide among the candidates
                        unique = True
                        for a in range(K):
                            if a != best and a != arm:
                                lo = Z[a] if ok[a] else (zlo[a] if bnd_ok[a] else rlo[a])
                                if not (lo + log_counts[a] > v_star):
                                    unique = False
                                    break
                        if not unique:
                            arm = -1
                            vmin = math.inf
                            for a in range(K):
                                if a == best:
                                    continue
                                lo = Z[a] if ok[a] else (zlo[a] if bnd_ok[a] else rlo[a])
                                lo += log_counts[a]
                                if not (lo <= v_star):  # v_a >= lo > v* >= min v
                                    continue
                                if not ok[a]:
                                    Z[a] = tc_unknown(mb, sb, nb, means[a], variances[a], counts[a])
                                    thr_pair[a] = math.nan
                                    ok[a] = True
                                v = Z[a] + log_counts[a]
                                if v < vmin or arm < 0:
                                    vmin = v
                                    arm = a
        elif rule == RULE_FIXED:
            arm = c_tracking(ws[W_SUMW], counts, wfix)
        else:
            if reads_all_z:
                refresh_z(Z, thr_pair, ok, best, plug_in, counts, means, variances)
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
        log_ok[arm] = False
        t += 1
        if n_uncert == 0 and arm != best:  # finite means: argmax changes only at arm
            ma = means[arm]
            mb = means[best]
            new_best = arm if (ma > mb or (ma == mb and arm < best)) else best
        else:
            new_best = empirical_best(means)
        if arm == best or new_best != best:
            for a in range(K):
                ok[a] = False
                bnd_ok[a] = False
                rat_ok[a] = False
        else:
            ok[arm] = False
            bnd_ok[arm] = False
            rat_ok[arm] = False
        best = new_best
    rec = 0
    for a in range(1, K):
        if means[a] > means[rec]:
            rec = a
    return t, rec, counts, truncated
