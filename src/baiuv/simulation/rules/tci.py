"""beta-EB-TCI and beta-EB-EVTCI (Section ``ssec:instantiating_wrappers``, paragraph "Top Two
algorithm"): the empirical best arm (leader) with probability ``beta``, else the TCI
challenger ``argmin_{a != leader} C_t(leader, a) + log N_{t,a}``; with an indifference zone
``epsilon > 0`` the challenger's cost is the ε-statistic (:func:`eps_challenger`, EB-TCε's
challenger with TCI's penalty).

:func:`tci_challenger` is the one challenger of the simulator's loop and of
:func:`step_tci` (the step the identifier runs, every statistic given): it reads the
statistics cache (:mod:`.zcache`) and decides from certified enclosures of ``Z_a`` where
they suffice.
"""

from __future__ import annotations

import math

from numba import njit

from baiuv.model.transport import tc_unknown, tc_unknown_bounds, tc_unknown_rational_bounds
from baiuv.registry import P_BETA, Workspace

from .statistics import pair_stat
from .zcache import (
    EPS_FLAGS,
    EPS_ROWS,
    ZC_LOGN,
    ZC_RHI,
    ZC_RLO,
    ZC_THR,
    ZC_Z,
    ZC_ZHI,
    ZC_ZLO,
    ZF_BND,
    ZF_LOG,
    ZF_OK,
    ZF_RAT,
    exact_zcache,
)

#: TCI's workspace: none (its challenger reads the statistics cache, its leader the means).
WORKSPACE = Workspace()


@njit(cache=True)
def step_tci(counts, Z, best, beta, rng):
    """beta-EB-TCI / beta-EB-EVTCI (paragraph "Top Two algorithm").

    Leader = empirical best, pulled with probability ``beta``; otherwise the TCI challenger
    ``argmin_{a != leader} C_t(leader, a) + log N_{t,a}`` (:func:`tci_challenger`) where
    ``C_t(leader, a)`` is the GLR (or EV-GLR) statistic ``Z_a(t)`` already computed by the
    stopping rule.
    """
    if rng.random() < beta:
        return best
    zc, zf = exact_zcache(Z)
    return tci_challenger(counts, counts, counts, best, False, False, zc, zf)


@njit(cache=True, inline="always")
def tci_choice(run, work, rng):
    """The step of beta-EB-TCI / beta-EB-EVTCI at the run state ``run``
    (:class:`~.run_state.RunState`) with the rule's work record ``work``
    (:class:`~.select.RuleWork`): the leader with probability ``beta``, else the challenger
    (:func:`eps_challenger`) with the sampling epsilon ``work.s_eps`` on the cache ``work.szc,
    work.szf``, from certified enclosures of ``Z_a`` when the variances are unknown and every
    arm is certified (D191). The step of :func:`~.select.select_arm`, inlined there."""
    if rng.random() < work.params[P_BETA]:
        return run.best
    stats = (run.counts, run.means, run.variances)
    bounds = not work.plug_in and run.n_uncert == 0
    return eps_challenger(stats, run.best, work.plug_in, bounds, work.szc, work.szf, work.s_eps)


@njit(cache=True, inline="always")
def tci_challenger(counts, means, variances, best, plug_in, bounds, zc, zf):
    """The TCI challenger ``argmin_{a != best} Z_a + log N_a``, first index on ties: the
    challenger of the paper's problem, :func:`eps_challenger` at ``epsilon = 0``."""
    return eps_challenger((counts, means, variances), best, plug_in, bounds, zc, zf, 0.0)


@njit(cache=True, inline="always")
def eps_challenger(stats, best, plug_in, bounds, zc, zf, epsilon):
    """The challenger ``argmin_{a != best} Z^eps_a + log N_a``, first index on ties;
    ``stats = (counts, means, variances)``. ``Z^eps_a`` is the statistic of ``a`` with its
    mean shifted by ``-epsilon`` (the GLR against "``a`` beats ``best`` by more than
    ``epsilon``", D290: the epsilon-GLR is the GLR with the challenger's mean shifted by
    -epsilon), the TCI penalty ``log N_a`` unchanged: EB-TCε's challenger with TCI's
    penalty (D323: the Top Two rules take their challenger with the run's sampling
    epsilon). ``epsilon = 0`` (or less) is the TCI challenger, bit for bit, on the cache's
    first block; ``epsilon > 0`` reads and fills the cache's epsilon block (``EPS_ROWS``,
    ``EPS_FLAGS``), the one the stopping check with the same ``epsilon`` fills.

    ``zc, zf`` is the statistics cache (:mod:`.zcache`); the statistics it lacks are computed
    (:func:`~baiuv.simulation.rules.statistics.pair_stat`) and stored, unless ``bounds``
    (unknown variances, every arm certified, decision D191). Then ``v_a = Z_a + log N_a``
    lies in ``[lo_a + log N_a, hi_a + log N_a]`` for a certified enclosure ``[lo_a, hi_a]``
    of ``Z_a`` (rounding is monotone), or is exact where ``Z_a`` is cached: ``a*`` has the
    smallest upper end ``v*``; an arm whose lower end exceeds ``v*`` cannot attain the
    minimum; when every other arm is such, ``a*`` is the challenger, else the exact ``v_a``
    of the remaining arms decide in index order (D210: certified enclosures of ``Z_a``;
    D217: the rational enclosure tried first; D231: no logarithmic enclosure for an arm
    that cannot attain the minimum). The
    challenger is the one of every ``Z_a`` computed.
    """
    counts, means, variances = stats
    K = counts.shape[0]
    mb = means[best]
    sb = variances[best]
    nb = counts[best]
    eps = epsilon
    zr = 0  # the cache's block: the statistics of epsilon = 0, or the epsilon block
    fr = 0
    if eps > 0.0:
        zr = EPS_ROWS
        fr = EPS_FLAGS
    else:
        eps = 0.0  # means[a] - 0.0 is means[a], bit for bit
    for a in range(K):
        if a != best and zf[ZF_LOG, a] == 0:
            zc[ZC_LOGN, a] = math.log(counts[a])
            zf[ZF_LOG, a] = 1
    arm = -1
    v_star = math.inf
    if bounds:
        # the same test on the tightest enclosure at hand, rational where there is no
        # other: when it certifies a*, no logarithm is taken (D217)
        for a in range(K):
            if a == best:
                continue
            if zf[ZF_OK + fr, a] != 0:
                hi = zc[ZC_Z + zr, a]
            elif zf[ZF_BND + fr, a] != 0:
                hi = zc[ZC_ZHI + zr, a]
            else:
                if zf[ZF_RAT + fr, a] == 0:
                    zc[ZC_RLO + zr, a], zc[ZC_RHI + zr, a] = tc_unknown_rational_bounds(
                        mb, sb, nb, means[a] - eps, variances[a], counts[a]
                    )
                    zf[ZF_RAT + fr, a] = 1
                hi = zc[ZC_RHI + zr, a]
            hi += zc[ZC_LOGN, a]
            if hi < v_star or arm < 0:
                v_star = hi
                arm = a
        if _only_candidate(zc, zf, best, arm, v_star, zr, fr):
            return arm
        arm = -1
    # v_star, an upper end of some v_a, bounds min v_a: an arm whose rational lower end
    # exceeds it cannot attain the minimum, and keeps its rational enclosure (no
    # logarithms, decision D231)
    v_cut = v_star
    all_exact = True
    v_star = math.inf
    for a in range(K):
        if a == best:
            continue
        if zf[ZF_OK + fr, a] == 0 and not bounds:
            zc[ZC_Z + zr, a] = pair_stat(
                plug_in, mb, sb, nb, means[a] - eps, variances[a], counts[a]
            )
            zc[ZC_THR + zr, a] = math.nan
            zf[ZF_OK + fr, a] = 1
        if zf[ZF_OK + fr, a] != 0:
            hi = zc[ZC_Z + zr, a] + zc[ZC_LOGN, a]
        else:
            all_exact = False
            if zf[ZF_BND + fr, a] == 0:
                if zc[ZC_RLO + zr, a] + zc[ZC_LOGN, a] > v_cut:
                    continue
                zc[ZC_ZLO + zr, a], zc[ZC_ZHI + zr, a] = tc_unknown_bounds(
                    mb, sb, nb, means[a] - eps, variances[a], counts[a]
                )
                zf[ZF_BND + fr, a] = 1
            hi = zc[ZC_ZHI + zr, a] + zc[ZC_LOGN, a]
        if hi < v_star or arm < 0:
            v_star = hi
            arm = a
    if all_exact or _only_candidate(zc, zf, best, arm, v_star, zr, fr):
        return arm
    arm = -1
    vmin = math.inf
    for a in range(K):
        if a == best:
            continue
        if not (
            _lower_end(zc, zf, a, zr, fr) + zc[ZC_LOGN, a] <= v_star
        ):  # v_a >= lo > v* >= min v
            continue
        if zf[ZF_OK + fr, a] == 0:
            zc[ZC_Z + zr, a] = tc_unknown(mb, sb, nb, means[a] - eps, variances[a], counts[a])
            zc[ZC_THR + zr, a] = math.nan
            zf[ZF_OK + fr, a] = 1
        v = zc[ZC_Z + zr, a] + zc[ZC_LOGN, a]
        if v < vmin or arm < 0:
            vmin = v
            arm = a
    return arm


@njit(cache=True, inline="always")
def _lower_end(zc, zf, a, zr, fr):
    """The tightest lower end of ``Z_a`` at hand in the cache's block at rows ``zr``, flags
    ``fr``: ``Z_a`` where cached, else the logarithmic enclosure's where valid, else the
    rational one's."""
    if zf[ZF_OK + fr, a] != 0:
        return zc[ZC_Z + zr, a]
    if zf[ZF_BND + fr, a] != 0:
        return zc[ZC_ZLO + zr, a]
    return zc[ZC_RLO + zr, a]


@njit(cache=True, inline="always")
def _only_candidate(zc, zf, best, arm, v_star, zr, fr):
    """``True`` when every challenger but ``arm`` has a lower end of ``v_a`` above
    ``v_star`` (then ``arm`` is the minimiser)."""
    for a in range(zc.shape[1]):
        if a != best and a != arm:
            if not (_lower_end(zc, zf, a, zr, fr) + zc[ZC_LOGN, a] > v_star):
                return False
    return True
