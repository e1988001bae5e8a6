"""Runs of the sampling rules: settings, one run, the runs of one cell.

The numerical work happens in :mod:`baiuv.simulation.rules` (numba); this module
validates arguments, derives each run's random stream, calls the kernels and assembles
tables. The kernels (the sampling rules, the threshold families and their kernels, the
oracle) load with the first run or threshold a process needs, not with this module: the
experiments import it for its settings and table columns, and the jobs that only aggregate
or render run tables start without numba (decision D227).

Registry
--------
The sampling rules (:data:`ALGORITHMS`, :class:`Algorithm`) and the run parameters with
their defaults live in :mod:`baiuv.registry` (adding a rule: ``docs/extending.md``); the table
of the rules is ``baiuv.registry.ALGORITHMS`` (name, kernel, stopping rule, description).

Randomness
----------
Run ``r`` of algorithm ``A`` on instance ``i`` of experiment ``E`` draws everything from
``numpy.random.Generator(PCG64(run_seed(seed, E, i, A, r)))`` (:mod:`baiuv.simulation.rng`), and the
``i``-th random instance of ``E`` from ``run_seed(seed, E, "instances", 0, i)``: results do
not depend on how runs are split into shards, on their order, or on the executor.
"""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from baiuv._deferred import DeferredModule
from baiuv._extras import import_module
from baiuv.model.characteristic import optimal_allocation
from baiuv.model.instance import GaussianInstance
from baiuv.model.validate import (
    check_integer,
    delta_from_log,
    is_real,
    log_inv_delta_of,
)
from baiuv.registry import (
    ALGORITHMS,
    FAMILIES,
    N_KERNEL_PARAMS,
    P_SAMPLING_EPSILON,
    PARAMETERS,
    RULE_CUSTOM,
    RULE_PARAMETERS,
    THRESHOLD_FAMILIES,
    Algorithm,
    ThresholdFamily,
    get_algorithm,
    run_parameters,
)
from baiuv.simulation.epsilon import check_epsilon, with_epsilon
from baiuv.simulation.rng import generator_of, run_seed

if TYPE_CHECKING:  # imported where a run table is built (D223)
    import pandas as pd

#: The sampling rules' kernels, imported by the first run of a process (D227).
rules = DeferredModule("baiuv.simulation.rules")

__all__ = [
    "ALGORITHMS",
    "OUTCOME_COLUMNS",
    "Algorithm",
    "CellRun",
    "RunSettings",
    "DECISION_COLUMNS",
    "fhn_n0",
    "run_cell",
    "LEVEL_FIELDS",
    "level_settings",
    "shard_runs",
    "simulate_levels",
    "simulate_run",
]


def _fhn_constants(settings: RunSettings, K: int) -> tuple[int, float]:
    """``(n0, log_term)`` of FHN1/FHN2 for ``K`` arms: the initial sample size (the settings'
    ``fhn_n0``, else :func:`fhn_n0`) and ``2 log((K-1)/(2 delta))`` computed in log space
    (:func:`baiuv.simulation.rules.fhn_eliminate`)."""
    lid = settings.resolved_log_inv_delta
    n0 = settings.fhn_n0 if settings.fhn_n0 is not None else _fhn_n0_lid(lid)
    return int(n0), 2.0 * (math.log((K - 1) / 2.0) + lid)


def fhn_n0(delta: float | None = None, *, log_inv_delta: float | None = None) -> int:
    """Initial sample size of FHN1/FHN2: ``max(2, ceil(10 log(1/delta)))`` (Appendix
    ``app:ss_implementation_details``; rounded up, decision D45). Give ``delta`` or
    ``log_inv_delta``."""
    return _fhn_n0_lid(log_inv_delta_of(delta, log_inv_delta))


def _fhn_n0_lid(log_inv_delta: float) -> int:
    """:func:`fhn_n0` at ``ln(1/delta) = log_inv_delta`` (resolved by the caller)."""
    return max(2, math.ceil(10.0 * log_inv_delta - 1e-9))


def check_rule_parameter(name: str, value):
    """``value`` of the rule parameter ``name`` (a number within its registry bounds);
    ``ValueError`` naming it and what it accepts otherwise."""
    p = PARAMETERS[name]
    integer = p.schema["type"] == "integer"
    if not is_real(value) or (integer and int(value) != value):
        kind = "an integer" if integer else "a number"
        raise ValueError(f"{name} must be {kind} {p.allowed}, got {value!r}")
    if not p.accepts(value):
        raise ValueError(f"{name} must be {p.allowed}, got {value!r}")
    return value


@dataclass(frozen=True)
class RunSettings:
    """Settings shared by every run of a shard.

    Attributes
    ----------
    delta : float or None
        Confidence level (paper: 0.01; the default when neither ``delta`` nor
        ``log_inv_delta`` is given).
    log_inv_delta : float or None
        ``ln(1/delta)`` instead of ``delta`` (at most one of them; decision D150): every
        threshold, initial time and FHN constant is computed from it in log space, so
        ``ln(1/delta) = 1000`` is exact. :attr:`resolved_log_inv_delta` is the value used.
    threshold : str
        Threshold family (one of ``baiuv.thresholds.FAMILIES``; paper: ``"heuristic"``,
        ``log((1 + log t)/delta)``).
    n0 : int
        Initial pulls of each arm (``>= 2``) for every GLR-based rule.
    fhn_n0 : int or None
        Initial sample size of FHN1/FHN2; ``None`` means :func:`fhn_n0` of ``delta``.
    beta, fws_exponent, hedge_delta0 : float
        The rule parameters (:data:`baiuv.registry.RULE_PARAMETERS`): one field each, with
        the default of its registry record (:data:`baiuv.registry.PARAMETERS`, which also
        gives its bounds, checked here, and its meaning; a test checks every record has its
        field): ``beta`` the leader probability of the Top Two rules (paper: 0.5),
        ``fws_exponent`` the FWS radius ``r_t = t^(-fws_exponent)/K``, ``hedge_delta0``
        AdaHedge's initial mixability-gap budget (``eta_1 = log K / hedge_delta0``).
    max_samples : int
        Safety cap on a run's length; a run reaching it is marked ``truncated``.
    threshold_params : dict
        Keyword arguments of ``baiuv.thresholds.ThresholdParams`` and values of the
        registered families' own parameters (``ThresholdParams.from_mapping``).
    lazy_ratio : float or None
        ``None``: the stopping rule is checked before every sample. A ratio ``rho > 1``:
        the "lazy" stopping rule of Section ``ssec:simulations_stopping_thresholds``, checked
        only at the times ``ceil(n0 K rho^k)``, ``k >= 0`` (decision D70; GLR-based rules
        only, FHN1/FHN2 ignore it).
    epsilon : float
        Indifference zone ``>= 0`` of the GLR stopping rules (:mod:`baiuv.simulation.epsilon`):
        stop once the recommendation is within ``epsilon`` of the best with probability at
        least ``1 - delta``; ``0`` (default) is the paper's problem. FHN1/FHN2 ignore it.
    sampling_epsilon : float or None
        Indifference zone of the sampling rule: TCI and EV-TCI take their challenger with
        the ε-statistic of this zone (EB-TCε's challenger with TCI's penalty); the other
        rules do not read it (D323: the Top Two rules take their challenger with the run's
        sampling epsilon). ``None`` (default): ``epsilon``, resolved when the settings are
        made, so that the settings of a stopping level (:func:`level_settings`) keep the
        sampling of the run they belong to.
    """

    delta: float | None = None
    log_inv_delta: float | None = PARAMETERS["log_inv_delta"].default
    threshold: str = PARAMETERS["threshold"].default
    n0: int = PARAMETERS["n0"].default
    fhn_n0: int | None = PARAMETERS["fhn_n0"].default
    beta: float = PARAMETERS["beta"].default
    fws_exponent: float = PARAMETERS["fws_exponent"].default
    hedge_delta0: float = PARAMETERS["hedge_delta0"].default
    max_samples: int = PARAMETERS["max_samples"].default
    threshold_params: Mapping = field(default_factory=dict)
    lazy_ratio: float | None = PARAMETERS["lazy_ratio"].default
    epsilon: float = 0.0
    sampling_epsilon: float | None = None

    def __post_init__(self):
        if self.delta is None and self.log_inv_delta is None:
            object.__setattr__(self, "delta", PARAMETERS["delta"].default)
        lid = log_inv_delta_of(self.delta, self.log_inv_delta)
        if self.log_inv_delta is not None:
            object.__setattr__(self, "log_inv_delta", lid)
        object.__setattr__(self, "_log_inv_delta", lid)  # read at every run
        if self.threshold not in FAMILIES:
            raise ValueError(f"threshold must be one of {FAMILIES}, got {self.threshold!r}")
        check_integer(self.n0, "n0", 2)
        if self.fhn_n0 is not None:
            check_integer(self.fhn_n0, "fhn_n0", 2)
        for name in RULE_PARAMETERS:
            check_rule_parameter(name, getattr(self, name))
        check_integer(self.max_samples, "max_samples", 1)
        if self.lazy_ratio is not None and not (
            is_real(self.lazy_ratio) and math.isfinite(self.lazy_ratio) and self.lazy_ratio > 1.0
        ):
            raise ValueError(
                f"lazy_ratio must be None or a finite number > 1, got {self.lazy_ratio!r}"
            )
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))
        se = self.epsilon if self.sampling_epsilon is None else self.sampling_epsilon
        object.__setattr__(self, "sampling_epsilon", check_epsilon(se, "sampling_epsilon"))

    @classmethod
    def from_config(cls, section: Mapping, **overrides) -> RunSettings:
        """Settings from a configuration section: its keys that are run parameters of the
        registry (:data:`baiuv.registry.PARAMETERS`), then ``overrides``."""
        return cls(**{**run_parameters(section), **overrides})

    @property
    def resolved_log_inv_delta(self) -> float:
        """``ln(1/delta)`` of these settings (from ``delta`` or ``log_inv_delta``)."""
        return self._log_inv_delta

    @property
    def resolved_delta(self) -> float:
        """``delta`` (``exp(-log_inv_delta)``, ``0.0`` once it underflows; display only)."""
        return self.delta if self.delta is not None else delta_from_log(self.log_inv_delta)

    def to_dict(self) -> dict:
        """Every field by name, ``threshold_params`` as a plain dict."""
        d = {k: getattr(self, k) for k in self.__dataclass_fields__}
        d["threshold_params"] = dict(self.threshold_params)
        return d


def threshold_spec(name: str, K: int, log_inv_delta: float, params: tuple):
    """The :class:`~baiuv.thresholds.ThresholdSpec` of family ``name`` (cached by its
    record, so two records of one name never share a spec)."""
    return _threshold_spec(THRESHOLD_FAMILIES[name], K, log_inv_delta, params)


@functools.lru_cache(maxsize=64)
def _threshold_spec(family: ThresholdFamily, K: int, log_inv_delta: float, params: tuple):
    # numba's kernels, loaded by the first run (D227)
    from baiuv.thresholds.families import ThresholdParams, make_threshold

    return make_threshold(
        family.name, K, params=ThresholdParams.from_mapping(params), log_inv_delta=log_inv_delta
    )


def _fresh_states(K: int) -> np.ndarray:
    """``K`` fresh per-arm threshold states (a new writable array)."""
    return _states_template(K).copy()


def _fresh_level_states(L: int, K: int) -> np.ndarray:
    """Fresh per-arm threshold states of ``L`` levels on ``K`` arms (a new writable array
    ``L x K x STATE_SIZE``)."""
    return np.tile(_states_template(K), (L, 1, 1))


@functools.lru_cache(maxsize=64)
def _states_template(K: int) -> np.ndarray:
    # numba's kernels, loaded by the first run (D227)
    from baiuv.thresholds.kernels import new_state

    states = np.tile(new_state(), (K, 1))
    states.setflags(write=False)
    return states


@functools.lru_cache(maxsize=4096)
def _true_allocation(mu: tuple, sigma2: tuple) -> np.ndarray:
    return optimal_allocation(np.array(mu), np.array(sigma2))


def rule_params(settings: RunSettings) -> np.ndarray:
    """The ``params`` array of the sampling kernels for ``settings``: each registry
    parameter with a kernel ``slot`` (:data:`baiuv.registry.PARAMETERS`), then the
    sampling epsilon (slot ``P_SAMPLING_EPSILON``); shared by :func:`simulate_run` and
    :class:`baiuv.BestArmIdentifier`."""
    params = np.zeros(N_KERNEL_PARAMS)
    for p in PARAMETERS.values():
        if p.slot is not None:
            params[p.slot] = getattr(settings, p.name)
    params[P_SAMPLING_EPSILON] = settings.sampling_epsilon
    return params


def glr_loop(algorithm: Algorithm, threshold: str = "heuristic", multi: bool = False):
    """The GLR loop of ``algorithm`` with the threshold family ``threshold``, its rule
    bound: ``loop(plug_in, bandit, ...)`` with the remaining arguments of
    :func:`baiuv.simulation.rules.run_glr`. A built-in rule with a built-in family runs in
    the cached :func:`~baiuv.simulation.rules.run_glr`; a rule registered with its own
    ``step`` kernel, or a family registered with its own ``kernel``, in
    :func:`~baiuv.simulation.rules.run_glr_loop` (compiled for those kernels on their first
    run in a process). With ``multi``, the loops of every stopping level,
    :func:`~baiuv.simulation.rules.run_glr_levels` and
    :func:`~baiuv.simulation.rules.run_glr_levels_loop` (D306: the one-level loop is
    compiled apart, without their code)."""
    family = THRESHOLD_FAMILIES[threshold]
    if algorithm.step is None and family.kernel is None:
        cached = rules.run_glr_levels if multi else rules.run_glr
        return functools.partial(cached, algorithm.rule)
    generic = rules.run_glr_levels_loop if multi else rules.run_glr_loop
    step = algorithm.step_kernel()
    kernel = family.threshold_kernel()
    if kernel is None:
        # numba's kernels, loaded by the first run (D227)
        from baiuv.thresholds.kernels import pair_threshold_kernel as kernel
    size = tuple(algorithm.workspace)
    if step is None:
        return functools.partial(
            _generic_loop, generic, (rules.select_arm, kernel, size, algorithm.rule)
        )
    return functools.partial(_generic_loop, generic, (step, kernel, size, RULE_CUSTOM))


def _generic_loop(generic, bound, *args):
    """``generic(step, threshold, ws_size, rule, args)`` with ``bound = (step, threshold,
    ws_size, rule)``: the generic loop called as the cached one (:func:`glr_loop`)."""
    return generic(*bound, args)


#: The fields of :class:`RunSettings` that make a stopping level (:func:`level_settings`).
LEVEL_FIELDS = (
    "delta",
    "log_inv_delta",
    "threshold",
    "threshold_params",
    "lazy_ratio",
    "epsilon",
)


def level_settings(settings: RunSettings, level: Mapping) -> RunSettings:
    """The settings of a run with the stopping level ``level`` alone: ``settings`` with the
    entries of ``level`` (keys among :data:`LEVEL_FIELDS`: the threshold family, its
    parameters, ``delta`` or ``log_inv_delta``, the lazy ratio, the indifference zone
    ``epsilon``); a level that gives
    ``delta`` or ``log_inv_delta`` replaces both. The sampling epsilon stays the run's
    (``settings.sampling_epsilon``): a level's ``epsilon`` changes its stopping rule only, so
    the level's settings run alone sample as the run with every level (D324: a stopping
    level's epsilon changes its stopping only). ``ValueError`` naming a key that is not a
    level field."""
    if not isinstance(level, Mapping):
        raise ValueError(f"a stopping level must be a mapping, got {type(level).__name__}")
    bad = sorted(set(level) - set(LEVEL_FIELDS))
    if bad:
        raise ValueError(f"stopping level: {bad} not among the level fields {LEVEL_FIELDS}")
    d = settings.to_dict()
    if "delta" in level or "log_inv_delta" in level:
        d["delta"] = d["log_inv_delta"] = None
    d.update(level)
    return RunSettings(**d)


class Runner:
    """The kernel call of the runs of one algorithm with one set of settings, at one or
    more stopping levels.

    What does not depend on the run (the thresholds, the rule's parameters, the loop, the
    constants of FHN) is prepared once per number of arms, so that the runs of a cell
    (:func:`run_cell`) pay only for their own kernel call. ``levels`` (optional, a list of
    mappings, :func:`level_settings`) are the stopping levels one trajectory serves (D306:
    no sampling rule but FHN's reads the level); without it, the settings' own level.
    ``runner(mu, sigma2, rng)`` returns ``(tau, recommendation, counts, truncated,
    wall_time)`` of the first level, the wall-clock time being that of the kernel call;
    :meth:`outcomes` those of every level; :meth:`results` the rows of
    :func:`simulate_levels`, :meth:`result` the whole run of :func:`simulate_run`.
    """

    __slots__ = ("alg", "settings", "levels", "_order", "_by_k")

    def __init__(self, alg: Algorithm, settings: RunSettings, levels: Sequence | None = None):
        self.alg = alg
        self.settings = settings
        if levels is None:
            self.levels = (settings,)
        else:
            self.levels = tuple(level_settings(settings, lv) for lv in levels)
            if not self.levels:
                raise ValueError("levels: at least one stopping level is required")
        if not alg.shares_levels and len(self.levels) > 1:
            raise ValueError(
                f"{alg.name} reads delta (its elimination): one stopping level per run, "
                f"got {len(self.levels)}"
            )
        kernels = {THRESHOLD_FAMILIES[s.threshold].kernel for s in self.levels}
        if len(kernels) > 1:
            raise ValueError(
                "levels: a family registered with its own kernel shares a run only with levels "
                f"of that family, got {sorted({s.threshold for s in self.levels})}"
            )
        # the kernel's order: the deepest ln(1/delta) first, as the kernel's level 0 (the
        # loop's fastest path) should be the level that stops last
        self._order = np.argsort([-lv.resolved_log_inv_delta for lv in self.levels], kind="stable")
        self._by_k: dict[int, tuple] = {}

    def _prepare(self, K: int) -> tuple:
        s, alg = self.settings, self.alg
        if alg.kernel == "fhn":
            if K < 2:  # pragma: no cover - guarded by GaussianInstance
                raise ValueError("instance must have K >= 2 arms")
            s = self.levels[0]
            n0, log_term = _fhn_constants(s, K)
            prep = (n0, log_term, alg.name == "FHN1", int(s.max_samples))
        else:
            wfix = None if alg.needs_instance else np.full(K, 1.0 / K)
            loop = glr_loop(alg, self.levels[0].threshold, len(self.levels) > 1)
            ordered = [self.levels[j] for j in self._order]
            prep = (loop, level_arrays(ordered, K), rule_params(s), wfix, s)
        self._by_k[K] = prep
        return prep

    def outcomes(self, mu: np.ndarray, sigma2: np.ndarray, rng: np.random.Generator) -> tuple:
        """``(taus, recommendations, counts, truncated, wall_time)`` of one run: an entry
        (a row of ``counts``) per level, and the wall-clock time of the kernel call."""
        taus, recs, counts, truncs, _, _, _, wall = self.final_outcomes(mu, sigma2, rng)
        return taus, recs, counts, truncs, wall

    def final_outcomes(self, mu: np.ndarray, sigma2: np.ndarray, rng: np.random.Generator) -> tuple:
        """:meth:`outcomes` with each level's final statistics: ``(taus, recommendations,
        counts, truncated, means, variances, states, wall_time)``, ``means`` and
        ``variances`` (``1/N``) at the level's stopping time (at ``max_samples`` when
        truncated) and ``states`` the per-arm threshold states the run leaves (``L x K x
        STATE_SIZE``; a truncated level's are those at ``max_samples``). FHN records no
        statistics: ``nan`` means and variances."""
        K = mu.size
        prep = self._by_k.get(K)
        if prep is None:
            prep = self._prepare(K)
        alg = self.alg
        if alg.kernel == "fhn":
            n0, log_term, use_n0, max_samples = prep
            t0 = time.perf_counter()
            tau, rec, counts, trunc = rules.run_fhn(
                mu, sigma2, n0, log_term, use_n0, rng, max_samples
            )
            wall = time.perf_counter() - t0
            nan = np.full((1, K), np.nan)
            outcome = (np.array([tau]), np.array([rec]), counts[None, :], np.array([trunc]))
            return (*outcome, nan, nan.copy(), _fresh_level_states(1, K), wall)
        loop, levels, params, wfix, s = prep
        if wfix is None:
            wfix = _true_allocation(tuple(mu.tolist()), tuple(sigma2.tolist()))
        # each run gets its own arrays: a registered step kernel may write into them
        params = params.copy()
        wfix = wfix.copy()
        states = _fresh_level_states(len(self.levels), K)
        t0 = time.perf_counter()
        out = loop(
            alg.plug_in,
            (mu, sigma2),
            levels,
            states,
            (params, wfix),
            rng,
            (int(s.n0), int(s.max_samples)),
        )
        wall = time.perf_counter() - t0
        if len(self.levels) > 1:  # back to the order of the levels
            back = np.argsort(self._order)
            return (*(x[back] for x in out), states[back], wall)
        return (*out, states, wall)

    def __call__(self, mu: np.ndarray, sigma2: np.ndarray, rng: np.random.Generator) -> tuple:
        taus, recs, counts, truncs, wall = self.outcomes(mu, sigma2, rng)
        return taus[0], recs[0], counts[0], truncs[0], wall

    def results(
        self,
        instance: GaussianInstance,
        seed: int,
        experiment: str,
        instance_id: str | int,
        run: int,
        rng: np.random.Generator | None = None,
    ) -> list[dict]:
        """The results of one run, one per level (:func:`simulate_levels`): its seed
        sequence, the kernel call on ``instance`` with the generator of that sequence (or
        ``rng``), and a row per level."""
        ss = run_seed(seed, experiment, instance_id, self.alg.name, run)
        if rng is None:
            rng = generator_of(ss)
        taus, recs, counts, truncs, wall = self.outcomes(instance.mu, instance.sigma2, rng)
        best = instance.best_arm
        common = {
            "algorithm": self.alg.name,
            "experiment": str(experiment),
            "instance": str(instance_id),
            "run": int(run),
            "seed_entropy": str(ss.entropy),
            "spawn_key": ",".join(str(k) for k in ss.spawn_key),
        }
        return [
            {
                **common,
                "stopping_time": int(taus[j]),
                "recommendation": int(recs[j]),
                "best_arm": best,
                "correct": bool(recs[j] == best),
                "counts": counts[j].tolist(),
                "truncated": bool(truncs[j]),
                "wall_time": float(wall),
            }
            for j in range(len(self.levels))
        ]

    def result(
        self,
        instance: GaussianInstance,
        seed: int,
        experiment: str,
        instance_id: str | int,
        run: int,
        rng: np.random.Generator | None = None,
    ) -> dict:
        """The result of one run (:func:`simulate_run`), of its first level."""
        return self.results(instance, seed, experiment, instance_id, run, rng)[0]


def level_arrays(levels: Sequence[RunSettings], K: int) -> tuple:
    """The ``levels`` argument of :func:`baiuv.simulation.rules.run_glr` for the levels of
    ``levels`` (settings of one level each) on ``K`` arms: ``(codes, fparams, tables,
    offsets, ratios)``, the thresholds' codes, their parameter vectors as the rows of a
    matrix, their tables end to end (level ``l``'s from ``offsets[l]`` to ``offsets[l +
    1]``) and the lazy ratios (``0.0``: eager)."""
    specs = [
        threshold_spec(
            s.threshold,
            K,
            s.resolved_log_inv_delta,
            tuple(sorted(dict(s.threshold_params).items())),
        )
        for s in levels
    ]
    # each level's indifference zone in its slot of the parameters
    specs = [with_epsilon(sp, s.epsilon) for sp, s in zip(specs, levels, strict=True)]
    codes = np.array([sp.code for sp in specs], dtype=np.int64)
    fparams = np.ascontiguousarray(np.stack([sp.fparams for sp in specs]))
    tables = np.concatenate([np.asarray(sp.table, dtype=np.float64) for sp in specs])
    offsets = np.zeros(len(specs) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([sp.table.shape[0] for sp in specs])
    ratios = np.array([float(s.lazy_ratio) if s.lazy_ratio is not None else 0.0 for s in levels])
    tables.setflags(write=False)  # the loop's table type: no second compiled signature
    return codes, fparams, tables, offsets, ratios


def simulate_run(
    instance: GaussianInstance,
    algorithm: str | Algorithm,
    *,
    settings: RunSettings | None = None,
    seed: int = 0,
    experiment: str = "custom",
    instance_id: str | int = 0,
    run: int = 0,
    rng: np.random.Generator | None = None,
) -> dict:
    """Simulate one run of ``algorithm`` on ``instance`` until it stops.

    Parameters
    ----------
    instance : GaussianInstance
        The bandit ``(mu, sigma^2)``.
    algorithm : str or Algorithm
        A key of :data:`ALGORITHMS` (or an :class:`Algorithm`).
    settings : RunSettings, optional
        Confidence level, threshold family, ``n0``... (paper defaults).
    seed, experiment, instance_id, run
        Keys of the run's SeedSequence ``run_seed(seed, experiment, instance_id,
        algorithm, run)`` (:mod:`baiuv.simulation.rng`).
    rng : numpy.random.Generator, optional
        Use this generator instead of the one derived from the keys (tests only).

    Returns
    -------
    dict
        ``algorithm, experiment, instance, run, seed_entropy, stopping_time,
        recommendation, best_arm, correct, counts (list), truncated, wall_time``.
    """
    if not isinstance(instance, GaussianInstance):
        raise ValueError(f"instance must be a GaussianInstance, got {type(instance).__name__}")
    alg = get_algorithm(algorithm)
    s = settings if settings is not None else RunSettings()
    if not isinstance(s, RunSettings):
        raise ValueError(f"settings must be a RunSettings, got {type(s).__name__}")
    # mu and sigma2 were validated when the instance was made
    return Runner(alg, s).result(instance, seed, experiment, instance_id, run, rng)


def simulate_levels(
    instance: GaussianInstance,
    algorithm: str | Algorithm,
    levels: Sequence[Mapping],
    *,
    settings: RunSettings | None = None,
    seed: int = 0,
    experiment: str = "custom",
    instance_id: str | int = 0,
    run: int = 0,
    rng: np.random.Generator | None = None,
) -> list[dict]:
    """Simulate one run of ``algorithm`` on ``instance`` at several stopping levels: one
    trajectory, which ends when every level has stopped (or at ``max_samples``).

    ``levels`` is a list of mappings, each a stopping level: the entries of
    :data:`LEVEL_FIELDS` (threshold family, its parameters, ``delta`` or
    ``log_inv_delta``, lazy ratio) that differ from ``settings``
    (:func:`level_settings`). Returns a result per level, in order, each with the entries of
    :func:`simulate_run` (``wall_time`` is the whole trajectory's); level ``j``'s equals
    ``simulate_run(instance, algorithm, settings=level_settings(settings, levels[j]),
    ...)`` with the same keys, bit for bit (D306: no sampling rule but FHN's reads the
    level). FHN1/FHN2 read ``delta``: one level only (``ValueError`` otherwise).
    """
    if not isinstance(instance, GaussianInstance):
        raise ValueError(f"instance must be a GaussianInstance, got {type(instance).__name__}")
    alg = get_algorithm(algorithm)
    s = settings if settings is not None else RunSettings()
    if not isinstance(s, RunSettings):
        raise ValueError(f"settings must be a RunSettings, got {type(s).__name__}")
    if isinstance(levels, Mapping) or not isinstance(levels, Sequence):
        raise ValueError(f"levels must be a list of mappings, got {type(levels).__name__}")
    return Runner(alg, s, levels).results(instance, seed, experiment, instance_id, run, rng)


def shard_runs(n_total: int, n_shards: int, shard: int) -> range:
    """Contiguous block of run indices of shard ``shard`` among ``n_shards``."""
    if n_shards < 1:
        raise ValueError(f"n_shards must be >= 1, got {n_shards}")
    if not (0 <= shard < n_shards):
        raise ValueError(f"shard must be in [0, {n_shards}), got {shard}")
    lo = (n_total * shard) // n_shards
    hi = (n_total * (shard + 1)) // n_shards
    return range(lo, hi)


def warm_up(instance: GaussianInstance, algorithm, settings: RunSettings, *, seed: int) -> None:
    """Compile (or load from numba's cache) the kernels a run of ``algorithm`` with
    ``settings`` uses, by a 50-sample run on ``instance`` (result discarded), so that the
    wall times of the runs that follow do not include compilation."""
    warm = RunSettings(**{**settings.to_dict(), "max_samples": 50})
    simulate_run(instance, algorithm, settings=warm, seed=seed, experiment="warmup")


#: Outcome columns of a run in the experiments' run tables (entries of ``simulate_run``).
OUTCOME_COLUMNS = ("run", "stopping_time", "correct", "truncated", "wall_time")


class CellRun(NamedTuple):
    """One run of a cell.

    ``instance_id`` and ``run`` key the run's random stream; ``fields`` holds the row's
    own columns (the others come from :func:`simulate_run`).
    """

    instance: GaussianInstance
    instance_id: str
    run: int
    fields: Mapping


def run_cell(
    algorithm: str | Algorithm,
    settings: RunSettings,
    runs: Sequence[CellRun],
    *,
    seed: int,
    experiment: str,
    columns: Sequence[str],
    progress=None,
    levels: Sequence[Mapping] | None = None,
    level_fields: Sequence[Mapping] | None = None,
) -> pd.DataFrame:
    """Simulate ``runs`` with ``algorithm`` and ``settings``; one row per run (and level).

    A short warm-up run compiles (or loads) the numba kernels before anything is timed;
    run ``r`` on instance ``i`` draws from ``run_seed(seed, experiment, i, algorithm, r)``
    exactly as :func:`simulate_run` does, so a cell's rows do not depend on how its runs
    are split into shards.

    Column ``c`` of a row is ``run.fields[c]`` if present, else entry ``c`` of the result
    of :func:`simulate_run` (``run``, ``stopping_time``,
    ``correct``, ``truncated``, ``wall_time``...). With ``levels`` (stopping levels,
    :func:`simulate_levels`), each run is one trajectory for every level and has a row
    per level, in the order of ``levels``, whose columns ``level_fields[j]`` (when given)
    are those of level ``j``. ``progress(done, total)`` is called after each run when
    given (e.g. :class:`baiuv.pipeline.logs.Progress`).
    """
    alg = get_algorithm(algorithm)
    if level_fields is not None and (levels is None or len(level_fields) != len(levels)):
        raise ValueError("level_fields must have one entry per level")
    rows = []
    runner = Runner(alg, settings, levels)
    if len(runs):  # compile / load the numba cache before timing
        warm_up(runs[0].instance, alg, runner.levels[0], seed=seed)
    columns = list(columns)
    extra = level_fields if level_fields is not None else [{}] * len(runner.levels)
    for done, job in enumerate(runs, 1):
        results = runner.results(job.instance, seed, experiment, job.instance_id, job.run)
        for res, own in zip(results, extra, strict=True):
            fields = {**job.fields, **own}
            rows.append({c: fields[c] if c in fields else res[c] for c in columns})
        if progress is not None:
            progress(done, len(runs))
    pd = import_module("pandas", "run_cell's table of runs")

    return pd.DataFrame(rows, columns=columns)


#: Entries of :func:`simulate_run`'s result that describe the run's decision, in the order
#: the run tables show them.
DECISION_COLUMNS = (
    "stopping_time",
    "recommendation",
    "best_arm",
    "correct",
    "truncated",
    "counts",
)
