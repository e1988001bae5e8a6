# Helpers shared by the other .smk files (configuration checks, provenance, the instances,
# the default targets). The package is installed in the workflow's environment (pip install
# -e ., or envs/baiuv.post-deploy.sh in conda environments).
import os

from snakemake_interface_executor_plugins.settings import ExecMode

from baiuv.pipeline.config import (
    load_workflow_config,
    publish_paths,
    publish_tables_dir,
    section_delta,
    section_log_inv_delta,
    validate_workflow_config,
)
from baiuv.pipeline.batches import local_batches
from baiuv.storage.provenance import check_package_source, source_hash

CONDA_ENV = "../envs/baiuv.yaml"

# The jobs import the package of this checkout, not another copy (decision D269).
check_package_source(workflow.basedir)

# The configuration files read again by the workflow itself (decision D267): duplicate keys
# and YAML errors refused with file and line, `{}` and `null` in an overlay replace and drop
# what the base configuration gives.
load_workflow_config(
    config,
    os.path.join(workflow.basedir, "config", "config.yaml"),
    workflow.overwrite_configfiles,
    workflow.config_settings.config,
)

# One validation call: schema (enums and run-parameter defaults from baiuv.registry),
# defaults filled in, cross-field and experiment-section checks; tests call the same
# function on the same merged configuration (tests/integration/test_bad_config.py).
validate_workflow_config(config, workflow.basedir)

# Results depend on the package sources: edited science reruns, unchanged science does not.
# The computing rules never run the plotting package (a layer above them): a change of
# figure style reruns the figures only, whose rules take the hash of every module
# (decision D269).
SRC_HASH = source_hash(exclude=("plotting",))
FIGURE_HASH = source_hash()

# The checkout whose package the conda environment of the rules installs, read by
# envs/baiuv.post-deploy.sh, which runs in this process when the environment is created
# (so no job needs the variable).
os.environ.update(BAIUV_CHECKOUT=workflow.basedir)

INSTANCES = {inst["name"]: inst for inst in config["instances"]}

# Results built from a file that is gone (removed after a failed job) are rebuilt, with
# what they need, instead of "Nothing to be done": the missing files become targets of the
# default rule (rebuild_targets), and what was built from them reruns (decision D268). Those
# results, and results dated in the future (clock skew), are marked as left by an
# interrupted job, so a run of any target that needs one reruns it (D298: a named target
# or publish reaches them too, not only the default rule).
MISSING_INPUTS = []
if workflow.exec_mode == ExecMode.DEFAULT:
    from snakemake.logging import logger

    from baiuv.pipeline.reruns import (
        future_outputs,
        mark_incomplete,
        missing_inputs,
        stale_outputs,
    )

    def _some(paths):
        return f"{', '.join(paths[:3])}{' ...' if len(paths) > 3 else ''}"

    MISSING_INPUTS = missing_inputs()
    if MISSING_INPUTS:
        stale = stale_outputs()
        mark_incomplete(stale)
        logger.warning(
            f"{len(stale)} result(s) were built from files that are gone "
            f"({_some(MISSING_INPUTS)}): rebuilding them"
        )
    FUTURE = future_outputs()
    if FUTURE:
        mark_incomplete(FUTURE)
        logger.warning(
            f"{len(FUTURE)} result(s) are dated in the future ({_some(FUTURE)}; is the "
            "clock of the machine that wrote them ahead?): rebuilding them"
        )


def rebuild_targets():
    """The missing files of MISSING_INPUTS that a rule of the workflow produces (a file of
    an experiment no longer configured is left out)."""
    return [f for f in MISSING_INPUTS if any(r.is_producer(f) for r in workflow.rules)]


# Local runs execute many shards per process (batch rules of batches.smk); a cluster run,
# and every job inside it, keeps one job per shard (decision D226).
SHARD_BATCHES = local_batches(
    config["shard_batches"],
    default_mode=workflow.exec_mode == ExecMode.DEFAULT,
    nodes=workflow.resource_settings.nodes,
)


def figure_files(name):
    """Both formats of one figure."""
    return [f"results/figures/{name}.pdf", f"results/figures/{name}.png"]


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
        "thr_params": "results/thresholds/parameter_effects.parquet",
        # the checkout's list of the paper's open choices, also when the working directory
        # is elsewhere (--directory): "docs/decisions/paper.md" would be looked up in the
        # workdir. Relative
        # to the workdir (not absolute), so a checkout that is copied or moved with its
        # results keeps the same recorded input set and reruns nothing.
        "decisions": os.path.relpath(
            os.path.join(workflow.basedir, "docs", "decisions", "paper.md")
        ),
        "simulations": expand(
            "results/simulations/{experiment}.parquet", experiment=SIM_EXPERIMENTS
        ),
    }
    if config["simulation"].get("fhn_n0_grid"):
        out["fhn_n0"] = "results/fhn_n0.parquet"
    if "bob_slope" in config["thresholds"]:
        out["bob_slope"] = "results/thresholds/bob_slope_summary.parquet"
    if config["thresholds"].get("ipopt_streams", 1) > 0:
        out["ipopt_agreement"] = "results/thresholds/ipopt_agreement.parquet"
    if "asymptotic" in config:
        out["asym_verdicts"] = "results/asymptotic/verdicts.parquet"
        out["asym_summary"] = "results/asymptotic/summary.parquet"
    if "delta_correct" in config:
        out["delta_correct"] = "results/delta_correct.parquet"
    if "audit" in config:
        out["audit_summary"] = "results/audit/summary.parquet"
        out["audit_cells"] = "results/audit/cells.parquet"
    if config.get("ev_remedies"):
        out["ev_cells"] = "results/ev_remedies/cells.parquet"
        out["ev_instances"] = "results/ev_remedies/instances.parquet"
        out["ev_paired"] = "results/ev_remedies/paired.parquet"
        out["ev_init"] = "results/ev_remedies/init_model.parquet"
        out["ev_errors"] = "results/ev_remedies/erring_runs.parquet"
    return out


# Report layout (workflow/report/entries.yaml): the category and labels of every report
# entry, the paper's printed numbering from baiuv.report.paper_refs.
from baiuv.report.pages import load_entries  # noqa: E402

REPORT = load_entries(
    os.path.join(workflow.basedir, "workflow", "report", "entries.yaml")
)


def report_category(key):
    """Category of report entry ``key`` (numbered in the order of the paper)."""
    return REPORT.category(key)


def report_labels(key):
    """Labels of report entry ``key``: the paper's figure/section it reproduces, what it shows."""
    return REPORT.labels(key)


def all_targets():
    """Final figures and tables of every experiment the configuration enables."""
    targets = figure_files("characteristic_times_ratio") + [
        "results/tables/characteristic_times.md"
    ]
    for which in ("glr", "evglr", "all"):
        targets += figure_files(f"thresholds_{which}")
    targets += [
        "results/tables/threshold_initial_times.md",
        "results/timings/threshold_costs.md",
    ]
    if "bob_slope" in config["thresholds"]:
        targets += figure_files("bob_slope") + ["results/tables/bob_slope.md"]
    if config["thresholds"].get("ipopt_streams", 1) > 0:
        targets += [
            "results/tables/ipopt_agreement.md",
            "results/timings/ipopt_agreement.md",
        ]
    targets += figure_files("stopping_times") + [
        "results/tables/error_rates.md",
        "results/tables/stopping_times.md",
    ]
    if "delta_correct" in config:
        targets += figure_files("delta_correct_stopping") + [
            "results/tables/delta_correct.md"
        ]
    if "asymptotic" in config:
        targets += figure_files("asymptotic") + ["results/tables/asymptotic_slopes.md"]
    if "audit" in config:
        targets += figure_files("audit") + [
            "results/tables/audit_flagged.md",
            "results/tables/audit_summary.md",
        ]
    if config.get("ev_remedies"):
        targets += figure_files("ev_remedies") + [
            "results/tables/ev_remedies.md",
            "results/tables/ev_mechanism.md",
        ]
    # the tables' HTML pages for the report (report.smk) and the reproduction report
    targets += [
        e["path"] for e in REPORT.entries.values() if e.get("markdown") in targets
    ]
    targets += ["results/reproduction.md", "results/reproduction.html"]
    return targets


# Input function of the publish target (publish.smk): every published file, from the
# figures of all_targets(); a config without a publish section stops here with an error
# naming the section.
def publish_inputs(wildcards):
    figures, report = publish_paths(config)
    tables = publish_tables_dir(config)
    published = []
    for t in all_targets():
        if t.startswith("results/figures/"):
            published.append(f"{figures}/{t[len('results/figures/'):]}")
        elif (
            tables is not None and t.startswith("results/tables/") and t.endswith(".md")
        ):
            published.append(f"{tables}/{t[len('results/tables/'):]}")
        elif (
            tables is not None
            and t.startswith("results/timings/")
            and t.endswith(".md")
        ):
            # timing tables name their machine; published next to the tables
            published.append(f"{tables}/timings/{t[len('results/timings/'):]}")
    return published + [report]


def shard_files(pattern, cells):
    """The files of the shards ``cells`` (dicts of wildcard values) under the path
    ``pattern`` of their shard rule (``*_SHARD_OUTPUT``), in the order of ``cells``."""
    return [pattern.format(**cell) for cell in cells]


# Parameters of one shard of each experiment, for its shard rule and for the batch rules of
# batches.smk. Called only when the experiment's section is in the configuration; the
# names they read (SIM, DC, ASY..., AUD...) are defined by the experiment's rule file.
def sim_shard_params(experiment, algorithm, shard):
    """Parameters of one simulation shard (the shard rule's and the batch rules')."""
    return {
        "experiment": experiment,
        "spec": SIM["experiments"][experiment],
        "instances": INSTANCES,
        "algorithm": algorithm,
        "seed": config["seed"],
        "settings": SIM_SETTINGS,
        "n_shards": SIM_SHARDS,
        "shard": int(shard),
        "code": SRC_HASH,
    }


def dc_shard_params(instance, algorithm, threshold, shard):
    """Parameters of one delta-correct shard (the shard rule's and the batch rules')."""
    return {
        "instance": INSTANCES[instance],
        "algorithm": algorithm,
        "threshold": threshold,
        "runs": int(DC["runs"][instance]),
        "section": DC,
        "seed": config["seed"],
        "n_shards": DC_SHARDS,
        "shard": int(shard),
        "code": SRC_HASH,
    }


def asym_shard_params(instance, algorithm, threshold, shard):
    """Parameters of one asymptotic shard (the shard rule's and the batch rules'): every
    level of the grid, on one trajectory per run."""
    return {
        "instance": ASY_INSTANCES[instance].instance.to_dict(),
        "runs": ASY_INSTANCES[instance].runs,
        "log_inv_deltas": list(ASY_LEVELS.values()),
        "algorithm": algorithm,
        "threshold": threshold,
        "n0": ASY["n0"],
        "beta": ASY["beta"],
        "max_samples": ASY["max_samples"],
        "seed": config["seed"],
        "n_shards": ASY_SHARDS,
        "shard": int(shard),
        "code": SRC_HASH,
    }


def audit_shard_params(algorithm, n0, shard):
    """Parameters of one audit shard (the shard rule's and the batch rules')."""
    return {
        "section": AUD,
        "instances": INSTANCES,
        "algorithm": algorithm,
        "n0": int(n0),
        "settings": AUD_SETTINGS,
        "seed": config["seed"],
        "n_shards": AUD_SHARDS,
        "shard": int(shard),
        "code": SRC_HASH,
    }
