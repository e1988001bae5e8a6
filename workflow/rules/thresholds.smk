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


# Appendix J.1's hyper-parameter statements (decision D340): the measures of the
# thresholds on grids of (eta0, eta1), s and gamma; deterministic formulas, no data stream.
rule threshold_parameter_effects:
    output:
        "results/thresholds/parameter_effects.parquet",
    log:
        "logs/thresholds/parameter_effects.log",
    conda:
        CONDA_ENV
    params:
        backend=THR.get("bob_backend", "auto"),
        code=SRC_HASH,
    script:
        "../scripts/thresholds_parameter_effects.py"


# Timings are machine-dependent: they live under results/timings/ (with the machine named),
# apart from the byte-reproducible results/tables/ and results/figures/.
rule threshold_costs:
    output:
        "results/timings/threshold_costs.parquet",
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
        pdf="results/figures/thresholds_{which}.pdf",
        png=report(
            "results/figures/thresholds_{which}.png",
            caption="../report/thresholds_figure.rst",
            category=lambda wc: report_category(f"thresholds_{wc.which}"),
            labels=lambda wc: report_labels(f"thresholds_{wc.which}"),
        ),
    log:
        "logs/thresholds/figure_{which}.log",
    wildcard_constraints:
        which="glr|evglr|all",
    conda:
        CONDA_ENV
    params:
        code=FIGURE_HASH,
    script:
        "../scripts/thresholds_figure.py"


rule threshold_initial_times_table:
    input:
        "results/thresholds/initial_times.parquet",
    output:
        table="results/tables/threshold_initial_times.md",
    log:
        "logs/thresholds/initial_times_table.log",
    conda:
        CONDA_ENV
    script:
        "../scripts/thresholds_tables.py"


rule threshold_costs_table:
    input:
        "results/timings/threshold_costs.parquet",
    output:
        table="results/timings/threshold_costs.md",
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


# Where BoB's slope in ln(1/delta) joins KL's (decision D171): BoB (exact solver), KL, Box
# and the bound min(Box(delta/2), KL(delta/2)) over a wide ln(1/delta) range, several t.
rule bob_slope:
    output:
        curves="results/thresholds/bob_slope_curves.parquet",
        summary="results/thresholds/bob_slope_summary.parquet",
    log:
        "logs/thresholds/bob_slope.log",
    benchmark:
        "benchmarks/out/bob_slope.tsv"
    conda:
        CONDA_ENV
    resources:
        runtime=60,
        mem_mb=2000,
    params:
        thr=THR,
        seed=config["seed"],
        code=SRC_HASH,
    script:
        "../scripts/thresholds_bob_slope.py"


rule bob_slope_table:
    input:
        curves="results/thresholds/bob_slope_curves.parquet",
        summary="results/thresholds/bob_slope_summary.parquet",
    output:
        "results/tables/bob_slope.md",
    log:
        "logs/thresholds/bob_slope_table.log",
    conda:
        CONDA_ENV
    script:
        "../scripts/thresholds_bob_slope_table.py"


rule bob_slope_figure:
    input:
        curves="results/thresholds/bob_slope_curves.parquet",
        summary="results/thresholds/bob_slope_summary.parquet",
    output:
        pdf="results/figures/bob_slope.pdf",
        png=report(
            "results/figures/bob_slope.png",
            caption="../report/bob_slope.rst",
            category=report_category("bob_slope_figure"),
            labels=report_labels("bob_slope_figure"),
        ),
    log:
        "logs/thresholds/bob_slope_figure.log",
    conda:
        CONDA_ENV
    params:
        code=FIGURE_HASH,
    script:
        "../scripts/thresholds_bob_slope_figure.py"


# The design card's solver: BoB and EV-BoB on the figure grids through the Pyomo model and
# Ipopt (the executable when one exists, else cyipopt), against the exact global solver.
rule ipopt_agreement:
    output:
        agreement="results/thresholds/ipopt_agreement.parquet",
        timings="results/timings/ipopt_agreement.parquet",
    log:
        "logs/thresholds/ipopt_agreement.log",
    benchmark:
        "benchmarks/out/ipopt_agreement.tsv"
    conda:
        CONDA_ENV
    resources:
        runtime=60,
        mem_mb=2000,
    params:
        thr=THR,
        seed=config["seed"],
        code=SRC_HASH,
    script:
        "../scripts/thresholds_ipopt_agreement.py"


rule ipopt_agreement_table:
    input:
        "results/thresholds/ipopt_agreement.parquet",
        timings="results/timings/ipopt_agreement.parquet",
    output:
        table="results/tables/ipopt_agreement.md",
        timings="results/timings/ipopt_agreement.md",
    log:
        "logs/thresholds/ipopt_agreement_table.log",
    conda:
        CONDA_ENV
    script:
        "../scripts/thresholds_tables.py"


localrules:
    bob_slope_table,
    bob_slope_figure,
    ipopt_agreement_table,
