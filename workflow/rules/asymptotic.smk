# Asymptotic regime (Theorem thm:upper_bound_sample_complexity_algorithm, Lemma
# lem:lower_bound_sample_complexity): E[tau_delta]/log(1/delta) for delta -> 0 on a grid of
# delta, one shard file per (instance, algorithm, threshold, delta, shard) -> runs ->
# summary and fitted slopes -> figure and table. Seeds: (seed, "asymptotic:<thr>:<delta>",
# instance, algorithm, run), so the number of shards never changes the results.
import re

if "asymptotic" in config:
    from baiuv.experiments.asymptotic import asymptotic_instances, delta_label

    ASY = config["asymptotic"]
    ASY_INSTANCES = {
        a.name: a for a in asymptotic_instances(ASY["instances"], INSTANCES)
    }
    ASY_DELTAS = {delta_label(d): float(d) for d in ASY["deltas"]}
    ASY_ALGORITHMS = list(ASY["algorithms"])
    ASY_THRESHOLDS = list(ASY["thresholds"])
    ASY_SHARDS = ASY["shards"]

    # wildcard constraints: exact alternatives (delta labels contain "." and "-")
    ASY_WC = {
        key: "|".join(re.escape(str(v)) for v in values)
        for key, values in (
            ("instance", ASY_INSTANCES),
            ("algorithm", ASY_ALGORITHMS),
            ("threshold", ASY_THRESHOLDS),
            ("dlabel", ASY_DELTAS),
        )
    }

    rule asym_shard:
        output:
            runs="results/asymptotic/shards/{instance}/{algorithm}/{threshold}/delta_{dlabel}/shard_{shard}.parquet",
            timings="results/timings/asymptotic/shards/{instance}/{algorithm}/{threshold}/delta_{dlabel}/shard_{shard}.parquet",
        log:
            "logs/asymptotic/{instance}/{algorithm}/{threshold}/delta_{dlabel}/shard_{shard}.log",
        benchmark:
            "benchmarks/out/asym_{instance}_{algorithm}_{threshold}_{dlabel}_{shard}.tsv"
        wildcard_constraints:
            instance=ASY_WC["instance"],
            algorithm=ASY_WC["algorithm"],
            threshold=ASY_WC["threshold"],
            dlabel=ASY_WC["dlabel"],
            shard=r"\d+",
        conda:
            CONDA_ENV
        resources:
            runtime=240,
            mem_mb=1000,
        params:
            instance=lambda wc: ASY_INSTANCES[wc.instance].instance.to_dict(),
            runs=lambda wc: ASY_INSTANCES[wc.instance].runs,
            delta=lambda wc: ASY_DELTAS[wc.dlabel],
            algorithm=lambda wc: wc.algorithm,
            threshold=lambda wc: wc.threshold,
            n0=ASY["n0"],
            beta=ASY["beta"],
            max_samples=ASY["max_samples"],
            seed=config["seed"],
            n_shards=ASY_SHARDS,
            shard=lambda wc: int(wc.shard),
            code=SRC_HASH,
        script:
            "../scripts/asym_shard.py"

    rule asym_aggregate:
        input:
            runs=expand(
                "results/asymptotic/shards/{instance}/{algorithm}/{threshold}/delta_{dlabel}/shard_{shard}.parquet",
                instance=list(ASY_INSTANCES),
                algorithm=ASY_ALGORITHMS,
                threshold=ASY_THRESHOLDS,
                dlabel=list(ASY_DELTAS),
                shard=range(ASY_SHARDS),
            ),
            timings=expand(
                "results/timings/asymptotic/shards/{instance}/{algorithm}/{threshold}/delta_{dlabel}/shard_{shard}.parquet",
                instance=list(ASY_INSTANCES),
                algorithm=ASY_ALGORITHMS,
                threshold=ASY_THRESHOLDS,
                dlabel=list(ASY_DELTAS),
                shard=range(ASY_SHARDS),
            ),
        output:
            runs="results/asymptotic/runs.parquet",
            summary="results/asymptotic/summary.parquet",
            slopes="results/asymptotic/slopes.parquet",
            timings="results/timings/asymptotic/runs.parquet",
        log:
            "logs/asymptotic/aggregate.log",
        conda:
            CONDA_ENV
        resources:
            mem_mb=2000,
        params:
            instances={k: v.instance.to_dict() for k, v in ASY_INSTANCES.items()},
            beta=ASY["beta"],
            level=ASY["level"],
            fit_points=ASY["fit_points"],
            code=SRC_HASH,
        script:
            "../scripts/asym_aggregate.py"

    rule asym_figure:
        input:
            "results/asymptotic/summary.parquet",
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
            algorithms=ASY_ALGORITHMS,
            thresholds=ASY_THRESHOLDS,
            instances=list(ASY_INSTANCES),
        script:
            "../scripts/asym_figure.py"

    rule asym_table:
        input:
            slopes="results/asymptotic/slopes.parquet",
            summary="results/asymptotic/summary.parquet",
        output:
            "results/tables/asymptotic_slopes.md",
        log:
            "logs/asymptotic/table.log",
        conda:
            CONDA_ENV
        params:
            level=ASY["level"],
            fit_points=ASY["fit_points"],
            n0=ASY["n0"],
        script:
            "../scripts/asym_table.py"

    localrules:
        asym_aggregate,
        asym_figure,
        asym_table,
