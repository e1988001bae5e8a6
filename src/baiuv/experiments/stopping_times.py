"""Stopping-time experiment (Section ``ssec:experiments``, Figure
``fig:random_instances_heuristic_threshold``): the experiment's instances and runs
(:class:`Experiment`, :func:`run_shard`, :func:`aggregate_shards`), summaries of the runs
(error rates with Wilson intervals, mean stopping times) and their Markdown tables.

Each run is simulated by :func:`baiuv.simulation.engine.run_cell`; the claims of the
experiment are in :mod:`.stopping_claims`.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np
import pandas as pd

from baiuv.experiments.spec import ShardPlan, instances_of
from baiuv.model.characteristic import characteristic_time
from baiuv.model.instance import GaussianInstance, random_instance
from baiuv.registry import ALGORITHMS, run_parameters
from baiuv.simulation.engine import DECISION_COLUMNS, CellRun, RunSettings, run_cell, shard_runs
from baiuv.simulation.rng import run_generator
from baiuv.storage.shards import concat_runs
from baiuv.tables import markdown_table


@dataclass(frozen=True)
class Experiment:
    """One panel of Figure ``fig:random_instances_heuristic_threshold``.

    ``kind="named"``: ``runs`` runs on one fixed instance. ``kind="random"``:
    ``n_instances`` random instances (``random_instance`` with ``K``, ``gap_range``,
    ``var_range``) with ``runs`` runs each; instance ``i`` is drawn from
    ``run_seed(seed, name, "instances", 0, i)``.
    """

    name: str
    kind: str
    runs: int
    instance: GaussianInstance | None = None
    n_instances: int = 0
    K: int = 10
    gap_range: tuple[float, float] = (0.2, 1.0)
    var_range: tuple[float, float] = (0.1, 10.0)

    def __post_init__(self):
        if self.kind not in ("named", "random"):
            raise ValueError(f"kind must be 'named' or 'random', got {self.kind!r}")
        if int(self.runs) != self.runs or self.runs < 1:
            raise ValueError(f"runs must be a positive integer, got {self.runs!r}")
        if self.kind == "named" and not isinstance(self.instance, GaussianInstance):
            raise ValueError("instance must be a GaussianInstance for a named experiment")
        if self.kind == "random" and (
            int(self.n_instances) != self.n_instances or self.n_instances < 1
        ):
            raise ValueError(f"n_instances must be a positive integer, got {self.n_instances!r}")

    @property
    def n_total(self) -> int:
        """Number of runs of one algorithm (all instances)."""
        return self.runs * (self.n_instances if self.kind == "random" else 1)

    def instance_at(self, i: int, seed: int) -> tuple[str, GaussianInstance]:
        """``(instance id, instance)`` of the ``i``-th instance."""
        if self.kind == "named":
            return self.instance.name or "instance", self.instance
        if not (0 <= i < self.n_instances):
            raise ValueError(f"instance index must be in [0, {self.n_instances}), got {i}")
        inst = _random_instance_at(
            int(seed), self.name, int(i), int(self.K), tuple(self.gap_range), tuple(self.var_range)
        )
        return str(i), inst

    def run_keys(self) -> list[tuple[int, int]]:
        """Every ``(instance index, run)`` of the experiment, in canonical order."""
        n_inst = self.n_instances if self.kind == "random" else 1
        return [(i, r) for i in range(n_inst) for r in range(self.runs)]


@functools.lru_cache(maxsize=4096)
def _random_instance_at(
    seed: int, name: str, i: int, K: int, gap_range: tuple, var_range: tuple
) -> GaussianInstance:
    """Instance ``i`` of the random experiment ``name`` (:meth:`Experiment.instance_at`),
    kept: the shards of every algorithm that a process runs draw the same instances. The
    instance's arrays are read-only, so the one object can be shared."""
    rng = run_generator(seed, name, "instances", 0, i)
    return random_instance(rng, K, gap_range, var_range, name=str(i))


def experiment_from_config(
    name: str, spec: Mapping, instances: Mapping[str, Mapping]
) -> Experiment:
    """Build an :class:`Experiment` from its ``simulation.experiments.<name>`` entry."""
    kind = spec.get("kind")
    if kind == "named":
        iname = spec["instance"]
        if iname not in instances:
            raise ValueError(
                f"simulation.experiments.{name}.instance: unknown instance {iname!r}; "
                f"allowed: {sorted(instances)}"
            )
        inst = instances[iname]
        return Experiment(
            name, "named", int(spec["runs"]), GaussianInstance(inst["mu"], inst["sigma2"], iname)
        )
    if kind == "random":
        return Experiment(
            name,
            "random",
            int(spec.get("runs_per_instance", 1)),
            None,
            int(spec["n_instances"]),
            int(spec.get("K", 10)),
            tuple(spec.get("gap_range", (0.2, 1.0))),
            tuple(spec.get("var_range", (0.1, 10.0))),
        )
    raise ValueError(
        f"simulation.experiments.{name}.kind must be 'named' or 'random', got {kind!r}"
    )


#: The constant of Lemma ``lem:lower_bound_sample_complexity``: a δ-correct algorithm has
#: ``E[tau] >= T*(mu, sigma^2) ln(1/(2.4 delta))``.
LEMMA2_CONSTANT = 2.4


def lemma2_log_term(log_inv_delta: float) -> float:
    """``ln(1/(2.4 delta))`` from ``ln(1/delta)`` (Lemma ``lem:lower_bound_sample_complexity``)."""
    return log_inv_delta - math.log(LEMMA2_CONSTANT)


@functools.lru_cache(maxsize=4096)
def lower_bound_of(mu: tuple, sigma2: tuple, log_inv_delta: float) -> tuple[float, float]:
    """``(T*(mu, sigma^2), T*(mu, sigma^2) ln(1/(2.4 delta)))``: the characteristic time of
    the instance ``(mu, sigma2)`` (tuples, so that the value is cached) and the lower bound
    of Lemma ``lem:lower_bound_sample_complexity`` as the paper states it."""
    T = characteristic_time(np.array(mu), np.array(sigma2))
    return T, T * lemma2_log_term(log_inv_delta)


def run_shard(
    experiment: Experiment,
    algorithm: str,
    *,
    seed: int,
    settings: RunSettings | None = None,
    n_shards: int = 1,
    shard: int = 0,
    indices: Sequence[int] | None = None,
    progress=None,
) -> pd.DataFrame:
    """Simulate the runs of one shard (or the given global run ``indices``).

    ``progress``, if given, is called as ``progress(done, total)`` after every run (e.g.
    :class:`baiuv.pipeline.logs.Progress`, which logs runs done, rate and ETA).

    Returns one row per run (columns of :func:`simulate_run` plus ``instance_index``,
    ``K``, ``T_star``, ``lower_bound = T*(mu, sigma^2) ln(1/(2.4 delta))`` of Lemma
    ``lem:lower_bound_sample_complexity`` and ``reference_line = T*(mu, sigma^2) ln(1/delta)``,
    the line Figure ``fig:random_instances_heuristic_threshold`` draws), in canonical order. Only summaries are kept (no trajectories), so memory stays bounded.
    """
    s = settings if settings is not None else RunSettings()
    keys = experiment.run_keys()
    idx = list(indices) if indices is not None else list(shard_runs(len(keys), n_shards, shard))
    runs = []
    cache: dict[int, tuple[str, GaussianInstance]] = {}
    for j in idx:
        i, r = keys[j]
        if i not in cache:
            cache = {i: experiment.instance_at(i, seed)}
        iid, inst = cache[i]
        T, lb = lower_bound_of(
            tuple(inst.mu.tolist()), tuple(inst.sigma2.tolist()), s.resolved_log_inv_delta
        )
        fields = {
            "instance_index": i,
            "K": inst.K,
            "T_star": T,
            "lower_bound": lb,
            "reference_line": T * s.resolved_log_inv_delta,
        }
        runs.append(CellRun(inst, iid, r, fields))
    return run_cell(
        algorithm,
        s,
        runs,
        seed=seed,
        experiment=experiment.name,
        columns=RUN_COLUMNS,
        progress=progress,
    )


#: Columns of :func:`run_shard`'s table, in order.
RUN_COLUMNS = (
    "algorithm",
    "experiment",
    "instance",
    "instance_index",
    "run",
    "seed_entropy",
    "spawn_key",
    "K",
    *DECISION_COLUMNS,
    "T_star",
    "lower_bound",
    "reference_line",
    "wall_time",
)


def aggregate_shards(frames: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """Concatenate shard tables in canonical order (algorithm, instance, run)."""
    if not any(len(f) for f in frames):
        raise ValueError("frames must contain at least one non-empty shard table")
    df = concat_runs(frames, ["algorithm", "experiment", "instance_index", "run"])
    order = {a: k for k, a in enumerate(ALGORITHMS)}
    df["_o"] = df["algorithm"].map(lambda a: order.get(a, len(order)))
    df = df.sort_values(["experiment", "_o", "algorithm", "instance_index", "run"], kind="stable")
    return df.drop(columns="_o").reset_index(drop=True)


def wilson_interval(errors: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion ``errors / n``.

    ``(p + z^2/(2n) -+ z sqrt(p(1-p)/n + z^2/(4n^2))) / (1 + z^2/n)`` with ``z`` the
    ``(1 + level)/2`` normal quantile (Wilson, 1927).
    """
    if int(n) != n or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}")
    if int(errors) != errors or not (0 <= errors <= n):
        raise ValueError(f"errors must be an integer in [0, n], got {errors!r}")
    if not (0.0 < level < 1.0):
        raise ValueError(f"level must be in (0, 1), got {level!r}")
    z = NormalDist().inv_cdf(0.5 + 0.5 * level)  # stdlib: no scipy.stats import
    p = errors / n
    den = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    # The interval contains p in exact arithmetic; rounding can put a bound a few ulps on
    # the wrong side of p (e.g. a lower bound of 3e-17 for 0 errors), so clamp to [0, p]
    # and [p, 1]: 0 errors give exactly 0 as lower bound, n errors exactly 1 as upper.
    return min(max(0.0, centre - half), p), max(min(1.0, centre + half), p)


def error_rates(df: pd.DataFrame, level: float = 0.95) -> pd.DataFrame:
    """Per (experiment, algorithm): runs, errors, error rate and its Wilson interval."""
    rows = []
    for (exp, alg), g in df.groupby(["experiment", "algorithm"], sort=False):
        n = len(g)
        err = int((~g["correct"].astype(bool)).sum())
        lo, hi = wilson_interval(err, n, level)
        rows.append(
            {
                "experiment": exp,
                "algorithm": alg,
                "runs": n,
                "errors": err,
                "error_rate": err / n,
                "wilson_low": lo,
                "wilson_high": hi,
                "truncated": int(g["truncated"].sum()),
            }
        )
    return pd.DataFrame(rows)


#: A run is "long" when its stopping time exceeds this multiple of its cell's median.
LONG_RUN_FACTOR = 10.0


def initial_time(algorithm: str, K: int, n0: int, fhn_n0: int) -> int:
    """The first time the stopping rule of ``algorithm`` is checked on ``K`` arms: ``n0 K``
    for the GLR-based rules, ``fhn_n0 K`` for FHN1/FHN2 (their initial sample)."""
    alg = ALGORITHMS.get(str(algorithm))
    return int(K) * int(fhn_n0 if alg is not None and alg.kernel == "fhn" else n0)


def stopping_time_summary(
    df: pd.DataFrame, *, n0: int | None = None, fhn_n0: int | None = None
) -> pd.DataFrame:
    """Per (experiment, algorithm): mean stopping time, its standard error, median, largest
    stopping time, the mean lower bound ``T*(mu, sigma^2) ln(1/(2.4 delta))`` of Lemma
    ``lem:lower_bound_sample_complexity`` and the mean reference line
    ``T*(mu, sigma^2) ln(1/delta)`` drawn in Figure ``fig:random_instances_heuristic_threshold``
    (both averaged over instances for random ones), with the ratios of the mean to them.

    With ``n0`` and ``fhn_n0`` (initial sizes of the run), ``init_share`` is the share of
    runs that stopped at the first check, ``tau = initial_time(...)`` (:func:`initial_time`).
    """
    rows = []
    for (exp, alg), g in df.groupby(["experiment", "algorithm"], sort=False):
        tau = g["stopping_time"].to_numpy(float)
        n = tau.size
        se = float(np.std(tau, ddof=1) / math.sqrt(n)) if n > 1 else math.nan
        lb = float(g["lower_bound"].mean())
        ref = float(g["reference_line"].mean())
        row = {
            "experiment": exp,
            "algorithm": alg,
            "runs": n,
            "mean": float(tau.mean()),
            "se": se,
            "median": float(np.median(tau)),
            "max": float(tau.max()),
            "lower_bound": lb,
            "ratio_to_bound": float(tau.mean() / lb),
            "reference_line": ref,
            "ratio_to_reference": float(tau.mean() / ref),
        }
        if n0 is not None and fhn_n0 is not None:
            init = np.array([initial_time(alg, k, n0, fhn_n0) for k in g["K"]])
            row["init_share"] = float(np.mean(tau == init))
            # the long runs (tau > LONG_RUN_FACTOR x the median) and, among them, those
            # whose best arm was never pulled after its initial pulls
            long = tau > LONG_RUN_FACTOR * np.median(tau)
            best_pulls = np.array(
                [c[b] for c, b in zip(g["counts"], g["best_arm"], strict=True)], dtype=float
            )
            starved = best_pulls <= init / g["K"].to_numpy()
            correct = g["correct"].to_numpy(bool)
            row["long_runs"] = int(long.sum())
            row["long_starved"] = int((long & starved).sum())
            row["long_errors"] = int((long & ~correct).sum())
            row["long_share_of_samples"] = float(tau[long].sum() / tau.sum())
        rows.append(row)
    return pd.DataFrame(rows)


def error_rates_markdown(df: pd.DataFrame, delta: float) -> str:
    """Markdown table of :func:`error_rates` with the 95% Wilson interval, under a title."""
    er = error_rates(df)
    er["error rate [95% Wilson]"] = [
        f"{r:.4f} [{lo:.4f}, {hi:.4f}]"
        for r, lo, hi in zip(er["error_rate"], er["wilson_low"], er["wilson_high"], strict=True)
    ]
    er_md = markdown_table(
        er[["experiment", "algorithm", "runs", "errors", "error rate [95% Wilson]", "truncated"]]
    )
    return (
        f"# Empirical error rates (δ = {delta})\n\n"
        "Proportion of runs whose recommendation is not the best arm, with the 95% Wilson score "
        'interval (Section 4.2: "in our experiments the empirical proportion of error is lower '
        'than δ even when using a heuristic, asymptotically tight threshold"; Section 4.3: '
        '"several order of magnitude lower than δ").\n\n' + er_md
    )


def stopping_times_markdown(df: pd.DataFrame, delta: float, *, n0: int, fhn_n0: int) -> str:
    """Markdown table of :func:`stopping_time_summary` (mean ± s.e.), under a title."""
    st = stopping_time_summary(df, n0=n0, fhn_n0=fhn_n0)
    st["mean ± s.e."] = [f"{m:.1f} ± {s:.1f}" for m, s in zip(st["mean"], st["se"], strict=True)]
    st["τ/bound"] = [f"{r:.3f}" for r in st["ratio_to_bound"]]
    st["τ/line"] = [f"{r:.3f}" for r in st["ratio_to_reference"]]
    st["stopped at n0·K"] = [f"{100 * r:.1f}%" for r in st["init_share"]]
    st_md = markdown_table(
        st[
            [
                "experiment",
                "algorithm",
                "runs",
                "mean ± s.e.",
                "median",
                "max",
                "lower_bound",
                "τ/bound",
                "τ/line",
                "stopped at n0·K",
            ]
        ],
        floatfmt=".1f",
    )
    return (
        f"# Stopping times (δ = {delta}, Figure 2)\n\n"
        "Mean ± standard error of the stopping time. `lower_bound` is "
        "T⋆(μ, σ²) ln(1/(2.4δ)), the lower bound of Lemma 2 for δ-correct algorithms; "
        "`τ/line` is the mean over T⋆(μ, σ²) ln(1/δ), the line Figure 2 draws (its caption: "
        '"Lower bound is T⋆(μ) log(1/δ)"); both averaged over instances for random instances. '
        f"`stopped at n0·K`: share of runs that stopped at the first check (n0 = {n0} pulls "
        f"per arm, FHN1/FHN2 n0 = {fhn_n0}).\n\n" + st_md
    )


# The shards of the stopping-time experiments (the record's shard kind, in
# :mod:`.stopping_claims`).
#: Path patterns of a shard's runs and timings, and of its log.
SHARD_OUTPUT = {
    "runs": "results/simulations/{experiment}/{algorithm}/shard_{shard}.parquet",
    "timings": "results/timings/simulations/{experiment}/{algorithm}/shard_{shard}.parquet",
}
SHARD_LOG = "logs/simulations/{experiment}/{algorithm}/shard_{shard}.log"


def shard_plan(config: Mapping):
    """The shards of every (experiment, algorithm) of ``config["simulation"]``."""
    sim = config["simulation"]
    settings = run_parameters(sim)
    instances = instances_of(config)
    n_shards = int(sim["shards"])
    cells = [
        {"experiment": e, "algorithm": a, "shard": s}
        for e in sim["experiments"]
        for a in sim["algorithms"]
        for s in range(n_shards)
    ]

    def params(code, experiment, algorithm, shard):
        return {
            "experiment": experiment,
            "spec": sim["experiments"][experiment],
            "instances": instances,
            "algorithm": algorithm,
            "seed": config["seed"],
            "settings": settings,
            "n_shards": n_shards,
            "shard": int(shard),
            "code": code,
        }

    return ShardPlan(cells, params)


def run_shard_of(p: Mapping, progress) -> tuple[pd.DataFrame, dict, str]:
    """One shard of runs of one algorithm on one experiment, from its parameters
    (:func:`shard_plan`): the runs, what the shard file records, its label."""
    exp = experiment_from_config(p["experiment"], p["spec"], p["instances"])
    settings = RunSettings(**p["settings"])
    label = f"{p['experiment']}/{p['algorithm']} shard {p['shard']}"
    df = run_shard(
        exp,
        p["algorithm"],
        seed=p["seed"],
        settings=settings,
        n_shards=p["n_shards"],
        shard=p["shard"],
        progress=progress(label),
    )
    meta = {k: p[k] for k in ("experiment", "spec", "algorithm", "seed")}
    meta.update(settings=settings.to_dict(), n_shards=p["n_shards"], shard=p["shard"])
    meta["code"] = p["code"]
    return df, meta, f"{label}/{p['n_shards']}"
