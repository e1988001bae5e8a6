# Reproduction report (every quantitative claim of the paper checked against the results).
# Inputs come from reproduction_inputs (common.smk), evaluated after every include.


rule reproduction_report:
    input:
        unpack(reproduction_inputs),
    output:
        report(
            "results/reproduction.md",
            caption="../report/reproduction.rst",
            category="Reproduction report",
        ),
    log:
        "logs/reproduction.log",
    conda:
        CONDA_ENV
    params:
        delta=config["simulation"]["delta"],
        audit_delta=config.get("audit", {}).get("delta"),
        config_name=lambda wc: ", ".join(
            os.path.relpath(f) for f in workflow.configfiles
        )
        or "config/config.yaml",
        code=SRC_HASH,
    script:
        "../scripts/reproduction.py"


rule publish_reproduction_report:
    input:
        "results/reproduction.md",
    output:
        "docs/reproduction.md",
    log:
        "logs/publish_reproduction.log",
    conda:
        CONDA_ENV
    script:
        "../scripts/copy_file.py"


localrules:
    reproduction_report,
    publish_reproduction_report,
