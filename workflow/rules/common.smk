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
from baiuv.pipeline.specs import enabled_specs
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


# The experiments the configuration runs: the record of each (D370: one record per
# experiment), in the order of the reproduction report (baiuv.pipeline.specs).
SPECS = enabled_specs(config)
# their shard kinds by name, and the shards of each this configuration asks for
SHARD_KIND = {k.name: k for s in SPECS for k in s.shard_kinds}
SHARD_PLANS = {name: k.plan(config) for name, k in SHARD_KIND.items()}
# their rule files, included by the Snakefile
EXPERIMENT_RULES = [f"workflow/rules/{s.rules}" for s in SPECS if s.rules]


def shard_params(kind):
    """The parameters of one shard of kind ``kind`` from the shard rule's wildcards."""
    plan = SHARD_PLANS[kind]
    return lambda wc: plan.params(SRC_HASH, **dict(wc.items()))


# Input function of the reproduction_report rule (reproduction.smk), the result files whose
# claims each experiment checks, and the checkout's list of the paper's open choices.
def reproduction_inputs(wildcards):
    out = {
        # also when the working directory is elsewhere (--directory):
        # "docs/decisions/paper.md" would be looked up in the workdir. Relative to the
        # workdir (not absolute), so a checkout that is copied or moved with its results
        # keeps the same recorded input set and reruns nothing.
        "decisions": os.path.relpath(
            os.path.join(workflow.basedir, "docs", "decisions", "paper.md")
        ),
    }
    for spec in SPECS:
        out.update(spec.report_inputs(config))
    return out


# Report layout: the category and labels of every report entry, from the records of every
# experiment (their category and entries, D403), the paper's printed numbering from
# baiuv.report.paper_refs.
from baiuv.pipeline.specs import specs  # noqa: E402
from baiuv.report.pages import report_entries  # noqa: E402

REPORT = report_entries(specs())


def report_category(key):
    """Category of report entry ``key`` (numbered in the order of the paper)."""
    return REPORT.category(key)


def report_labels(key):
    """Labels of report entry ``key``: the paper's figure/section it reproduces, what it shows."""
    return REPORT.labels(key)


def all_targets():
    """Final figures and tables of every experiment the configuration enables."""
    targets = [t for spec in SPECS for t in spec.targets(config)]
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
    ``pattern`` of their shard kind (``SHARD_KIND[kind].output``), in the order of ``cells``.
    """
    return [pattern.format(**cell) for cell in cells]
