# Asymptotic regime (Theorem thm:upper_bound_sample_complexity_algorithm, Lemma
# lem:lower_bound_sample_complexity): E[tau_delta]/ln(1/delta) for delta -> 0 on a grid of
# ln(1/delta) (carried in log space, up to ln(1/delta) = 1000 and beyond), one shard file per
# (instance, algorithm, threshold, shard), each run one trajectory for every level, with a
# row per run and level -> runs -> summary, slopes, verdicts and paired level comparisons ->
# figure and table. Seeds: (seed, "asymptotic:<thr>", instance, algorithm, run), so the
# number of shards never changes the results and a level run alone gives the same row.
import re

if "asymptotic" in config:
    from baiuv.studies.asymptotic import (
        asymptotic_instances,
        asymptotic_levels,
        asymptotic_pairs,
        level_label,
    )

    ASY = config["asymptotic"]
    ASY_INSTANCES = {
        a.name: a for a in asymptotic_instances(ASY["instances"], INSTANCES)
    }
    ASY_LEVELS = {level_label(x): x for x in asymptotic_levels(ASY)}
    ASY_PAIRS = asymptotic_pairs(ASY)
    ASY_ALGORITHMS = list(dict.fromkeys(a for a, _ in ASY_PAIRS))
    ASY_THRESHOLDS = list(dict.fromkeys(t for _, t in ASY_PAIRS))
    ASY_SHARDS = ASY["shards"]

    # wildcard constraints: exact alternatives (level labels contain ".")
    ASY_WC = {
        key: "|".join(re.escape(str(v)) for v in values)
        for key, values in (
            ("instance", ASY_INSTANCES),
            ("algorithm", ASY_ALGORITHMS),
            ("threshold", ASY_THRESHOLDS),
        )
    }

    # the shard kind of baiuv.studies.asymptotic_claims.SPEC: its file patterns, its
    # cells
    ASY_SHARD_OUTPUT = SHARD_KIND["asymptotic"].output
    ASY_SHARD_LOG = SHARD_KIND["asymptotic"].log
    ASY_SHARD_CELLS = SHARD_PLANS["asymptotic"].cells

    if not SHARD_BATCHES:

        rule asym_shard:
            input:
                KERNELS,
            output:
                **ASY_SHARD_OUTPUT,
            log:
                ASY_SHARD_LOG,
            benchmark:
                "benchmarks/out/asym_{instance}_{algorithm}_{threshold}_{shard}.tsv"
            wildcard_constraints:
                instance=ASY_WC["instance"],
                algorithm=ASY_WC["algorithm"],
                threshold=ASY_WC["threshold"],
                shard=r"\d+",
            conda:
                CONDA_ENV
            resources:
                runtime=240,
                mem_mb=1000,
            params:
                kind="asymptotic",
                p=shard_params("asymptotic"),
            script:
                "../scripts/shard.py"

    rule asym_aggregate:
        input:
            runs=shard_files(ASY_SHARD_OUTPUT["runs"], ASY_SHARD_CELLS),
            timings=shard_files(ASY_SHARD_OUTPUT["timings"], ASY_SHARD_CELLS),
        output:
            runs="results/asymptotic/runs.parquet",
            summary="results/asymptotic/summary.parquet",
            slopes="results/asymptotic/slopes.parquet",
            verdicts="results/asymptotic/verdicts.parquet",
            paired="results/asymptotic/paired.parquet",
            timings="results/timings/asymptotic/runs.parquet",
        log:
            "logs/asymptotic/aggregate.log",
        conda:
            CONDA_ENV
        resources:
            mem_mb=2000,
        params:
            experiment="asymptotic",
            instances={k: v.instance.to_dict() for k, v in ASY_INSTANCES.items()},
            beta=ASY["beta"],
            level=ASY["level"],
            fit_points=ASY["fit_points"],
            tolerance=ASY["tolerance"],
            code=SRC_HASH,
            # what each shard must have recorded, in the order of input.runs
            expect=[
                {
                    "instance": ASY_INSTANCES[c["instance"]].instance.to_dict(),
                    "algorithm": c["algorithm"],
                    "threshold": c["threshold"],
                    "log_inv_deltas": list(ASY_LEVELS.values()),
                    "seed": config["seed"],
                    "n_shards": ASY_SHARDS,
                    "shard": c["shard"],
                    "code": SRC_HASH,
                }
                for c in ASY_SHARD_CELLS
            ],
        script:
            "../scripts/aggregate.py"

    rule asym_figure:
        input:
            summary="results/asymptotic/summary.parquet",
        output:
            pdf="results/figures/asymptotic.pdf",
            png=report(
                "results/figures/asymptotic.png",
                caption="../report/asymptotic.rst",
                category=report_category("asymptotic"),
                labels=report_labels("asymptotic"),
            ),
        log:
            "logs/asymptotic/figure.log",
        conda:
            CONDA_ENV
        params:
            experiment="asymptotic",
            code=FIGURE_HASH,
            cells=[list(c) for c in ASY_PAIRS],
            instances=list(ASY_INSTANCES),
        script:
            "../scripts/figure.py"

    rule asym_table:
        input:
            slopes="results/asymptotic/slopes.parquet",
            summary="results/asymptotic/summary.parquet",
            verdicts="results/asymptotic/verdicts.parquet",
            paired="results/asymptotic/paired.parquet",
        output:
            table="results/tables/asymptotic_slopes.md",
        log:
            "logs/asymptotic/table.log",
        conda:
            CONDA_ENV
        params:
            experiment="asymptotic",
            level=ASY["level"],
            fit_points=ASY["fit_points"],
            n0=ASY["n0"],
        script:
            "../scripts/table.py"

    localrules:
        asym_aggregate,
        asym_figure,
        asym_table,
