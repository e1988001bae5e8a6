"""One shard of an experiment, as a plain function: the work of one shard job.

Each ``run_*_shard(params, output, log_path)`` simulates one shard of runs and writes its
result and timing files (:func:`baiuv.storage.shards.write_shard`). ``params`` is the
mapping of the shard rule's parameters (``workflow/rules/*.smk``), ``output`` maps
``"runs"`` and ``"timings"`` to the two files, ``log_path`` is the shard's log. The shard
adapters (``workflow/scripts/*_shard.py``, one job per shard, the cluster's unit) and the
batch runner (:mod:`baiuv.pipeline.batches`, many shards per process in local runs) call the
same functions, so a shard file has the same bytes whichever ran it.
"""

from __future__ import annotations

from collections.abc import Mapping

from baiuv.pipeline.logs import Progress, setup_logging
from baiuv.storage.shards import write_shard

__all__ = [
    "SHARD_KINDS",
    "preload",
    "run_asym_shard",
    "run_audit_shard",
    "run_dc_shard",
    "run_sim_shard",
]


def run_sim_shard(p: Mapping, output: Mapping[str, str], log_path: str | None) -> None:
    """One shard of runs of one algorithm on one stopping-time experiment."""
    from baiuv.experiments.stopping_times import experiment_from_config, run_shard
    from baiuv.simulation import RunSettings

    log = setup_logging(log_path)
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
        progress=Progress(log, label),
    )
    meta = {k: p[k] for k in ("experiment", "spec", "algorithm", "seed")}
    meta.update(settings=settings.to_dict(), n_shards=p["n_shards"], shard=p["shard"])
    meta["code"] = p["code"]
    write_shard(df, output["runs"], meta, log, f"{label}/{p['n_shards']}", output["timings"])


def run_dc_shard(p: Mapping, output: Mapping[str, str], log_path: str | None) -> None:
    """One shard of one (instance, algorithm, threshold variant) cell of the δ-correct
    stopping experiment."""
    from baiuv.experiments.delta_correct import run_delta_correct_cell
    from baiuv.model.instance import GaussianInstance
    from baiuv.pipeline.config import section_log_inv_delta
    from baiuv.simulation import shard_runs

    log = setup_logging(log_path)
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
        log_inv_delta=section_log_inv_delta(sec, "delta_correct"),
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
    label = f"{inst.name}/{p['algorithm']}/{p['threshold']} runs {runs}"
    write_shard(df, output["runs"], meta, log, label, output["timings"])


#: Parameters of an asymptotic shard recorded in its file.
_ASYM_META = (
    "instance",
    "algorithm",
    "threshold",
    "log_inv_deltas",
    "runs",
    "n0",
    "beta",
    "max_samples",
    "seed",
    "n_shards",
    "shard",
    "code",
)


def run_asym_shard(p: Mapping, output: Mapping[str, str], log_path: str | None) -> None:
    """One shard of one asymptotic cell (instance, algorithm, threshold), at every level."""
    from baiuv.experiments.asymptotic import run_asymptotic_cell
    from baiuv.model.instance import GaussianInstance

    log = setup_logging(log_path)
    i = p["instance"]
    label = f"{i['name']}/{p['algorithm']}/{p['threshold']}"
    inst = GaussianInstance(i["mu"], i["sigma2"], i["name"])
    df = run_asymptotic_cell(
        inst,
        p["algorithm"],
        p["threshold"],
        log_inv_deltas=list(p["log_inv_deltas"]),
        runs=p["runs"],
        seed=p["seed"],
        n0=p["n0"],
        beta=p["beta"],
        max_samples=p["max_samples"],
        n_shards=p["n_shards"],
        shard=p["shard"],
        progress=Progress(log, label),
    )
    write_shard(
        df,
        output["runs"],
        {k: p[k] for k in _ASYM_META},
        log,
        f"{label} shard {p['shard']}/{p['n_shards']}",
        output["timings"],
    )


def run_audit_shard(p: Mapping, output: Mapping[str, str], log_path: str | None) -> None:
    """One shard of the audit runs of one (algorithm, n0) over every audit instance."""
    from baiuv.experiments.audit import audit_instances
    from baiuv.experiments.audit import run_audit_shard as run_shard

    log = setup_logging(log_path)
    sec = p["section"]
    insts = audit_instances(sec, p["instances"], p["seed"])
    label = f"{p['algorithm']} n0={p['n0']}"
    df = run_shard(
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
        progress=Progress(log, f"audit {label} shard {p['shard']}"),
    )
    meta = {"section": sec, "algorithm": p["algorithm"], "n0": p["n0"]}
    meta.update({k: p[k] for k in ("settings", "seed", "n_shards", "shard", "code")})
    write_shard(
        df,
        output["runs"],
        meta,
        log,
        f"{label} shard {p['shard']}/{p['n_shards']}",
        output["timings"],
    )


#: The shard functions by the name the workflow gives them.
SHARD_KINDS = {
    "simulations": run_sim_shard,
    "delta_correct": run_dc_shard,
    "asymptotic": run_asym_shard,
    "audit": run_audit_shard,
}


#: The modules the shard functions of each kind import.
_KIND_MODULES = {
    "simulations": ("baiuv.experiments.stopping_times",),
    "delta_correct": ("baiuv.experiments.delta_correct",),
    "asymptotic": ("baiuv.experiments.asymptotic",),
    "audit": ("baiuv.experiments.audit",),
}


def preload(kinds) -> None:
    """Import what the shard functions of ``kinds`` use (pandas and pyarrow included) and
    load the compiled simulation kernels and the oracle (compiling them if numba's cache
    lacks them), without running a shard or writing a file: processes forked afterwards
    (:func:`baiuv.pipeline.batches.run_cells`) start with all of it loaded."""
    import importlib

    import numpy as np
    import pyarrow.parquet  # noqa: F401 - loaded before the fork, used by every shard

    from baiuv.model.characteristic import characteristic_time
    from baiuv.warmup import compile_simulation_kernels

    for kind in sorted(kinds):
        for module in _KIND_MODULES.get(kind, ()):
            importlib.import_module(module)
    compile_simulation_kernels("loops")
    characteristic_time(np.array([1.0, 0.5]), np.array([1.0, 1.0]))
