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


# the rule file of every experiment the configuration runs, in the order of their records
# (SPECS of common.smk)
for _rules in EXPERIMENT_RULES:

    include: _rules


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
