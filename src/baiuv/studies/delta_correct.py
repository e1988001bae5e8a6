"""Experiment "δ-correct stopping": what does δ-correctness cost?

The paper's experiments (Section ``ssec:experiments``) stop with the heuristic threshold
``ln((1 + ln t)/delta)``, which is not proven δ-correct. This experiment runs the same
sampling rules with the δ-correct thresholds of Section
``sec:calibration_stopping_rules`` -- Box (Lemma ``lem:delta_correct_box_thresholds``),
KL (Theorem ``thm:delta_correct_complex_threshold_glrt``), BoB (Corollary
``cor:delta_correct_Kinf_thresholds``) for the GLR rule; EV-Box (Lemma
``lem:delta_correct_box_thresholds_ev``) and EV-BoB (Corollary
``cor:delta_correct_Kinf_thresholds_ev``) for the EV-GLR rule; optionally Student -- plus
the lazy BoB rule evaluated on a geometric grid of times (end of Section
``ssec:simulations_stopping_thresholds``, decision D70), and reports stopping times, their
ratio to the heuristic's and empirical error rates (results), and the wall time per run
(a timing table, apart from the results).

Threshold variants are named ``<family>`` or ``<family>-lazy`` (e.g. ``bob-lazy``).
All variants of one (instance, algorithm, run) share the random stream
``run_seed(seed, "delta_correct", instance, algorithm, run)`` (common random numbers,
decision D71): the stopping rule consumes no randomness, so the runs follow the same
trajectory until the earlier one stops and the paired ratios have a small variance.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import pandas as pd

from baiuv.experiments.spec import (
    Aggregated,
    ExperimentSpec,
    ReportEntry,
    ShardKind,
    ShardPlan,
    figure_files,
    instances_of,
    section_delta,
    section_log_inv_delta,
)
from baiuv.experiments.stopping_times import lower_bound_of
from baiuv.model.instance import GaussianInstance
from baiuv.registry import (
    EV_FAMILIES,
    GLR_FAMILIES,
    LAZY_SUFFIX,
    PARAMETERS,
)
from baiuv.simulation.engine import (
    ALGORITHMS,
    DECISION_COLUMNS,
    CellRun,
    RunSettings,
    run_cell,
    shard_runs,
)
from baiuv.storage.shards import concat_runs
from baiuv.studies.delta_correct_report import (
    EXPERIMENT,
    delta_correct_claims,
    delta_correct_markdown,
    delta_correct_timings_markdown,
    summarize_delta_correct,
)

__all__ = [
    "aggregate_runs",
    "check_delta_correct_config",
    "markdown_of",
    "parse_variant",
    "run_delta_correct_cell",
    "variants_for",
]

RESULT_COLUMNS = [
    "instance",
    "algorithm",
    "threshold",
    "family",
    "lazy_ratio",
    "run",
    *DECISION_COLUMNS,
    "lower_bound",
    "wall_time",
]


def parse_variant(variant: str, algorithm: str) -> tuple[str, bool]:
    """``(family, lazy)`` of a threshold variant ``<family>`` or ``<family>-lazy``.

    Raises ``ValueError`` (naming ``variant``) if the family is unknown or does not match
    the stopping rule of ``algorithm`` (GLR families for the adapted rules, EV families for
    the ``EV-`` rules; ``heuristic`` for both).
    """
    if algorithm not in ALGORITHMS or ALGORITHMS[algorithm].kernel != "glr":
        raise ValueError(f"algorithm must be a GLR-based rule of ALGORITHMS, got {algorithm!r}")
    if not isinstance(variant, str):
        raise ValueError(f"variant must be a string, got {variant!r}")
    lazy = variant.endswith(LAZY_SUFFIX)
    family = variant[: -len(LAZY_SUFFIX)] if lazy else variant
    allowed = EV_FAMILIES if ALGORITHMS[algorithm].plug_in else GLR_FAMILIES
    if family not in allowed:
        raise ValueError(
            f"variant {variant!r} is not valid for {algorithm} "
            f"({ALGORITHMS[algorithm].stopping} stopping rule); families: {list(allowed)}, "
            f"optionally with the suffix {LAZY_SUFFIX!r}"
        )
    return family, lazy


def variants_for(algorithm: str, cfg: Mapping) -> list[str]:
    """Threshold variants of ``algorithm`` in a ``delta_correct`` config section
    (``ev_thresholds`` for EV rules, ``thresholds`` otherwise)."""
    key = "ev_thresholds" if ALGORITHMS[algorithm].plug_in else "thresholds"
    return list(cfg[key])


def check_delta_correct_config(cfg: Mapping, instance_names: Sequence[str]) -> None:
    """Cross-field checks of the ``delta_correct`` section (the schema checks types):
    known instances, one run count per instance, every variant valid for every algorithm
    of its stopping rule, and ``heuristic`` present (the reference of the ratios)."""
    names = set(instance_names)
    for j, name in enumerate(cfg["instances"]):
        if name not in names:
            raise ValueError(
                f"delta_correct.instances[{j}]: unknown instance {name!r}; allowed: {sorted(names)}"
            )
    runs = cfg["runs"]
    for name in cfg["instances"]:
        if name not in runs:
            raise ValueError(f"delta_correct.runs: missing the run count of instance {name!r}")
    for key in ("thresholds", "ev_thresholds"):
        if "heuristic" not in cfg[key]:
            raise ValueError(
                f"delta_correct.{key}: must contain 'heuristic' (reference of the ratios)"
            )
    for alg in cfg["algorithms"]:
        if alg not in ALGORITHMS or ALGORITHMS[alg].kernel != "glr":
            raise ValueError(f"delta_correct.algorithms: {alg!r} is not a GLR-based rule")
        key = "ev_thresholds" if ALGORITHMS[alg].plug_in else "thresholds"
        for v in cfg[key]:
            try:
                parse_variant(v, alg)
            except ValueError as exc:
                raise ValueError(f"delta_correct.{key}: {exc}") from None


def run_delta_correct_cell(
    instance: GaussianInstance,
    algorithm: str,
    variant: str,
    runs: Sequence[int],
    *,
    seed: int,
    log_inv_delta: float,
    n0: int = 2,
    beta: float = 0.5,
    max_samples: int = PARAMETERS["max_samples"].default,
    lazy_ratio: float = 1.1,
) -> pd.DataFrame:
    """Simulate the runs ``runs`` of one (instance, algorithm, threshold variant) cell.

    Run ``r`` uses ``run_seed(seed, "delta_correct", instance.name, algorithm, r)`` for
    every variant. Returns one row per run with the columns
    :data:`RESULT_COLUMNS` (``lower_bound = T*(mu, sigma^2) ln(1/(2.4 delta))``, Lemma
    ``lem:lower_bound_sample_complexity``). ``log_inv_delta`` is ``ln(1/delta)``, resolved
    once by the caller (e.g. :func:`baiuv.pipeline.config.section_log_inv_delta`; decision D252).
    """
    if not isinstance(instance, GaussianInstance) or not instance.name:
        raise ValueError("instance must be a named GaussianInstance")
    family, lazy = parse_variant(variant, algorithm)
    settings = RunSettings(
        log_inv_delta=log_inv_delta,
        threshold=family,
        n0=n0,
        beta=beta,
        max_samples=max_samples,
        lazy_ratio=lazy_ratio if lazy else None,
    )
    _, lb = lower_bound_of(
        tuple(instance.mu.tolist()),
        tuple(instance.sigma2.tolist()),
        settings.resolved_log_inv_delta,
    )
    cell = {
        "instance": instance.name,
        "algorithm": algorithm,
        "threshold": variant,
        "family": family,
        "lazy_ratio": float(lazy_ratio) if lazy else math.nan,
        "lower_bound": lb,
    }
    jobs = [CellRun(instance, instance.name, int(r), cell) for r in runs]
    return run_cell(
        algorithm, settings, jobs, seed=seed, experiment=EXPERIMENT, columns=RESULT_COLUMNS
    )


SHARD_OUTPUT = {
    "runs": "results/delta_correct/{instance}/{algorithm}/{threshold}/shard_{shard}.parquet",
    "timings": (
        "results/timings/delta_correct/{instance}/{algorithm}/{threshold}/shard_{shard}.parquet"
    ),
}
SHARD_LOG = "logs/delta_correct/{instance}/{algorithm}/{threshold}/shard_{shard}.log"


def shard_plan(config: Mapping) -> ShardPlan:
    """The shards of every (instance, algorithm, threshold variant) of
    ``config["delta_correct"]``."""
    sec = config["delta_correct"]
    insts = instances_of(config)
    cells = [
        {"instance": inst, "algorithm": alg, "threshold": v, "shard": s}
        for inst in sec["instances"]
        for alg in sec["algorithms"]
        for v in variants_for(alg, sec)
        for s in range(sec["shards"])
    ]

    def params(code, instance, algorithm, threshold, shard):
        return {
            "instance": insts[instance],
            "algorithm": algorithm,
            "threshold": threshold,
            "runs": int(sec["runs"][instance]),
            "section": sec,
            "seed": config["seed"],
            "n_shards": sec["shards"],
            "shard": int(shard),
            "code": code,
        }

    return ShardPlan(cells, params)


def run_shard_of(p: Mapping, progress) -> tuple[pd.DataFrame, dict, str]:
    """One shard of one (instance, algorithm, threshold variant) cell, from its parameters
    (:func:`shard_plan`): the runs, what the shard file records, its label."""
    sec = p["section"]
    i = p["instance"]
    inst = GaussianInstance(i["mu"], i["sigma2"], i["name"])
    runs = shard_runs(p["runs"], p["n_shards"], p["shard"])
    df = run_delta_correct_cell(
        inst,
        p["algorithm"],
        p["threshold"],
        runs,
        seed=p["seed"],
        log_inv_delta=section_log_inv_delta(sec),
        n0=sec["n0"],
        beta=sec["beta"],
        max_samples=sec["max_samples"],
        lazy_ratio=sec["lazy_ratio"],
    )
    meta = {
        "instance": inst.to_dict(),
        "algorithm": p["algorithm"],
        "threshold": p["threshold"],
        "runs": [runs.start, runs.stop],
        "section": sec,
        "seed": p["seed"],
        "code": p["code"],
    }
    return df, meta, f"{inst.name}/{p['algorithm']}/{p['threshold']} runs {runs}"


def aggregate_runs(frames, metas, params) -> Aggregated:
    """The shards' runs in one table (the record's ``aggregate`` step)."""
    out = concat_runs(frames, ["instance", "algorithm", "threshold", "run"])
    cells = out.groupby(["instance", "algorithm", "threshold"]).ngroups
    return Aggregated(
        tables={"runs": out},
        meta={"shards": metas, "code": params.code},
        timings_meta={"shards": metas},
        message=f"{len(out)} runs in {cells} cells",
    )


def markdown_of(tables, params) -> dict[str, str]:
    """The study's table and its timing table (the record's ``table`` step)."""
    summary = summarize_delta_correct(tables["runs"])
    return {
        "table": delta_correct_markdown(summary, params.delta),
        "timings": delta_correct_timings_markdown(tables["timings"], params.delta),
    }


#: The schema of the ``delta_correct`` section of the configuration (D416), composed into the
#: configuration schema by :func:`baiuv.pipeline.config.load_schema`.
SECTION_SCHEMA = {
    "type": "object",
    "description": (
        "delta-correct stopping experiment: delta-correct thresholds vs the heuristic "
        "(null: skipped)"
    ),
    "additionalProperties": False,
    "required": ["instances", "runs", "algorithms", "thresholds", "ev_thresholds"],
    "oneOf": [{"required": ["delta"]}, {"required": ["log_inv_delta"]}],
    "registry_parameters": "delta_correct",
    "properties": {
        "delta": {
            "type": "number",
            "exclusiveMinimum": 0,
            "exclusiveMaximum": 1,
            "description": "confidence level delta (or give log_inv_delta)",
        },
        "log_inv_delta": {"$ref": "#/$defs/log_inv_delta"},
        "n0": {
            "type": "integer",
            "minimum": 2,
            "registry_default": "n0",
            "description": "initial pulls of each arm",
        },
        "max_samples": {"type": "integer", "minimum": 1, "registry_default": "max_samples"},
        "lazy_ratio": {
            "type": "number",
            "exclusiveMinimum": 1,
            "default": 1.1,
            "description": "grid ratio of the -lazy variants",
        },
        "shards": {
            "type": "integer",
            "minimum": 1,
            "default": 1,
            "description": "shards per (instance, algorithm, threshold)",
        },
        "instances": {
            "description": "names of top-level instances simulated",
            "type": "array",
            "minItems": 1,
            "uniqueItems": True,
            "items": {"type": "string"},
        },
        "runs": {
            "type": "object",
            "description": "runs per cell, by instance name",
            "minProperties": 1,
            "additionalProperties": {"type": "integer", "minimum": 1},
        },
        "algorithms": {
            "description": "GLR-based algorithms simulated with every threshold variant",
            "type": "array",
            "minItems": 1,
            "uniqueItems": True,
            "items": {"type": "string", "registry": "glr_algorithms"},
        },
        "thresholds": {
            "type": "array",
            "minItems": 1,
            "uniqueItems": True,
            "description": "variants for the GLR rules (family or family-lazy)",
            "items": {"type": "string", "registry": "glr_threshold_variants"},
        },
        "ev_thresholds": {
            "type": "array",
            "minItems": 1,
            "uniqueItems": True,
            "description": "variants for the EV-GLR rules (family or family-lazy)",
            "items": {"type": "string", "registry": "ev_threshold_variants"},
        },
    },
}


SPEC = ExperimentSpec(
    name="delta_correct",
    order=60,
    section="delta_correct",
    schema=SECTION_SCHEMA,
    check=lambda section, config: check_delta_correct_config(section, list(instances_of(config))),
    shard_kinds=(
        ShardKind(
            name="delta_correct",
            run=run_shard_of,
            output=SHARD_OUTPUT,
            log=SHARD_LOG,
            plan=shard_plan,
            modules=("baiuv.studies.delta_correct",),
        ),
    ),
    targets=lambda config: [
        *figure_files("delta_correct_stopping"),
        "results/tables/delta_correct.md",
    ],
    report_inputs=lambda config: {"delta_correct": "results/delta_correct.parquet"},
    claims=lambda tables, config: delta_correct_claims(
        tables["delta_correct"], delta=section_delta(config["delta_correct"])
    ),
    beyond_paper=True,
    rules="delta_correct.smk",
    steps={
        "aggregate": "baiuv.studies.delta_correct:aggregate_runs",
        "figure": "baiuv.plotting.delta_correct:figure_of",
        "table": "baiuv.studies.delta_correct:markdown_of",
    },
    category="Beyond the paper, δ-correct stopping",
    entries=(
        ReportEntry(
            key="delta_correct_stopping",
            path="results/figures/delta_correct_stopping.png",
            shows="stopping times and error rates with δ-correct thresholds vs the heuristic",
        ),
        ReportEntry(
            key="delta_correct_table",
            path="results/tables/delta_correct.html",
            shows="cost of δ-correct stopping relative to the heuristic threshold",
            markdown="results/tables/delta_correct.md",
            caption="delta_correct_table.rst",
        ),
    ),
)
