# Helpers shared by every rule file.
import os
import sys

_SRC = os.path.join(workflow.basedir, "src")
sys.path.insert(0, _SRC)

from baiuv.jobenv import prepend_pythonpath  # noqa: E402

# jobs import the package of this checkout (also in conda envs, where it is not installed)
prepend_pythonpath(_SRC)

CONDA_ENV = "../envs/baiuv.yaml"

from baiuv.config import ConfigError, validate_config_semantics  # noqa: E402
from baiuv.provenance import source_hash  # noqa: E402

try:
    validate_config_semantics(config)
except ConfigError as exc:
    raise ValueError(f"invalid configuration: {exc}") from None

# Results depend on the package sources: edited science reruns, unchanged science does not.
SRC_HASH = source_hash()

# numba's on-disk cache: node-local inside SLURM jobs, <workdir>/.numba_cache otherwise
# (decision D60; jobs inherit NUMBA_CACHE_DIR from this process).
from baiuv.numba_cache import configure_numba_cache  # noqa: E402

configure_numba_cache(os.getcwd(), SRC_HASH)

INSTANCES = {inst["name"]: inst for inst in config["instances"]}


def figure_files(name):
    """Both formats of one figure."""
    return [f"figures/{name}.pdf", f"figures/{name}.png"]


# Input function of rule reproduction_report (reproduction.smk); it runs after every
# rule file is included, so names defined there (SIM_EXPERIMENTS) exist.
def reproduction_inputs(wildcards):
    out = {
        "ct_instances": "results/characteristic_times/instances.parquet",
        "ct_gap": "results/characteristic_times/sweep_gap.parquet",
        "ct_variance": "results/characteristic_times/sweep_variance.parquet",
        "thr_delta": "results/thresholds/curves_delta.parquet",
        "thr_time": "results/thresholds/curves_time.parquet",
        "thr_initial": "results/thresholds/initial_times.parquet",
        "thr_costs": "results/thresholds/costs.parquet",
        # the checkout's decision list, also when the working directory is elsewhere
        # (--directory): "docs/decisions.md" would be looked up in the workdir. Relative
        # to the workdir (not absolute), so a checkout that is copied or moved with its
        # results keeps the same recorded input set and reruns nothing.
        "decisions": os.path.relpath(
            os.path.join(workflow.basedir, "docs", "decisions.md")
        ),
        "simulations": expand(
            "results/simulations/{experiment}.parquet", experiment=SIM_EXPERIMENTS
        ),
    }
    if "asymptotic" in config:
        out["asym_verdicts"] = "results/asymptotic/verdicts.parquet"
        out["asym_summary"] = "results/asymptotic/summary.parquet"
    if "audit" in config:
        out["audit_summary"] = "results/audit/summary.parquet"
        out["audit_cells"] = "results/audit/cells.parquet"
    return out
