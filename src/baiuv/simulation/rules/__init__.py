"""Numba kernels of the sampling rules and of the two simulation loops, one module per
rule family.

Everything here is ``@njit(cache=True)`` and works on arrays, scalars and a
``numpy.random.Generator`` (numba supports passing one to compiled code, so a run draws
every observation and every coin flip from the single stream that the orchestration
derived from its SeedSequence).

Modules
-------
* :mod:`~baiuv.simulation.rules.tas`, :mod:`~baiuv.simulation.rules.tci`,
  :mod:`~baiuv.simulation.rules.dkm`, :mod:`~baiuv.simulation.rules.fws`: the wrapped
  sampling rules (Section ``sec:sampling_rules``), each with its workspace (named rows,
  size ``WORKSPACE``, initialisation); :mod:`~baiuv.simulation.rules.select`
  dispatches to them (and to the ``uniform`` and ``fixed`` baselines) by ``RULE_*`` code;
* :mod:`~baiuv.simulation.rules.tracking` (C-tracking, forced exploration, the ``fixed``
  baseline's workspace), :mod:`~baiuv.simulation.rules.alternative` (best response,
  divergence) and :mod:`~baiuv.simulation.rules.workspace` (allocation, and each built-in
  rule's initialisation by its code): shared by the rules;
* :mod:`~baiuv.simulation.rules.statistics` (Welford updates, GLR statistic, degeneracy
  guard), :mod:`~baiuv.simulation.rules.zcache` (the statistics cache) and
  :mod:`~baiuv.simulation.rules.stopping` (the GLR stopping rule, the lazy grid): shared
  by the loop and the identifier, as is the TCI challenger;
  :mod:`~baiuv.simulation.rules.borrow` (borrowed views, the loop's arrays passed to
  inlined kernels without reference counting);
* :mod:`~baiuv.simulation.rules.run_state`: one run's state and its two steps, one
  observation (``observe_sample``) and one check (``check_step``), the steps of the loop,
  the identifier and its replay (D350);
* :mod:`~baiuv.simulation.rules.loop`: :func:`run_glr` (one stopping level) and
  :func:`run_glr_levels` (several on one trajectory) -- every rule combined with a GLR
  stopping rule (Section ``ssec:GLR_stopping_rule``), the GLR (``plug_in=False``) or the
  EV-GLR (``plug_in=True``); after ``n0`` pulls of each arm, the stopping rule is checked
  *before every sample* (``t`` counts all samples) and, if it does not stop, the rule
  picks the next arm;
* :mod:`~baiuv.simulation.rules.fhn`: :func:`run_fhn` -- the elimination procedures
  FHN1/FHN2 (Algorithm ``algo:fhn2``), with their own stopping rule.

Adding a sampling rule (its own module, run by :func:`run_glr_loop`): ``docs/extending.md``.
"""

from baiuv.registry import (
    RULE_DKM,
    RULE_FIXED,
    RULE_FWS,
    RULE_TAS,
    RULE_TCI,
    RULE_UNIFORM,
)

from .alternative import closest_alternative, closest_alternative_work, divergence
from .dkm import bonus_wins, dkm_gains, hedge_update, hedge_weights, init_dkm, step_dkm
from .fhn import fhn_eliminate, run_fhn
from .fws import fws_direction, fws_direction_work, init_fws, is_perfect_square, step_fws
from .loop import run_glr, run_glr_levels, run_glr_levels_loop, run_glr_loop
from .select import RuleWork, select_arm, select_arms
from .statistics import (
    certified_arm,
    degenerate_arm,
    draw,
    draw_observe,
    epsilon_stats_into,
    observe_update,
    pair_stat,
    welford,
)
from .stopping import (
    check_thresholds,
    check_thresholds_builtin,
    glr_stop_check,
    glr_stop_check_builtin,
    lazy_check_time,
    lazy_next_index,
    states_at_level,
    stops_builtin,
)
from .tas import init_tas, step_tas
from .tci import eps_challenger, step_tci, tci_challenger
from .tracking import c_tracking, forced_exploration, init_tracking
from .workspace import W_SUMW, init_workspace, new_workspace
from .zcache import N_ZC, N_ZF, ZC_Z, exact_zcache, invalidate, new_zcache, refresh_zcache

__all__ = [
    "N_ZC",
    "N_ZF",
    "RULE_DKM",
    "RULE_FIXED",
    "RULE_FWS",
    "RULE_TAS",
    "RULE_TCI",
    "RULE_UNIFORM",
    "RuleWork",
    "W_SUMW",
    "ZC_Z",
    "bonus_wins",
    "c_tracking",
    "check_thresholds",
    "check_thresholds_builtin",
    "certified_arm",
    "closest_alternative",
    "closest_alternative_work",
    "degenerate_arm",
    "divergence",
    "dkm_gains",
    "draw",
    "draw_observe",
    "eps_challenger",
    "epsilon_stats_into",
    "exact_zcache",
    "fhn_eliminate",
    "forced_exploration",
    "fws_direction",
    "fws_direction_work",
    "glr_stop_check",
    "glr_stop_check_builtin",
    "hedge_update",
    "hedge_weights",
    "init_dkm",
    "init_fws",
    "init_tas",
    "init_tracking",
    "init_workspace",
    "invalidate",
    "is_perfect_square",
    "lazy_check_time",
    "lazy_next_index",
    "new_workspace",
    "new_zcache",
    "observe_update",
    "pair_stat",
    "refresh_zcache",
    "run_fhn",
    "run_glr",
    "run_glr_levels",
    "run_glr_levels_loop",
    "run_glr_loop",
    "select_arm",
    "select_arms",
    "states_at_level",
    "step_dkm",
    "step_fws",
    "step_tas",
    "step_tci",
    "stops_builtin",
    "tci_challenger",
    "welford",
]
