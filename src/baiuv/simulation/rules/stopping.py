"""The GLR stopping rule (Section ``ssec:GLR_stopping_rule``, eqs. ``def_stopping_rule_glrt``
/ ``def_stopping_rule_evglrt``) and the lazy stopping rule's grid (decision D70).

:func:`glr_stop_check` is the one stopping check of the simulator's loop, the identifier
and its batched replay: it reads the statistics cache (:mod:`.zcache`) and computes a
statistic, an enclosure or a threshold only when the decision needs it.
"""

from __future__ import annotations

import math

from numba import njit

from baiuv.model.transport import tc_unknown_bounds, tc_unknown_rational_bounds
from baiuv.thresholds.kernels import (
    LB_FLOOR,
    LB_MARGIN,
    LB_MAX_COUNT,
    LB_NONE,
    LB_PROGRAM,
    P_EPS,
    P_ETA0,
    P_ETA1,
    P_GAMMA,
    P_LB_MODE,
    P_LPRE,
    P_S,
    S_LEVEL,
    S_LOGGR,
    S_MEAN,
    S_TAG,
    S_VAR,
    depends_on_t_only,
    log_gamma_R,
    lower_bound_floor,
    lower_bound_nmin,
    lower_bound_window,
    pair_threshold_kernel,
    pair_upper_bound,
    program_lower_bound,
)

from .statistics import pair_stat
from .zcache import (
    EPS_FLAGS,
    EPS_ROWS,
    ZC_HIA,
    ZC_HIB,
    ZC_LB,
    ZC_LBB,
    ZC_LVA,
    ZC_LVB,
    ZC_RHI,
    ZC_RLO,
    ZC_THR,
    ZC_UB,
    ZC_UBB,
    ZC_UHA,
    ZC_UHB,
    ZC_ULVA,
    ZC_ULVB,
    ZC_Z,
    ZC_ZHI,
    ZC_ZLO,
    ZF_BND,
    ZF_LB,
    ZF_OK,
    ZF_RAT,
    ZF_UB,
)

#: Outcomes of a shortcut of :func:`glr_stop_check` for one challenger: the challenger
#: fails (the rule does not stop), passes (its statistic is above its threshold), or the
#: shortcut does not decide.
FAILS = 0
PASSES = 1
UNDECIDED = 2


@njit(inline="always")
def glr_stop_check(threshold, run, rule):
    """GLR stopping rule at the run state ``run`` (a
    :class:`~baiuv.simulation.rules.run_state.RunState`) for the stopping rule ``rule`` (a
    :class:`~baiuv.simulation.rules.run_state.StopRule`): stop when ``Z_a(t) > c_{hat a_t,
    a}(N_t, delta)`` for every ``a != hat a_t`` (eqs. ``def_stopping_rule_glrt`` /
    ``def_stopping_rule_evglrt``), the thresholds from the kernel ``threshold`` (signature
    of :func:`~baiuv.thresholds.kernels.pair_threshold_kernel`); the challengers in index
    order, up to the first that fails. This function and its helpers are inlined, so that
    the kernel is never passed as a value, which numba cannot cache: they are compiled into
    their cached callers (the simulator's loop, the batched replay,
    :func:`glr_stop_check_builtin`), or once per process and kernel from Python.

    A statistic missing from the cache ``run.zc, run.zf`` (:mod:`.zcache`) is computed
    unless its enclosures decide (:func:`statistic_verdict`), on the block of the
    indifference zone (:func:`epsilon_block`). For a family of ``t`` alone
    (``depends_on_t_only``), ``run.thr_lo`` is a certified lower bound of the threshold
    from now on and ``run.thr_hi`` an upper bound up to ``run.t_hi`` (D160: certified skips
    of the threshold; D192: its certified upper bound); for any other family the pair
    thresholds and their cached bounds decide (:func:`pair_threshold_verdict`). Every
    shortcut takes the decision ``Z_a`` and the threshold take (``Z_a <= lo <= c`` fails).

    Returns ``(fail, thr_lo, thr_hi, t_hi)``: ``fail`` is the first challenger that is not
    beaten, ``-1`` when the rule stops; the bounds ``thr_lo, thr_hi, t_hi`` of the next
    check (those of a new run state: ``-inf, inf, -1``).
    """
    t = run.t
    best = run.best
    zc = run.zc
    zf = run.zf
    thr_lo = run.thr_lo
    thr_hi = run.thr_hi
    t_hi = run.t_hi
    bounds = not rule.plug_in and run.n_uncert == 0  # unknown variances, every arm certified
    t_only = depends_on_t_only(rule.fparams)
    thr_t = math.nan
    have_thr_t = False
    block = epsilon_block(rule.fparams)
    zr, fr = block[1], block[2]
    for a in range(run.counts.shape[0]):
        if a == best:
            continue
        # a certified lower bound of the threshold (-inf when none): thr_lo (t-only) or
        # the pair's cached bound (D254)
        lo = thr_lo if t_only else pair_lower_bound(run, a)
        # a certified upper bound of a pair threshold (inf when none; D348)
        hi = thr_hi if t_only else pair_upper_bound_cached(run, a)
        if zf[ZF_OK + fr, a] == 0:
            bnd = (bounds, lo, hi, t_only, t_hi)
            verdict = statistic_verdict(run, rule.plug_in, a, bnd, block)
            if verdict == FAILS:
                return a, thr_lo, thr_hi, t_hi
            if verdict == PASSES:
                continue
        z = zc[ZC_Z + zr, a]
        if t_only:
            if not (z > thr_lo):  # then not (z > c(t)) either
                return a, thr_lo, thr_hi, t_hi
            if t > t_hi:
                t_hi, thr_hi = t_only_upper_bound(threshold, rule, run)
            if z > thr_hi:  # then z > c(t) too
                continue
            if not have_thr_t:
                thr_t = t_only_threshold(threshold, rule, run, t)
                have_thr_t = True
                if math.isfinite(thr_t):
                    thr_lo = thr_t - 1e-9 * (1.0 + abs(thr_t))
            c = thr_t
        else:
            c = zc[ZC_THR + zr, a]
            if math.isnan(c):
                verdict, c = pair_threshold_verdict(threshold, rule, run, a, z, (lo, hi), zr)
                if verdict == FAILS:
                    return a, thr_lo, thr_hi, t_hi
                if verdict == PASSES:
                    continue
        if not (z > c):
            return a, thr_lo, thr_hi, t_hi
    return -1, thr_lo, thr_hi, t_hi


@njit(inline="always")
def epsilon_block(thr_fparams):
    """``(eps, zr, fr)``: the indifference zone ``epsilon = thr_fparams[P_EPS]`` and the
    first row of the statistics cache's block that holds its statistics (``zr`` in ``zc``,
    ``fr`` in ``zf``).

    With ``epsilon > 0`` the statistic of ``a`` is the GLR against the alternatives where
    ``a`` beats ``hat a_t`` by more than ``epsilon``, which is ``Z_a`` (or ``Z^EV_a``) with
    ``a``'s empirical mean shifted by ``-epsilon`` (D290: the epsilon-GLR is the GLR with
    the challenger's mean shifted by -epsilon): every statistic and enclosure is computed on
    that shifted mean and kept in the cache's epsilon block (``EPS_ROWS``, ``EPS_FLAGS``),
    so the first block keeps the statistics of ``epsilon = 0`` (D291: the
    epsilon-statistics in their own cache block, which the Top Two challenger with the same
    sampling epsilon reads too). ``epsilon = 0`` (or ``nan``) is the paper's rule, on the
    first block, bit for bit."""
    eps = thr_fparams[P_EPS]
    if eps > 0.0:
        return eps, EPS_ROWS, EPS_FLAGS
    return 0.0, 0, 0  # means[a] - 0.0 is means[a], bit for bit


@njit(inline="always")
def statistic_verdict(run, plug_in, a, thr_bounds, block):
    """Compute and store ``Z_a`` (:func:`~baiuv.simulation.rules.statistics.pair_stat`,
    ``Z^EV_a`` with ``plug_in``) against ``run.best`` in the cache's block ``block``
    (:func:`epsilon_block`), the pair's threshold there marked as not computed; return
    ``UNDECIDED``, or ``FAILS`` or ``PASSES`` when the certified enclosures of ``Z_a``
    decide first against the bounds ``thr_bounds = (enclose, lo, hi, t_only, t_hi)`` of
    its threshold (the enclosures are kept in the block too).

    The enclosures are used with unknown variances and every arm certified (``enclose``:
    ``run.n_uncert == 0``, decision D191) and a bound to compare with. An upper bound of
    ``Z_a`` at most ``lo`` decides: not (``Z_a > c``) (D210); a lower bound above ``hi``
    (an upper bound of ``c`` while ``t <= t_hi`` for a family of ``t`` alone) decides:
    ``Z_a > c`` (D218: a challenger passed on a certified lower bound). The rational
    enclosure first (D216: certified enclosures of ``Z_a``, the rational one first), then
    the logarithmic one, then ``Z_a``."""
    enclose, lo, hi, t_only, t_hi = thr_bounds
    eps, zr, fr = block
    zc = run.zc
    zf = run.zf
    best = run.best
    means = run.means
    variances = run.variances
    counts = run.counts
    mb = means[best]
    sb = variances[best]
    nb = counts[best]
    ma = means[a] - eps  # (D290: the challenger's mean shifted by -epsilon)
    if enclose and (t_only or lo > -math.inf or hi < math.inf):
        if zf[ZF_RAT + fr, a] == 0:
            zc[ZC_RLO + zr, a], zc[ZC_RHI + zr, a] = tc_unknown_rational_bounds(
                mb, sb, nb, ma, variances[a], counts[a]
            )
            zf[ZF_RAT + fr, a] = 1
        if zc[ZC_RHI + zr, a] <= lo:
            return FAILS
        if (run.t <= t_hi or not t_only) and zc[ZC_RLO + zr, a] > hi:
            return PASSES
        if zf[ZF_BND + fr, a] == 0:
            zc[ZC_ZLO + zr, a], zc[ZC_ZHI + zr, a] = tc_unknown_bounds(
                mb, sb, nb, ma, variances[a], counts[a]
            )
            zf[ZF_BND + fr, a] = 1
        if zc[ZC_ZHI + zr, a] <= lo:
            return FAILS
        if (run.t <= t_hi or not t_only) and zc[ZC_ZLO + zr, a] > hi:
            return PASSES
    zc[ZC_Z + zr, a] = pair_stat(plug_in, mb, sb, nb, ma, variances[a], counts[a])
    zc[ZC_THR + zr, a] = math.nan
    zf[ZF_OK + fr, a] = 1
    return UNDECIDED


@njit(inline="always")
def pair_threshold_verdict(threshold, rule, run, a, z, bounds, zr):
    """``(verdict, c)`` for the challenger ``a`` with statistic ``z`` when its pair
    threshold is not in the cache: ``FAILS`` or ``PASSES`` when the bounds ``(lo, hi)`` of
    the threshold (:func:`pair_lower_bound`, :func:`pair_upper_bound_cached`) or a
    window's lower bound (:func:`window_lower_bound`) decide, else ``UNDECIDED`` with the
    threshold ``c`` (kernel ``threshold``), stored in the cache's row ``ZC_THR + zr``.

    A pair threshold computed once both counts reached the family's
    :func:`~baiuv.thresholds.kernels.lower_bound_nmin` is kept in the cache (row
    ``ZC_LB``, widened) as a lower bound of the pair's threshold at later counts while both
    arms' states stay at the same peeling levels (D254: cached lower bounds of the pair
    thresholds); below that count, a family with a frozen or floor bound keeps one (D349:
    the lower bound of a pair with one arm below its monotone count); and a pass keeps an
    upper bound of the threshold over windows of the counts (D348: cached upper bounds of
    the pair thresholds)."""
    lo, hi = bounds
    thr_fparams = rule.fparams
    counts = run.counts
    best = run.best
    if not (z > lo):  # then not (z > c) either (D254)
        return FAILS, lo
    if z > hi:  # then z > c too (D348)
        return PASSES, hi
    nmin = lower_bound_nmin(thr_fparams)
    monotone = nmin <= counts[a] <= LB_MAX_COUNT and nmin <= counts[best] <= LB_MAX_COUNT
    if lo == -math.inf and not monotone:  # a window's bound, when the family has one
        lo = window_lower_bound(threshold, rule, run, a)
        if not (z > lo):
            return FAILS, lo
    c = pair_threshold(threshold, rule, run, a)
    run.zc[ZC_THR + zr, a] = c
    if monotone:  # c bounds the pair's threshold at every later count
        keep_lower_bound(run, a, c, (LB_MAX_COUNT, LB_MAX_COUNT))
    elif lo == -math.inf and thr_fparams[P_LB_MODE] == LB_NONE:
        keep_frozen_lower_bound(run, a, c, nmin)
    elif thr_fparams[P_LB_MODE] == LB_FLOOR:  # c >= its floor (D349)
        keep_smaller_frozen_lower_bound(run, a, c)
    if z > c:  # a pass: bound the threshold over windows of the counts (D348)
        keep_upper_bound(rule, run, a)
    return UNDECIDED, c


@njit(inline="always")
def pair_threshold(threshold, rule, run, a):
    """The threshold ``c_{hat a_t, a}(N_t, delta)`` of the pair (``run.best``, ``a``) at
    ``run``'s time and counts (kernel ``threshold``)."""
    family = (rule.code, rule.fparams, rule.table)
    return family_threshold(threshold, family, (run.t, run.counts, run.best, run.states), a)


@njit(inline="always")
def family_threshold(threshold, family, at, a):
    """The threshold ``c_{best, a}(N_t, delta)`` of the pair (``best``, ``a``) of the
    threshold family ``family = (code, fparams, table)`` at ``at = (t, counts, best,
    states)`` (kernel ``threshold``)."""
    code, fparams, table = family
    t, counts, best, states = at
    return threshold(
        code, fparams, table, float(t), counts[best], counts[a], states[best], states[a]
    )


@njit(inline="always")
def pair_lower_bound(run, a):
    """The cached lower bound of the threshold of the pair (``best``, ``a``) (row
    ``ZC_LB``), ``-inf`` when the cache holds none for this pair, a count has left its
    window or an arm's state has left the peeling level it had when the bound was taken
    (D254: a bound holds only while both counts and peeling levels stay in its window)."""
    zc = run.zc
    zf = run.zf
    best = run.best
    states = run.states
    counts = run.counts
    if (
        zf[ZF_LB, a] != 0
        and zc[ZC_LBB, a] == best
        and counts[a] <= zc[ZC_HIA, a]
        and counts[best] <= zc[ZC_HIB, a]
        and states[a, S_LEVEL] == zc[ZC_LVA, a]
        and states[best, S_LEVEL] == zc[ZC_LVB, a]
    ):
        return zc[ZC_LB, a]
    return -math.inf


@njit(inline="always")
def pair_upper_bound_cached(run, a):
    """The cached upper bound of the threshold of the pair (``best``, ``a``) (row
    ``ZC_UB``), ``inf`` when the cache holds none for this pair, a count has left its window
    or an arm's state has left the peeling level it had when the bound was taken (D348)."""
    zc = run.zc
    zf = run.zf
    best = run.best
    states = run.states
    counts = run.counts
    if (
        zf[ZF_UB, a] != 0
        and zc[ZC_UBB, a] == best
        and counts[a] <= zc[ZC_UHA, a]
        and counts[best] <= zc[ZC_UHB, a]
        and states[a, S_LEVEL] == zc[ZC_ULVA, a]
        and states[best, S_LEVEL] == zc[ZC_ULVB, a]
    ):
        return zc[ZC_UB, a]
    return math.inf


@njit(inline="always")
def keep_upper_bound(rule, run, a):
    """Keep an upper bound of the threshold of the pair (``best``, ``a``) over windows of the
    counts (:func:`~baiuv.thresholds.kernels.pair_upper_bound`), widened by ``LB_MARGIN``,
    while the counts stay in the windows and the states at their current peeling levels
    (when the family has one; D348)."""
    zc = run.zc
    best = run.best
    states = run.states
    counts = run.counts
    u, hi_a, hi_b = pair_upper_bound(
        rule.code, rule.fparams, rule.table, counts[a], counts[best], states[a], states[best]
    )
    if math.isfinite(u) and hi_a >= 0.0:
        zc[ZC_UB, a] = u + LB_MARGIN * (1.0 + abs(u))
        zc[ZC_UBB, a] = best
        zc[ZC_UHA, a] = hi_a
        zc[ZC_UHB, a] = hi_b
        zc[ZC_ULVA, a] = states[a, S_LEVEL]
        zc[ZC_ULVB, a] = states[best, S_LEVEL]
        run.zf[ZF_UB, a] = 1


@njit(inline="always")
def keep_frozen_lower_bound(run, a, c, nmin):
    """Keep ``c`` as the lower bound of the threshold of the pair (``best``, ``a``) while the
    arm below ``nmin`` keeps its count and the other stays between ``nmin`` and
    ``LB_MAX_COUNT`` (D349: a family with ``P_LB_NMIN`` is non-decreasing in each
    per-arm term, each non-decreasing from ``P_LB_NMIN`` on)."""
    na = run.counts[a]
    nb = run.counts[run.best]
    if nmin <= nb <= LB_MAX_COUNT and na < nmin:
        keep_lower_bound(run, a, c, (na, LB_MAX_COUNT))
    elif nmin <= na <= LB_MAX_COUNT and nb < nmin:
        keep_lower_bound(run, a, c, (LB_MAX_COUNT, nb))


@njit(inline="always")
def keep_smaller_frozen_lower_bound(run, a, c):
    """Keep ``c`` as the lower bound of the threshold of the pair (``best``, ``a``) while the
    arm with the smaller count keeps it and the other stays below ``LB_MAX_COUNT`` (D349: the
    Student-calibrated heuristic is non-decreasing in the sum of the counts at a fixed
    smaller count)."""
    na = run.counts[a]
    nb = run.counts[run.best]
    if na <= nb <= LB_MAX_COUNT:
        keep_lower_bound(run, a, c, (na, LB_MAX_COUNT))
    elif nb < na <= LB_MAX_COUNT:
        keep_lower_bound(run, a, c, (LB_MAX_COUNT, nb))


@njit(inline="always")
def keep_lower_bound(run, a, c, hi):
    """Keep ``c``, widened by ``LB_MARGIN``, as the lower bound of the threshold of the
    pair (``run.best``, ``a``) while the counts are at most ``hi = (hi_a, hi_b)`` and the
    states at their current peeling levels (when ``c`` is finite; D254)."""
    hi_a, hi_b = hi
    zc = run.zc
    best = run.best
    states = run.states
    if math.isfinite(c):
        zc[ZC_LB, a] = c - LB_MARGIN * (1.0 + abs(c))
        zc[ZC_LBB, a] = best
        zc[ZC_HIA, a] = hi_a
        zc[ZC_HIB, a] = hi_b
        zc[ZC_LVA, a] = states[a, S_LEVEL]
        zc[ZC_LVB, a] = states[best, S_LEVEL]
        run.zf[ZF_LB, a] = 1


@njit(inline="always")
def window_lower_bound(threshold, rule, run, a):
    """A lower bound of the threshold of the pair (``best``, ``a``) over windows of the
    counts (:func:`~baiuv.thresholds.kernels.lower_bound_window`): the threshold at the
    windows' points, the family's floor (``LB_FLOOR``, valid at every later count) or the
    relaxed program's value (``LB_PROGRAM``), kept in the cache; ``-inf`` when the family
    has none (D254)."""
    thr_fparams = rule.fparams
    counts = run.counts
    states = run.states
    best = run.best
    mode = thr_fparams[P_LB_MODE]
    if mode == LB_FLOOR:
        c = lower_bound_floor(counts[a] + counts[best], thr_fparams)
        keep_lower_bound(run, a, c, (math.inf, math.inf))  # no rounding issue
        return pair_lower_bound(run, a)
    if mode == LB_PROGRAM:
        c, hi_b, hi_a = program_lower_bound(
            rule.code, thr_fparams, counts[best], counts[a], states[best], states[a]
        )
        keep_lower_bound(run, a, c, (hi_a, hi_b))
        return pair_lower_bound(run, a)
    p_a, hi_a = lower_bound_window(counts[a], thr_fparams)
    p_b, hi_b = lower_bound_window(counts[best], thr_fparams)
    if hi_a < 0.0 or hi_b < 0.0:
        return -math.inf
    t = float(run.t)
    c = threshold(rule.code, thr_fparams, rule.table, t, p_b, p_a, states[best], states[a])
    keep_lower_bound(run, a, c, (hi_a, hi_b))
    return pair_lower_bound(run, a)


@njit(inline="always")
def t_only_threshold(threshold, rule, run, t):
    """Threshold (kernel ``threshold``) at time ``t`` of a family that depends on ``t``
    alone (the counts and states it does not read are those of ``run``'s arm 0)."""
    st0 = run.states[0]
    n0 = run.counts[0]
    return threshold(rule.code, rule.fparams, rule.table, float(t), n0, n0, st0, st0)


@njit(inline="always")
def t_only_upper_bound(threshold, rule, run):
    """``(t_hi, thr_hi)``: ``t_hi = t + t // 16 + 1`` (``t = run.t``) and an upper bound ``thr_hi`` of the
    threshold of a non-decreasing family that depends on ``t`` alone at every time up to
    ``t_hi`` (its value there, widened for rounding; ``inf`` when not finite; D192)."""
    t = run.t
    t_hi = t + t // 16 + 1
    c_hi = t_only_threshold(threshold, rule, run, t_hi)
    thr_hi = c_hi + 1e-9 * (1.0 + abs(c_hi))
    if not math.isfinite(thr_hi):
        thr_hi = math.inf
    return t_hi, thr_hi


@njit(inline="always")
def check_thresholds(threshold, family, at, fail, thr_out):
    """The thresholds the stopping check compares with (kernel ``threshold``, as in
    :func:`glr_stop_check`) for the threshold family ``family = (code, fparams, table)`` at
    ``at = (t, counts, best, states)``: ``thr_out[a]`` is ``c_{hat a_t, a}(N_t, delta)``
    for every challenger up to ``fail`` (every challenger when ``fail < 0``), ``nan`` at
    ``hat a_t = best`` and after ``fail``."""
    best = at[2]
    K = at[1].shape[0]
    for a in range(K):
        thr_out[a] = math.nan
    for a in range(K):
        if a == best:
            continue
        thr_out[a] = family_threshold(threshold, family, at, a)
        if a == fail:
            break


@njit(cache=True)
def glr_stop_check_builtin(run, rule):
    """:func:`glr_stop_check` with the built-in families' kernel
    :func:`~baiuv.thresholds.kernels.pair_threshold_kernel`, kept in numba's cache (a
    check from Python, compiled once)."""
    return glr_stop_check(pair_threshold_kernel, run, rule)


@njit(cache=True)
def check_thresholds_builtin(family, at, fail, thr_out):
    """:func:`check_thresholds` with the built-in families' kernel
    :func:`~baiuv.thresholds.kernels.pair_threshold_kernel`, kept in numba's cache."""
    check_thresholds(pair_threshold_kernel, family, at, fail, thr_out)


@njit(cache=True)
def states_at_level(states, thr_fparams, out):
    """The per-arm KL/BoB states ``states`` as a rule with the parameters ``thr_fparams``
    would hold them, written to ``out``: the recorded level, count, mean and variance (they
    do not depend on delta), the tag and ``ln(gamma R)`` recomputed at ``thr_fparams``
    (the p-value's rule at another level, :mod:`baiuv.simulation.p_value`)."""
    fp = thr_fparams
    for a in range(states.shape[0]):
        for j in range(states.shape[1]):
            out[a, j] = states[a, j]
        if states[a, S_LEVEL] < 0:
            continue
        out[a, S_TAG] = fp[P_LPRE]
        out[a, S_LOGGR] = log_gamma_R(
            int(states[a, S_LEVEL]),
            states[a, S_MEAN],
            states[a, S_VAR],
            fp[P_LPRE],
            fp[P_S],
            fp[P_ETA0],
            fp[P_ETA1],
            fp[P_GAMMA],
        )


@njit(cache=True)
def stops_builtin(thr_code, thr_fparams, thr_table, t, counts, best, states, Z):
    """Whether ``Z[a] > c_{best, a}(N_t, delta)`` for every challenger ``a``, the thresholds
    of :func:`check_thresholds_builtin` (the stopping rule's decision, without the
    statistics cache: ``Z`` given)."""
    family = (thr_code, thr_fparams, thr_table)
    at = (t, counts, best, states)
    for a in range(counts.shape[0]):
        if a == best:
            continue
        c = family_threshold(pair_threshold_kernel, family, at, a)
        if not (Z[a] > c):
            return False
    return True


@njit(cache=True)
def lazy_check_time(t0, ratio, k):
    """``k``-th time of the geometric grid of the lazy stopping rule, ``ceil(t0 ratio^k)``
    (end of Section ``ssec:simulations_stopping_thresholds``; decision D70)."""
    return int(math.ceil(t0 * ratio**k))


@njit(cache=True)
def lazy_next_index(t, t0, ratio, k):
    """Smallest ``k' >= k`` whose grid time ``ceil(t0 ratio^k')`` is ``> t``."""
    while lazy_check_time(t0, ratio, k) <= t:
        k += 1
    return k
