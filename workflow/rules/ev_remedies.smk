# Beyond the paper: remedies for the EV-GLR rules' errors (larger n0, the delta-correct EV
# thresholds, the Student-calibrated heuristic) and their cost; the mechanism of the errors
# (tested model at the first check, erring runs replayed). One shard job per (algorithm,
# n0, shard): every threshold of that n0 is a stopping level of one trajectory per run.
# Seeds: (seed, "ev_remedies", instance, algorithm, run), common to every remedy, but the
# n0 = 2 trajectories on the instances of Figure 2 are the main experiment's runs (its
# seeds and settings), checked against its tables by the aggregation (D400).
if config.get("ev_remedies"):
    from baiuv.studies.ev_remedy_runs import main_groups, main_pairs

    EVR = config["ev_remedies"]
    # the main experiment's cells whose runs the study shares, and their tables
    EVR_MAIN = main_pairs(EVR, config.get("simulation"))
    EVR_MAIN_TABLES = [
        f"results/simulations/{e}.parquet"
        for e in dict.fromkeys(e for e, _ in EVR_MAIN)
    ]
    EVR_N0 = {}
    for _r in EVR["remedies"]:
        EVR_N0.setdefault(str(_r["n0"]), []).append(_r)
    EVR_SHARD = "results/ev_remedies/shards/{algorithm}/n0_{n0}/shard_{shard}.parquet"
    EVR_EVIDENCE = (
        "results/ev_remedies/shards/{algorithm}/n0_{n0}/truncated_{shard}.parquet"
    )

    rule ev_remedies_shard:
        input:
            KERNELS,
        output:
            runs=EVR_SHARD,
            evidence=EVR_EVIDENCE,
        log:
            "logs/ev_remedies/{algorithm}/n0_{n0}/shard_{shard}.log",
        benchmark:
            "benchmarks/out/ev_remedies_{algorithm}_n0_{n0}_{shard}.tsv"
        wildcard_constraints:
            algorithm="|".join(EVR["algorithms"]),
            n0="|".join(EVR_N0),
            shard=r"\d+",
        conda:
            CONDA_ENV
        resources:
            runtime=240,
            mem_mb=1000,
        params:
            section=EVR,
            instances=INSTANCES,
            remedies=lambda wc: EVR_N0[wc.n0],
            main=lambda wc: main_groups(
                EVR, config.get("simulation"), wc.algorithm, int(wc.n0)
            ),
            seed=config["seed"],
            code=SRC_HASH,
        script:
            "../scripts/ev_remedies_shard.py"

    rule ev_remedies_aggregate:
        input:
            runs=expand(
                EVR_SHARD,
                algorithm=EVR["algorithms"],
                n0=list(EVR_N0),
                shard=range(EVR["shards"]),
            ),
            evidence=expand(
                EVR_EVIDENCE,
                algorithm=EVR["algorithms"],
                n0=list(EVR_N0),
                shard=range(EVR["shards"]),
            ),
            main=EVR_MAIN_TABLES,
        output:
            runs="results/ev_remedies/runs.parquet",
            cells="results/ev_remedies/cells.parquet",
            instances="results/ev_remedies/instances.parquet",
            paired="results/ev_remedies/paired.parquet",
            truncated="results/ev_remedies/truncated.parquet",
            table="results/tables/ev_remedies.md",
        log:
            "logs/ev_remedies/aggregate.log",
        conda:
            CONDA_ENV
        resources:
            mem_mb=4000,
        params:
            delta=float(EVR["delta"]),
            level=EVR["level"],
            max_samples=int(EVR["max_samples"]),
            main=EVR_MAIN,
            code=SRC_HASH,
            # what each shard must have recorded, in the order of the input
            expect=[
                {
                    "remedies": EVR_N0[n],
                    "algorithm": a,
                    "seed": config["seed"],
                    "shard": s,
                    "main": main_groups(EVR, config.get("simulation"), a, int(n)),
                    "code": SRC_HASH,
                }
                for a in EVR["algorithms"]
                for n in EVR_N0
                for s in range(EVR["shards"])
            ],
        script:
            "../scripts/ev_remedies_aggregate.py"

    rule ev_remedies_mechanism:
        input:
            "results/ev_remedies/runs.parquet",
        output:
            errors="results/ev_remedies/erring_runs.parquet",
            init="results/ev_remedies/init_model.parquet",
            table="results/tables/ev_mechanism.md",
        log:
            "logs/ev_remedies/mechanism.log",
        conda:
            CONDA_ENV
        params:
            section=EVR,
            instances=INSTANCES,
            seed=config["seed"],
            code=SRC_HASH,
        script:
            "../scripts/ev_remedies_mechanism.py"

    rule ev_remedies_figure:
        input:
            cells="results/ev_remedies/cells.parquet",
        output:
            pdf="results/figures/ev_remedies.pdf",
            png=report(
                "results/figures/ev_remedies.png",
                caption="../report/ev_remedies.rst",
                category=report_category("ev_remedies"),
                labels=report_labels("ev_remedies"),
            ),
        log:
            "logs/ev_remedies/figure.log",
        conda:
            CONDA_ENV
        params:
            experiment="ev_remedies",
            code=FIGURE_HASH,
            delta=float(EVR["delta"]),
        script:
            "../scripts/figure.py"

    localrules:
        ev_remedies_aggregate,
        ev_remedies_mechanism,
        ev_remedies_figure,
