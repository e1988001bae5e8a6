# Stopping-time experiments (Section ssec:experiments, Figure
# fig:random_instances_heuristic_threshold): shards of runs -> one table per experiment ->
# figure and tables. Seeds come from (seed, experiment, instance, algorithm, run) only, so
# the number of shards never changes the results.

from baiuv.registry import run_parameters

SIM = config["simulation"]
# the run parameters of the registry (baiuv.registry.PARAMETERS, delta or log_inv_delta),
# defaults filled in
SIM_SETTINGS = run_parameters(SIM)
SIM_EXPERIMENTS = list(SIM["experiments"])
SIM_ALGORITHMS = list(SIM["algorithms"])
SIM_SHARDS = int(SIM["shards"])


# the shard kind of baiuv.experiments.stopping_claims.SPEC: its file patterns, its cells
SIM_SHARD_OUTPUT = SHARD_KIND["simulations"].output
SIM_SHARD_LOG = SHARD_KIND["simulations"].log


# one job per shard (cluster); local runs use the batch rules of batches.smk instead
if not SHARD_BATCHES:

    rule sim_shard:
        input:
            KERNELS,
        output:
            **SIM_SHARD_OUTPUT,
        log:
            SIM_SHARD_LOG,
        benchmark:
            "benchmarks/out/sim_shard_{experiment}_{algorithm}_{shard}.tsv"
        wildcard_constraints:
            experiment="|".join(SIM_EXPERIMENTS),
            algorithm="|".join(SIM_ALGORITHMS),
            shard=r"\d+",
        conda:
            CONDA_ENV
        resources:
            runtime=120,
            mem_mb=1000,
        params:
            kind="simulations",
            p=shard_params("simulations"),
        script:
            "../scripts/shard.py"


rule sim_aggregate:
    input:
        runs=expand(
            SIM_SHARD_OUTPUT["runs"],
            algorithm=SIM_ALGORITHMS,
            shard=range(SIM_SHARDS),
            allow_missing=True,
        ),
        timings=expand(
            SIM_SHARD_OUTPUT["timings"],
            algorithm=SIM_ALGORITHMS,
            shard=range(SIM_SHARDS),
            allow_missing=True,
        ),
    output:
        runs="results/simulations/{experiment}.parquet",
        timings="results/timings/simulations/{experiment}.parquet",
    log:
        "logs/simulations/aggregate_{experiment}.log",
    wildcard_constraints:
        experiment="|".join(SIM_EXPERIMENTS),
    conda:
        CONDA_ENV
    resources:
        mem_mb=2000,
    params:
        code=SRC_HASH,
        # what each shard must have recorded, in the order of input.runs
        expect=lambda wc: [
            {
                "experiment": wc.experiment,
                "spec": SIM["experiments"][wc.experiment],
                "algorithm": a,
                "seed": config["seed"],
                "n_shards": SIM_SHARDS,
                "shard": s,
                "code": SRC_HASH,
            }
            for a in SIM_ALGORITHMS
            for s in range(SIM_SHARDS)
        ],
    script:
        "../scripts/sim_aggregate.py"


rule sim_figure:
    input:
        expand("results/simulations/{experiment}.parquet", experiment=SIM_EXPERIMENTS),
    output:
        pdf="results/figures/stopping_times.pdf",
        png=report(
            "results/figures/stopping_times.png",
            caption="../report/stopping_times.rst",
            category=report_category("stopping_times_figure"),
            labels=report_labels("stopping_times_figure"),
        ),
    log:
        "logs/simulations/figure.log",
    conda:
        CONDA_ENV
    params:
        code=FIGURE_HASH,
        experiments=SIM_EXPERIMENTS,
        algorithms=SIM_ALGORITHMS,
    script:
        "../scripts/sim_figure.py"


rule sim_tables:
    input:
        expand("results/simulations/{experiment}.parquet", experiment=SIM_EXPERIMENTS),
    output:
        errors="results/tables/error_rates.md",
        times="results/tables/stopping_times.md",
    log:
        "logs/simulations/tables.log",
    conda:
        CONDA_ENV
    params:
        delta=section_delta(SIM, "simulation"),
        log_inv_delta=section_log_inv_delta(SIM, "simulation"),
        n0=SIM["n0"],
        fhn_n0=SIM.get("fhn_n0"),
    script:
        "../scripts/sim_tables.py"


localrules:
    sim_aggregate,
    sim_figure,
    sim_tables,


# FHN1/FHN2 across their initial size n0 (Appendix J.1's statements on n0, decision D341):
# every experiment's runs again at each n0 of simulation.fhn_n0_grid (about a millisecond a
# run), the same streams at every n0.
rule fhn_n0_study:
    input:
        KERNELS,
    output:
        "results/fhn_n0.parquet",
    log:
        "logs/simulations/fhn_n0.log",
    benchmark:
        "benchmarks/out/fhn_n0.tsv"
    conda:
        CONDA_ENV
    resources:
        runtime=120,
        mem_mb=2000,
    params:
        experiments=SIM["experiments"],
        instances=INSTANCES,
        grid=SIM.get("fhn_n0_grid"),
        seed=config["seed"],
        settings=SIM_SETTINGS,
        code=SRC_HASH,
    script:
        "../scripts/fhn_n0_study.py"
