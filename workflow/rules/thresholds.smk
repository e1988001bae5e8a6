# Stopping thresholds (Section sec:calibration_stopping_rules, Appendix app:thresholds):
# curves against ln(1/delta) and t, figures fig:stopping_thresholds_evolutions_*,
# initial-time and evaluation-cost tables.

THR = config["thresholds"]


rule threshold_curves:
    output:
        "results/thresholds/curves_{axis}.parquet",
    log:
        "logs/thresholds/curves_{axis}.log",
    benchmark:
        "benchmarks/out/threshold_curves_{axis}.tsv"
    wildcard_constraints:
        axis="delta|time",
    conda:
        CONDA_ENV
    resources:
        runtime=120,
        mem_mb=2000,
    params:
        thr=THR,
        seed=config["seed"],
        code=SRC_HASH,
    script:
        "../scripts/thresholds_curves.py"


rule threshold_initial_times:
    output:
        "results/thresholds/initial_times.parquet",
    log:
        "logs/thresholds/initial_times.log",
    conda:
        CONDA_ENV
    params:
        thr=THR,
        code=SRC_HASH,
    script:
        "../scripts/thresholds_initial_times.py"


rule threshold_costs:
    output:
        "results/thresholds/costs.parquet",
    log:
        "logs/thresholds/costs.log",
    benchmark:
        "benchmarks/out/threshold_costs.tsv"
    conda:
        CONDA_ENV
    params:
        thr=THR,
        seed=config["seed"],
        code=SRC_HASH,
    script:
        "../scripts/thresholds_costs.py"


rule threshold_figure:
    input:
        delta="results/thresholds/curves_delta.parquet",
        time="results/thresholds/curves_time.parquet",
    output:
        pdf=report(
            "figures/thresholds_{which}.pdf",
            caption="../report/thresholds_figure.rst",
            category="Stopping thresholds",
        ),
        png="figures/thresholds_{which}.png",
    log:
        "logs/thresholds/figure_{which}.log",
    wildcard_constraints:
        which="glr|evglr|all",
    conda:
        CONDA_ENV
    script:
        "../scripts/thresholds_figure.py"


rule threshold_initial_times_table:
    input:
        "results/thresholds/initial_times.parquet",
    output:
        report(
            "results/tables/threshold_initial_times.md",
            caption="../report/thresholds_initial_times.rst",
            category="Stopping thresholds",
        ),
    log:
        "logs/thresholds/initial_times_table.log",
    conda:
        CONDA_ENV
    script:
        "../scripts/thresholds_tables.py"


rule threshold_costs_table:
    input:
        "results/thresholds/costs.parquet",
    output:
        report(
            "results/tables/threshold_costs.md",
            caption="../report/thresholds_costs.rst",
            category="Stopping thresholds",
        ),
    log:
        "logs/thresholds/costs_table.log",
    conda:
        CONDA_ENV
    script:
        "../scripts/thresholds_tables.py"


localrules:
    threshold_figure,
    threshold_initial_times_table,
    threshold_costs_table,
