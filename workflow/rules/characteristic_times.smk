# Characteristic times: ratio sweeps (Appendix "Characteristic Times", Figure
# fig:evolution_ratios_characteristic_times) and the named-instance table.


rule characteristic_time_sweep:
    input:
        KERNEL_ORACLE,
    output:
        "results/characteristic_times/sweep_{axis}.parquet",
    log:
        "logs/characteristic_times/sweep_{axis}.log",
    benchmark:
        "benchmarks/out/characteristic_time_sweep_{axis}.tsv"
    wildcard_constraints:
        axis="gap|variance",
    conda:
        CONDA_ENV
    resources:
        runtime=30,
        mem_mb=1000,
    params:
        sweep=lambda wc: config["characteristic_times"][f"{wc.axis}_sweep"],
        code=SRC_HASH,
    script:
        "../scripts/characteristic_sweep.py"


rule characteristic_time_instances:
    input:
        KERNEL_ORACLE,
    output:
        "results/characteristic_times/instances.parquet",
    log:
        "logs/characteristic_times/instances.log",
    conda:
        CONDA_ENV
    resources:
        runtime=10,
        mem_mb=1000,
    params:
        instances=[INSTANCES[n] for n in config["characteristic_times"]["instances"]],
        beta=config["characteristic_times"]["beta"],
        code=SRC_HASH,
    script:
        "../scripts/characteristic_instances.py"


rule characteristic_time_table:
    input:
        "results/characteristic_times/instances.parquet",
    output:
        "results/tables/characteristic_times.md",
    log:
        "logs/characteristic_times/table.log",
    conda:
        CONDA_ENV
    params:
        code=SRC_HASH,
    script:
        "../scripts/characteristic_table.py"


rule characteristic_time_figure:
    input:
        gap="results/characteristic_times/sweep_gap.parquet",
        variance="results/characteristic_times/sweep_variance.parquet",
    output:
        pdf="results/figures/characteristic_times_ratio.pdf",
        png=report(
            "results/figures/characteristic_times_ratio.png",
            caption="../report/characteristic_times_ratio.rst",
            category=report_category("characteristic_times_ratio"),
            labels=report_labels("characteristic_times_ratio"),
        ),
    log:
        "logs/characteristic_times/figure.log",
    conda:
        CONDA_ENV
    params:
        code=FIGURE_HASH,
    script:
        "../scripts/characteristic_figure.py"


localrules:
    characteristic_time_table,
    characteristic_time_figure,
