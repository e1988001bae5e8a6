# Reproducible artifact of "Dealing with Unknown Variances in Best-Arm Identification"
# (Jourdan, Degenne, Kaufmann, ALT 2023).
#   snakemake --cores 2                        # every figure and table, default config
#   snakemake --cores 2 results/figures/characteristic_times_ratio.pdf   # one figure
#   snakemake --cores 32 --configfile config/paper.yaml          # paper scale
import os

from snakemake.utils import min_version

min_version("8.0")


# the base configuration of this workflow, wherever snakemake is started from
configfile: os.path.join(workflow.basedir, "config", "config.yaml")


include: "workflow/rules/common.smk"
include: "workflow/rules/kernels.smk"
include: "workflow/rules/characteristic_times.smk"
include: "workflow/rules/thresholds.smk"
include: "workflow/rules/simulations.smk"
include: "workflow/rules/delta_correct.smk"
include: "workflow/rules/asymptotic.smk"
include: "workflow/rules/audit.smk"
include: "workflow/rules/ev_remedies.smk"
include: "workflow/rules/batches.smk"
include: "workflow/rules/reproduction.smk"
include: "workflow/rules/report.smk"
include: "workflow/rules/publish.smk"
include: "workflow/rules/slurm.smk"


report: "workflow/report/workflow.rst"


localrules:
    all,


rule all:
    default_target: True
    input:
        all_targets(),
        rebuild_targets(),
