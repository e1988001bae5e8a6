# Reproduction report (every quantitative claim of the paper checked against the results).
# Inputs come from reproduction_inputs (common.smk), evaluated after every include.


rule reproduction_report:
    input:
        unpack(reproduction_inputs),
    output:
        md="results/reproduction.md",
        html=report(
            "results/reproduction.html",
            caption="../report/reproduction.rst",
            category=report_category("reproduction"),
            labels=report_labels("reproduction"),
        ),
        # included by the landing page (workflow/report/workflow.rst)
        summary="results/reproduction_summary.rst",
    log:
        "logs/reproduction.log",
    conda:
        CONDA_ENV
    params:
        delta=section_delta(config["simulation"], "simulation"),
        n0=config["simulation"]["n0"],
        fhn_n0=config["simulation"].get("fhn_n0"),
        # the sections whose values the settings rows check against the paper's (D316)
        settings={
            k: config.get(k)
            for k in (
                "instances",
                "thresholds",
                "simulation",
                "delta_correct",
                "asymptotic",
            )
        },
        log_inv_delta=section_log_inv_delta(config["simulation"], "simulation"),
        bob_slope_tol=config["thresholds"].get("bob_slope", {}).get("tol", 0.1),
        audit_delta=config["audit"]["delta"] if "audit" in config else None,
        dc_delta=(
            section_delta(config["delta_correct"], "delta_correct")
            if "delta_correct" in config
            else None
        ),
        ev_delta=config["ev_remedies"]["delta"] if config.get("ev_remedies") else None,
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
