# Reproducible artifact of "Dealing with Unknown Variances in Best-Arm Identification"
# (Jourdan, Degenne, Kaufmann, ALT 2023).
#   snakemake --cores 2                        # every figure and table, default config
#   snakemake --cores 2 results/figures/characteristic_times_ratio.pdf   # one figure
#   snakemake --cores 32 --configfile config/paper.yaml          # paper scale
from pathlib import Path

from snakemake.utils import min_version, validate

min_version("8.0")


configfile: "config/config.yaml"


validate(config, "workflow/schemas/config.schema.yaml")


# Targets collected by the topic rule files (each appends its final figures and tables).
ALL_TARGETS = []


include: "workflow/rules/common.smk"
include: "workflow/rules/characteristic_times.smk"


for _smk in sorted(Path(workflow.basedir, "workflow/rules").glob("*.smk")):
    if _smk.name not in ("common.smk", "characteristic_times.smk"):

        include: str(_smk)


report: "workflow/report/workflow.rst"


localrules:
    all,


rule all:
    default_target: True
    input:
        ALL_TARGETS,
