"""A delta-correctness audit of the heuristic stopping threshold.

The paper's experiments stop with the heuristic threshold ``log((1 + log t)/delta)``, which
"doesn't ensure delta-correctness" but "yields an empirical error which is several order
of magnitude lower than delta" (Section ``ssec:experiments``); for the EV-GLR rule, "in our
experiments the empirical proportion of error is lower than delta even when using a
heuristic, asymptotically tight threshold" (Section ``ssec:upper_bound_sample_complexity``).

This module runs every algorithm of the experiments with its paper stopping rule (GLR for
the adapted wrappers and the baselines, EV-GLR for the "EV-" wrappers, eliminations for
FHN) on many instances and initial sample sizes ``n0``, and computes per cell ``(instance,
algorithm, n0)`` the error rate with its Wilson interval. A cell is *flagged* when its
whole interval lies above ``delta``. Its tables, the explanation of the flagged cells and
its claims are built in :mod:`.audit_report`.

Random streams: run ``r`` of algorithm ``A`` on instance ``i`` uses ``run_seed(seed,
"audit", i, A, r)`` for every ``n0`` (common random numbers across ``n0``);
random instance ``j`` of family ``F`` is drawn from ``run_seed(seed, "audit_F",
"instances", 0, j)`` as in :meth:`baiuv.experiments.stopping_times.Experiment.instance_at`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from baiuv.experiments.spec import (
    Aggregated,
    ExperimentSpec,
    ReportEntry,
    ShardKind,
    ShardPlan,
    figure_files,
    instances_of,
)
from baiuv.experiments.stopping_times import Experiment
from baiuv.model.characteristic import characteristic_time, complexity_d
from baiuv.model.instance import GaussianInstance
from baiuv.model.validate import check_delta
from baiuv.registry import FAMILIES, RULE_PARAMETERS
from baiuv.simulation.engine import (
    ALGORITHMS,
    OUTCOME_COLUMNS,
    CellRun,
    RunSettings,
    fhn_n0,
    get_algorithm,
    run_cell,
    shard_runs,
)
from baiuv.storage.shards import concat_runs
from baiuv.studies.audit_report import (
    audit_cells,
    audit_claims,
    audit_markdown,
    audit_summary,
)

__all__ = [
    "SHARED_SETTINGS",
    "AuditInstance",
    "aggregate_runs",
    "audit_instances",
    "audit_n0",
    "audit_settings",
    "check_audit_config",
    "instance_features",
    "markdown_of",
    "run_audit_shard",
]

#: Run parameters the audit takes from the ``simulation`` section (its own section sets
#: ``delta``, ``threshold`` and ``n0``): the rules' parameters of the registry and
#: ``max_samples``.
SHARED_SETTINGS = (*RULE_PARAMETERS, "max_samples")


@dataclass(frozen=True)
class AuditInstance:
    """An instance of the audit: identifier (keys the random streams), family, instance."""

    instance_id: str
    family: str
    instance: GaussianInstance

    def __post_init__(self):
        if not isinstance(self.instance, GaussianInstance):
            raise ValueError("instance must be a GaussianInstance")
        if not self.instance_id:
            raise ValueError("instance_id must be a non-empty string")


def instance_features(instance: GaussianInstance) -> dict[str, float]:
    """Features of an instance used to explain flagged cells.

    ``K``; ``min_gap = mu_{a*} - max_{a != a*} mu_a``; ``var_ratio_best =
    sigma^2_{a*} / min_{a != a*} sigma^2_a`` (how much noisier the best arm is than the
    quietest other arm); ``var_ratio_second = sigma^2_{a*} / sigma^2_{b}`` with ``b`` the
    second best arm; ``d = d(mu, sigma^2)`` of Lemma ``lem:complexity_inequalities``;
    ``T_star = T*(mu, sigma^2)``, ``T_star_known = T*_{sigma^2}(mu)`` and their ratio
    ``ratio_T`` (Lemma ``lem:lower_bound_sample_complexity``).
    """
    if not isinstance(instance, GaussianInstance):
        raise ValueError(f"instance must be a GaussianInstance, got {type(instance).__name__}")
    mu, s2 = instance.mu, instance.sigma2
    best = instance.best_arm
    others = np.delete(np.arange(instance.K), best)
    second = others[np.argmax(mu[others])]
    T = characteristic_time(mu, s2)
    Tk = characteristic_time(mu, s2, known_variance=True)
    return {
        "K": int(instance.K),
        "min_gap": float(mu[best] - mu[second]),
        "var_ratio_best": float(s2[best] / s2[others].min()),
        "var_ratio_second": float(s2[best] / s2[second]),
        "d": float(complexity_d(mu, s2)),
        "T_star": float(T),
        "T_star_known": float(Tk),
        "ratio_T": float(T / Tk),
    }


def audit_instances(
    section: Mapping, named: Mapping[str, Mapping], seed: int
) -> list[AuditInstance]:
    """Instances of the ``audit`` config section, in canonical order.

    ``section["named"]``: names of top-level instances (family ``"named"``, id = name);
    ``section["families"]``: list of ``{name, n_instances, K, gap_range, var_range}`` of
    random instances drawn like the paper's (``baiuv.random_instance``), ids ``<name>-<j>``
    (a list, not a mapping, so that ``--configfile`` replaces it instead of merging it).
    """
    out: list[AuditInstance] = []
    for j, name in enumerate(section.get("named", []) or []):
        if name not in named:
            raise ValueError(
                f"audit.named[{j}]: unknown instance {name!r}; allowed: {sorted(named)}"
            )
        inst = named[name]
        out.append(
            AuditInstance(
                str(name),
                "named",
                GaussianInstance(np.asarray(inst["mu"], float), inst["sigma2"], str(name)),
            )
        )
    names = set()
    for k, spec in enumerate(section.get("families", []) or []):
        fam = spec.get("name", "")
        field = f"audit.families[{k}] ({fam})"
        if not fam:
            raise ValueError(f"{field}.name: required")
        if fam in names:
            raise ValueError(f"{field}.name: duplicate family name {fam!r}")
        names.add(fam)
        if "n_instances" not in spec:
            raise ValueError(f"{field}.n_instances: required")
        try:
            exp = Experiment(
                f"audit_{fam}",
                "random",
                1,
                None,
                int(spec["n_instances"]),
                int(spec.get("K", 10)),
                tuple(spec.get("gap_range", (0.2, 1.0))),
                tuple(spec.get("var_range", (0.1, 10.0))),
            )
            for i in range(exp.n_instances):
                _, inst = exp.instance_at(i, seed)
                iid = f"{fam}-{i}"
                out.append(
                    AuditInstance(iid, str(fam), GaussianInstance(inst.mu, inst.sigma2, iid))
                )
        except ValueError as exc:
            raise ValueError(f"{field}: {exc}") from None
    if not out:
        raise ValueError("audit: at least one instance (named or families) is required")
    ids = [a.instance_id for a in out]
    if len(set(ids)) != len(ids):
        raise ValueError("audit: instance ids must be unique (a named instance clashes)")
    return out


def check_audit_config(section: Mapping, named: Mapping[str, Mapping], seed: int = 0) -> None:
    """Cross-field checks of the ``audit`` section (``ValueError`` naming the field)."""
    audit_instances(section, named, seed)
    check_delta(section["delta"])
    for j, a in enumerate(section["algorithms"]):
        if a not in ALGORITHMS:
            raise ValueError(f"audit.algorithms[{j}]: {a!r} not in {list(ALGORITHMS)}")
    if section.get("threshold", "heuristic") not in FAMILIES:
        raise ValueError(f"audit.threshold must be one of {FAMILIES}")
    n0s = list(section["n0"])
    if len(set(n0s)) != len(n0s) or any(int(n) != n or n < 2 for n in n0s):
        raise ValueError(f"audit.n0 must be distinct integers >= 2, got {n0s}")


def audit_n0(algorithm: str, n0_grid: Sequence[int], delta: float, fhn: int | None) -> list:
    """The ``n0`` values of an algorithm's cells: the grid for GLR-based rules; for FHN1/FHN2
    the single initial sample size of their own procedure (``fhn`` or
    :func:`~baiuv.simulation.engine.fhn_n0` of ``delta``; decision D86)."""
    alg = get_algorithm(algorithm)
    if alg.kernel == "fhn":
        return [int(fhn) if fhn is not None else fhn_n0(delta)]
    return [int(n) for n in n0_grid]


#: Columns of :func:`run_audit_shard`.
RUN_COLUMNS = [
    "instance",
    "family",
    "algorithm",
    "n0",
    *OUTCOME_COLUMNS,
]


def audit_settings(
    algorithm: str,
    n0: int,
    *,
    delta: float = 0.01,
    threshold: str = "heuristic",
    settings: Mapping | None = None,
) -> RunSettings:
    """The :class:`RunSettings` of the audit runs of ``algorithm`` with initial size ``n0``
    (for FHN1/FHN2 their own initial sample size ``fhn_n0``); ``settings`` holds the
    fields shared with the ``simulation`` section (:data:`SHARED_SETTINGS`)."""
    alg = get_algorithm(algorithm)
    if int(n0) != n0 or n0 < 2:
        raise ValueError(f"n0 must be an integer >= 2, got {n0!r}")
    extra = {k: v for k, v in dict(settings or {}).items() if k not in ("n0", "fhn_n0")}
    if alg.kernel == "fhn":
        return RunSettings(delta=delta, threshold=threshold, fhn_n0=int(n0), **extra)
    return RunSettings(delta=delta, threshold=threshold, n0=int(n0), **extra)


def run_audit_shard(
    instances: Sequence[AuditInstance],
    algorithm: str,
    n0: int,
    *,
    runs: int,
    seed: int,
    delta: float = 0.01,
    threshold: str = "heuristic",
    settings: Mapping | None = None,
    n_shards: int = 1,
    shard: int = 0,
    progress=None,
) -> pd.DataFrame:
    """Simulate one shard of the audit runs of ``algorithm`` with initial size ``n0``.

    The ``len(instances) * runs`` runs ``(instance j, run r)`` are split into ``n_shards``
    contiguous blocks. ``settings`` holds further :class:`RunSettings` fields (``beta``,
    ``fws_exponent``, ``hedge_delta0``, ``max_samples``). For FHN1/FHN2 ``n0`` is their own
    initial sample size (``RunSettings.fhn_n0``). ``progress(done, total)`` is called after
    each run when given (e.g. ``baiuv.pipeline.logs.Progress``).

    Returns one row per run: ``instance, family, algorithm, n0, run, stopping_time,
    correct, truncated, wall_time``.
    """
    alg = get_algorithm(algorithm)
    if int(runs) != runs or runs < 1:
        raise ValueError(f"runs must be a positive integer, got {runs!r}")
    s = audit_settings(alg.name, n0, delta=delta, threshold=threshold, settings=settings)
    insts = list(instances)
    cells = [
        {"instance": a.instance_id, "family": a.family, "algorithm": alg.name, "n0": int(n0)}
        for a in insts
    ]
    jobs = []
    for k in shard_runs(len(insts) * int(runs), n_shards, shard):
        j, r = divmod(k, int(runs))
        jobs.append(CellRun(insts[j].instance, insts[j].instance_id, r, cells[j]))
    return run_cell(
        alg, s, jobs, seed=seed, experiment="audit", columns=RUN_COLUMNS, progress=progress
    )


# The record of the study
# ----------------------------------------------------------------------------------------
#: Path patterns of a shard's runs and timings, and of its log.
SHARD_OUTPUT = {
    "runs": "results/audit/shards/{algorithm}/n0_{n0}/shard_{shard}.parquet",
    "timings": "results/timings/audit/shards/{algorithm}/n0_{n0}/shard_{shard}.parquet",
}
SHARD_LOG = "logs/audit/{algorithm}/n0_{n0}/shard_{shard}.log"


def shard_plan(config: Mapping) -> ShardPlan:
    """The shards of every (algorithm, n0) of ``config["audit"]``, each over every audit
    instance; the run parameters shared with the stopping-time experiments from the
    ``simulation`` section."""
    sec = config["audit"]
    settings = {k: config["simulation"][k] for k in SHARED_SETTINGS}
    insts = instances_of(config)
    cells = [
        {"algorithm": alg, "n0": n0, "shard": s}
        for alg in sec["algorithms"]
        for n0 in audit_n0(alg, sec["n0"], sec["delta"], config["simulation"]["fhn_n0"])
        for s in range(sec["shards"])
    ]

    def params(code, algorithm, n0, shard):
        return {
            "section": sec,
            "instances": insts,
            "algorithm": algorithm,
            "n0": int(n0),
            "settings": settings,
            "seed": config["seed"],
            "n_shards": sec["shards"],
            "shard": int(shard),
            "code": code,
        }

    return ShardPlan(cells, params)


def run_shard_of(p: Mapping, progress) -> tuple[pd.DataFrame, dict, str]:
    """One shard of the audit runs of one (algorithm, n0) over every audit instance, from
    its parameters (:func:`shard_plan`): the runs, what the shard file records, its label."""
    sec = p["section"]
    insts = audit_instances(sec, p["instances"], p["seed"])
    label = f"{p['algorithm']} n0={p['n0']}"
    df = run_audit_shard(
        insts,
        p["algorithm"],
        p["n0"],
        runs=int(sec["runs"]),
        seed=p["seed"],
        delta=float(sec["delta"]),
        threshold=sec["threshold"],
        settings=p["settings"],
        n_shards=p["n_shards"],
        shard=p["shard"],
        progress=progress(f"audit {label} shard {p['shard']}"),
    )
    meta = {"section": sec, "algorithm": p["algorithm"], "n0": p["n0"]}
    meta.update({k: p[k] for k in ("settings", "seed", "n_shards", "shard", "code")})
    return df, meta, f"{label} shard {p['shard']}/{p['n_shards']}"


def _claims(tables: Mapping, config: Mapping) -> list:
    return audit_claims(
        tables["audit_summary"], tables["audit_cells"], delta=config["audit"]["delta"]
    )


def aggregate_runs(frames, metas, params, instances) -> Aggregated:
    """The shards' runs, their cells with the features of ``instances`` and the summary
    (the record's ``aggregate`` step)."""
    runs = concat_runs(
        frames,
        ["instance", "algorithm", "n0", "run"],
        sort_by=["algorithm", "n0", "instance", "run"],
        what="audit shards",
    )
    feats = instances.drop(columns=["mu", "sigma2", "family"])
    cells = audit_cells(runs, feats, delta=params.delta, level=params.level)
    summary = audit_summary(cells, delta=params.delta, level=params.level)
    flagged = int(cells["flagged"].sum())
    return Aggregated(
        tables={"runs": runs, "cells": cells, "summary": summary},
        meta={"delta": params.delta, "level": params.level, "code": params.code},
        message=f"{len(runs)} runs, {len(cells)} cells, {flagged} flagged",
    )


def markdown_of(tables, params) -> dict[str, str]:
    """The flagged cells' and the summary's tables (the record's ``table`` step)."""
    flagged, summary = audit_markdown(
        tables["cells"],
        tables["summary"],
        delta=params.delta,
        level=params.level,
        threshold=params.threshold,
    )
    return {"flagged": flagged, "summary": summary}


#: The schema of the ``audit`` section of the configuration (D416), composed into the
#: configuration schema by :func:`baiuv.pipeline.config.load_schema`.
SECTION_SCHEMA = {
    "type": "object",
    "description": (
        "delta-correctness audit of the heuristic threshold (owned by the audit rules; "
        "null: skipped)"
    ),
    "additionalProperties": False,
    "required": ["delta", "algorithms", "n0", "runs"],
    "properties": {
        "delta": {
            "type": "number",
            "exclusiveMinimum": 0,
            "exclusiveMaximum": 1,
            "description": "confidence level delta audited",
        },
        "threshold": {
            "type": "string",
            "description": "threshold family audited",
            "registry": "thresholds",
            "default": "heuristic",
        },
        "algorithms": {
            "description": "algorithms audited",
            "type": "array",
            "minItems": 1,
            "uniqueItems": True,
            "items": {"type": "string", "registry": "algorithms"},
        },
        "n0": {
            "description": "initial pulls of each arm: one audit cell per value",
            "type": "array",
            "minItems": 1,
            "uniqueItems": True,
            "items": {"type": "integer", "minimum": 2},
        },
        "runs": {
            "type": "integer",
            "minimum": 1,
            "description": "runs per cell (instance, algorithm, n0)",
        },
        "level": {
            "type": "number",
            "exclusiveMinimum": 0,
            "exclusiveMaximum": 1,
            "default": 0.95,
            "description": "confidence level of the Wilson intervals on the error rates",
        },
        "shards": {
            "type": "integer",
            "minimum": 1,
            "default": 1,
            "description": "shards per (algorithm, n0)",
        },
        "named": {
            "type": "array",
            "items": {"type": "string"},
            "description": "names of top-level instances audited as they are",
        },
        "families": {
            "type": "array",
            "description": ("random-instance families (a list, so that --configfile replaces it)"),
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["name", "n_instances"],
                "properties": {
                    "name": {
                        "type": "string",
                        "pattern": "^[A-Za-z0-9_]+$",
                        "description": "name of the family",
                    },
                    "n_instances": {
                        "type": "integer",
                        "minimum": 1,
                        "description": "number of random instances of the family",
                    },
                    "K": {
                        "type": "integer",
                        "minimum": 2,
                        "default": 10,
                        "description": "number of arms",
                    },
                    "gap_range": {
                        "type": "array",
                        "minItems": 2,
                        "maxItems": 2,
                        "items": {"type": "number", "exclusiveMinimum": 0},
                        "description": "gaps Delta_a drawn uniformly in [low, high]",
                    },
                    "var_range": {
                        "type": "array",
                        "minItems": 2,
                        "maxItems": 2,
                        "items": {"type": "number", "exclusiveMinimum": 0},
                        "description": (
                            "variances sigma2_a drawn uniformly in [low, high] (the best "
                            "arm's is 1)"
                        ),
                    },
                },
            },
        },
    },
}


SPEC = ExperimentSpec(
    name="audit",
    order=70,
    section="audit",
    schema=SECTION_SCHEMA,
    check=lambda section, config: check_audit_config(section, instances_of(config), config["seed"]),
    shard_kinds=(
        ShardKind(
            name="audit",
            run=run_shard_of,
            output=SHARD_OUTPUT,
            log=SHARD_LOG,
            plan=shard_plan,
            modules=("baiuv.studies.audit",),
        ),
    ),
    targets=lambda config: [
        *figure_files("audit"),
        "results/tables/audit_flagged.md",
        "results/tables/audit_summary.md",
    ],
    report_inputs=lambda config: {
        "audit_summary": "results/audit/summary.parquet",
        "audit_cells": "results/audit/cells.parquet",
    },
    claims=_claims,
    beyond_paper=True,
    rules="audit.smk",
    steps={
        "aggregate": "baiuv.studies.audit:aggregate_runs",
        "figure": "baiuv.plotting.asymptotic:audit_figure_of",
        "table": "baiuv.studies.audit:markdown_of",
    },
    category="Beyond the paper, δ-correctness audit",
    entries=(
        ReportEntry(
            key="audit",
            path="results/figures/audit.png",
            shows="pooled error rate of every algorithm per initial size n0",
        ),
        ReportEntry(
            key="audit_summary",
            path="results/tables/audit_summary.html",
            shows="error rates per algorithm and n0, flagged cells",
            markdown="results/tables/audit_summary.md",
            caption="audit_summary.rst",
        ),
        ReportEntry(
            key="audit_flagged",
            path="results/tables/audit_flagged.html",
            shows="cells whose error rate is above δ, and what they have in common",
            markdown="results/tables/audit_flagged.md",
            caption="audit_flagged.rst",
        ),
    ),
)
