# Reproduction report (every quantitative claim of the paper checked against the results).
# Inputs come from reproduction_inputs (common.smk): the result files each experiment's
# record names; its claims are checked in the order of the records (baiuv.pipeline.specs).


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
        # the validated configuration the experiments' claims read (their records'
        # claims(tables, config)), without the keys that change no claim
        config={
            k: v for k, v in config.items() if k not in ("publish", "shard_batches")
        },
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
