# `snakemake publish`: the one target that writes committed files. It copies every figure
# (results/figures/*), the reproduction report (results/reproduction.md) and, when the
# section has a `tables` key, the Markdown tables (results/tables/*.md) to the destination
# of the config's `publish` section (default config: figures/ and docs/reproduction.md;
# config/paper.yaml: docs/paper-scale/). A plain run writes only under results/ (and logs/), so it never
# modifies a tracked file.
if "publish" in config:
    PUBLISH_FIGURES, PUBLISH_REPORT = publish_paths(config)
    PUBLISH_TABLES = publish_tables_dir(config)

    rule publish_figure:
        input:
            "results/figures/{name}",
        output:
            f"{PUBLISH_FIGURES}/{{name}}",
        log:
            "logs/publish/{name}.log",
        wildcard_constraints:
            name=r"[^/]+\.(pdf|png)",
        conda:
            CONDA_ENV
        script:
            "../scripts/copy_file.py"

    rule publish_report:
        input:
            "results/reproduction.md",
        output:
            PUBLISH_REPORT,
        log:
            "logs/publish/reproduction.log",
        conda:
            CONDA_ENV
        script:
            "../scripts/copy_file.py"

    if PUBLISH_TABLES is not None:

        rule publish_table:
            input:
                "results/tables/{name}",
            output:
                f"{PUBLISH_TABLES}/{{name}}",
            log:
                "logs/publish/tables/{name}.log",
            wildcard_constraints:
                name=r"[^/]+\.md",
            conda:
                CONDA_ENV
            script:
                "../scripts/copy_file.py"

        rule publish_timing:
            input:
                "results/timings/{name}",
            output:
                f"{PUBLISH_TABLES}/timings/{{name}}",
            log:
                "logs/publish/timings/{name}.log",
            wildcard_constraints:
                name=r"[^/]+\.md",
            conda:
                CONDA_ENV
            script:
                "../scripts/copy_file.py"

        localrules:
            publish_table,
            publish_timing,

    localrules:
        publish_figure,
        publish_report,


# inputs: publish_inputs (common.smk), evaluated after every rule file is included
rule publish:
    input:
        publish_inputs,


localrules:
    publish,
