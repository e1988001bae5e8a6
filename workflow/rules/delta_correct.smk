# "delta-correct stopping" experiment: stopping times and error rates with the
# delta-correct thresholds (and the lazy BoB rule) against the heuristic one. One shard
# file per (instance, algorithm, threshold variant, shard) -> one table -> figure and
# Markdown table. Seeds: (seed, "delta_correct", instance, algorithm, run), common to every
# threshold variant (decision D71).
if "delta_correct" in config:
    from baiuv.studies.delta_correct import variants_for

    DC = config["delta_correct"]
    DC_DELTA = section_delta(DC, "delta_correct")
    DC_SHARDS = DC["shards"]
    DC_CELLS = [
        (inst, alg, v)
        for inst in DC["instances"]
        for alg in DC["algorithms"]
        for v in variants_for(alg, DC)
    ]
    DC_VARIANTS = sorted({v for _, _, v in DC_CELLS})

    # the shard kind of baiuv.studies.delta_correct.SPEC: its file patterns, its cells
    DC_SHARD_OUTPUT = SHARD_KIND["delta_correct"].output
    DC_SHARD_LOG = SHARD_KIND["delta_correct"].log
    DC_SHARD_CELLS = SHARD_PLANS["delta_correct"].cells

    if not SHARD_BATCHES:

        rule delta_correct_shard:
            input:
                KERNELS,
            output:
                **DC_SHARD_OUTPUT,
            log:
                DC_SHARD_LOG,
            benchmark:
                "benchmarks/out/delta_correct_{instance}_{algorithm}_{threshold}_{shard}.tsv"
            wildcard_constraints:
                instance="|".join(DC["instances"]),
                algorithm="|".join(DC["algorithms"]),
                threshold="|".join(DC_VARIANTS),
                shard=r"\d+",
            conda:
                CONDA_ENV
            resources:
                runtime=240,
                mem_mb=1000,
            params:
                kind="delta_correct",
                p=shard_params("delta_correct"),
            script:
                "../scripts/shard.py"

    rule delta_correct_aggregate:
        input:
            runs=shard_files(DC_SHARD_OUTPUT["runs"], DC_SHARD_CELLS),
            timings=shard_files(DC_SHARD_OUTPUT["timings"], DC_SHARD_CELLS),
        output:
            runs="results/delta_correct.parquet",
            timings="results/timings/delta_correct.parquet",
        log:
            "logs/delta_correct/aggregate.log",
        conda:
            CONDA_ENV
        resources:
            mem_mb=2000,
        params:
            experiment="delta_correct",
            code=SRC_HASH,
            # what each shard must have recorded, in the order of input.runs
            expect=[
                {
                    "instance.name": c["instance"],
                    "algorithm": c["algorithm"],
                    "threshold": c["threshold"],
                    "section": DC,
                    "seed": config["seed"],
                    "code": SRC_HASH,
                }
                for c in DC_SHARD_CELLS
            ],
        script:
            "../scripts/aggregate.py"

    rule delta_correct_figure:
        input:
            runs="results/delta_correct.parquet",
        output:
            pdf="results/figures/delta_correct_stopping.pdf",
            png=report(
                "results/figures/delta_correct_stopping.png",
                caption="../report/delta_correct_stopping.rst",
                category=report_category("delta_correct_stopping"),
                labels=report_labels("delta_correct_stopping"),
            ),
        log:
            "logs/delta_correct/figure.log",
        conda:
            CONDA_ENV
        params:
            experiment="delta_correct",
            code=FIGURE_HASH,
            instances=DC["instances"],
            algorithms=DC["algorithms"],
            delta=DC_DELTA,
        script:
            "../scripts/figure.py"

    rule delta_correct_table:
        input:
            runs="results/delta_correct.parquet",
            timings="results/timings/delta_correct.parquet",
        output:
            table="results/tables/delta_correct.md",
            timings="results/timings/delta_correct.md",
        log:
            "logs/delta_correct/table.log",
        conda:
            CONDA_ENV
        params:
            experiment="delta_correct",
            delta=DC_DELTA,
        script:
            "../scripts/table.py"

    localrules:
        delta_correct_aggregate,
        delta_correct_figure,
        delta_correct_table,
