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
        # relative to the checkout, so the report reads the same from any --directory
        config_name=lambda wc: ", ".join(
            os.path.relpath(os.path.abspath(f), workflow.basedir)
            for f in workflow.configfiles
        )
        or "config/config.yaml",
        code=SRC_HASH,
    script:
        "../scripts/reproduction.py"


localrules:
    reproduction_report,
