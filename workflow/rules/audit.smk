# delta-correctness audit of the heuristic threshold: every algorithm of the
# experiments with its paper stopping rule, on many instances, for several n0. One shard
# file per (algorithm, n0, shard) covering all instances -> runs and cells -> tables
# (flagged cells, summary, explanation) and figure. Seeds: (seed, "audit", instance,
# algorithm, run), common to every n0 (decision D85).
if "audit" in config:
    AUD = config["audit"]
    AUD_SHARDS = AUD["shards"]

    rule audit_instances:
        input:
            KERNEL_ORACLE,
        output:
            "results/audit/instances.parquet",
        log:
            "logs/audit/instances.log",
        conda:
            CONDA_ENV
        params:
            section=AUD,
            instances=INSTANCES,
            seed=config["seed"],
            code=SRC_HASH,
        script:
            "../scripts/audit_instances.py"

    # the shard kind of baiuv.studies.audit.SPEC: its file patterns, its cells
    AUD_SHARD_OUTPUT = SHARD_KIND["audit"].output
    AUD_SHARD_LOG = SHARD_KIND["audit"].log
    AUD_SHARD_CELLS = SHARD_PLANS["audit"].cells
    if not SHARD_BATCHES:

        rule audit_shard:
            input:
                KERNELS,
            output:
                **AUD_SHARD_OUTPUT,
            log:
                AUD_SHARD_LOG,
            benchmark:
                "benchmarks/out/audit_{algorithm}_{n0}_{shard}.tsv"
            wildcard_constraints:
                algorithm="|".join(AUD["algorithms"]),
                n0=r"\d+",
                shard=r"\d+",
            conda:
                CONDA_ENV
            resources:
                runtime=240,
                mem_mb=1000,
            params:
                kind="audit",
                p=shard_params("audit"),
            script:
                "../scripts/shard.py"

    rule audit_aggregate:
        input:
            instances="results/audit/instances.parquet",
            runs=shard_files(AUD_SHARD_OUTPUT["runs"], AUD_SHARD_CELLS),
            timings=shard_files(AUD_SHARD_OUTPUT["timings"], AUD_SHARD_CELLS),
        output:
            runs="results/audit/runs.parquet",
            cells="results/audit/cells.parquet",
            summary="results/audit/summary.parquet",
            timings="results/timings/audit/runs.parquet",
        log:
            "logs/audit/aggregate.log",
        conda:
            CONDA_ENV
        resources:
            mem_mb=4000,
        params:
            experiment="audit",
            delta=float(AUD["delta"]),
            level=AUD["level"],
            code=SRC_HASH,
            # what each shard must have recorded, in the order of input.runs
            expect=[
                {
                    "algorithm": c["algorithm"],
                    "n0": int(c["n0"]),
                    "section": AUD,
                    "seed": config["seed"],
                    "n_shards": AUD_SHARDS,
                    "shard": c["shard"],
                    "code": SRC_HASH,
                }
                for c in AUD_SHARD_CELLS
            ],
        script:
            "../scripts/aggregate.py"

    rule audit_tables:
        input:
            cells="results/audit/cells.parquet",
            summary="results/audit/summary.parquet",
        output:
            flagged="results/tables/audit_flagged.md",
            summary="results/tables/audit_summary.md",
        log:
            "logs/audit/tables.log",
        conda:
            CONDA_ENV
        params:
            experiment="audit",
            delta=float(AUD["delta"]),
            level=AUD["level"],
            threshold=AUD["threshold"],
        script:
            "../scripts/table.py"

    rule audit_figure:
        input:
            summary="results/audit/summary.parquet",
        output:
            pdf="results/figures/audit.pdf",
            png=report(
                "results/figures/audit.png",
                caption="../report/audit.rst",
                category=report_category("audit"),
                labels=report_labels("audit"),
            ),
        log:
            "logs/audit/figure.log",
        conda:
            CONDA_ENV
        params:
            experiment="audit",
            code=FIGURE_HASH,
            delta=float(AUD["delta"]),
            algorithms=list(AUD["algorithms"]),
        script:
            "../scripts/figure.py"

    localrules:
        audit_instances,
        audit_aggregate,
        audit_tables,
        audit_figure,
