# Reproduction report (every quantitative claim of the paper checked against the results).
# Included before simulations.smk (alphabetical order): names defined there are only
# used inside input functions, which Snakemake evaluates after every include.


def reproduction_inputs(wildcards):
    return {
        "ct_instances": "results/characteristic_times/instances.parquet",
        "ct_gap": "results/characteristic_times/sweep_gap.parquet",
        "ct_variance": "results/characteristic_times/sweep_variance.parquet",
        "thr_delta": "results/thresholds/curves_delta.parquet",
        "thr_time": "results/thresholds/curves_time.parquet",
        "thr_initial": "results/thresholds/initial_times.parquet",
        "thr_costs": "results/thresholds/costs.parquet",
        "decisions": "docs/decisions.md",
        "simulations": expand(
            "results/simulations/{experiment}.parquet", experiment=SIM_EXPERIMENTS
        ),
    }


rule reproduction_report:
    input:
        unpack(reproduction_inputs),
    output:
        report(
            "results/reproduction.md",
            caption="../report/reproduction.rst",
            category="Reproduction report",
        ),
    params:
        delta=config["simulation"]["delta"],
        config_name=lambda wc: ", ".join(
            os.path.relpath(f) for f in workflow.configfiles
        )
        or "config/config.yaml",
        code=SRC_HASH,
    log:
        "logs/reproduction.log",
    conda:
        CONDA_ENV
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


ALL_TARGETS.append("results/reproduction.md")
if config.get("reproduction", {}).get("publish", False):
    ALL_TARGETS.append("docs/reproduction.md")
