# Local runs: many shards per job (decision D226). With shard_batches: auto, each
# family of shards is one batch job that takes every core and runs its shards on forked
# worker processes, one shard at a time per worker, as they become free; with a number N,
# the cells are dealt round robin (algorithm by algorithm, so costly algorithms are spread)
# into N jobs of one core, which run their shards one after the other. The count comes
# from the config alone, not from --cores. Either way the shards run through the functions
# of baiuv.pipeline.cells, the same the one-job-per-shard rules call: the shard files are
# the same. On a cluster (SHARD_BATCHES = 0) these rules do not exist and the shard rules
# of the families run instead. The cells reach the job as a CellBatch, which Snakemake's
# records show by its digest.
from baiuv.pipeline.batches import CellBatch, batch_count, split_batches


def shard_cell(kind, wildcards):
    """One shard as the batch runner takes it: its kind, parameters, files and log."""
    return {
        "kind": kind,
        "params": SHARD_PLANS[kind].params(SRC_HASH, **wildcards),
        "output": {
            key: path.format(**wildcards)
            for key, path in SHARD_KIND[kind].output.items()
        },
        "log": SHARD_KIND[kind].log.format(**wildcards),
    }


def shard_families():
    """The shards of every shard kind of the experiments the configuration enables."""
    return {
        kind: [shard_cell(kind, c) for c in plan.cells]
        for kind, plan in SHARD_PLANS.items()
    }


# auto: one job per family on every core of the run; a number: jobs of one core each
BATCH_THREADS = max(1, workflow.cores) if SHARD_BATCHES == "auto" else 1

if SHARD_BATCHES:
    for family, cells in shard_families().items():
        batches = split_batches(
            cells,
            batch_count(len(cells), SHARD_BATCHES),
            key=lambda c: c["params"]["algorithm"],
        )
        for b, batch in enumerate(batches):

            rule:
                name:
                    f"{family}_batch_{b}"
                input:
                    KERNELS,
                output:
                    [path for cell in batch for path in cell["output"].values()],
                log:
                    f"logs/batches/{family}_{b}.log",
                benchmark:
                    f"benchmarks/out/{family}_batch_{b}.tsv"
                # the batches first: a job on every core cannot start while a job of one
                # core runs, so a batch left for last waits for the slowest of them
                priority: 50
                conda:
                    CONDA_ENV
                threads: BATCH_THREADS
                resources:
                    mem_mb=1000 * BATCH_THREADS,
                params:
                    cells=CellBatch(batch),
                script:
                    "../scripts/run_cells.py"
