"""Adapter: one shard of one (instance, algorithm, threshold variant) cell -> Parquet."""

from baiuv.experiments.delta_correct import run_delta_correct_cell
from baiuv.model.instance import GaussianInstance
from baiuv.pipeline.logs import setup_logging
from baiuv.pipeline.shards import write_shard
from baiuv.simulation import shard_runs

log = setup_logging(snakemake.log[0])
p = snakemake.params
sec = p.section
inst = GaussianInstance(p.instance["mu"], p.instance["sigma2"], p.instance["name"])
runs = shard_runs(p.runs, p.n_shards, p.shard)
df = run_delta_correct_cell(
    inst,
    p.algorithm,
    p.threshold,
    runs,
    seed=p.seed,
    delta=sec["delta"],
    n0=sec["n0"],
    beta=sec["beta"],
    max_samples=sec["max_samples"],
    lazy_ratio=sec["lazy_ratio"],
)
write_shard(
    df,
    snakemake.output[0],
    {
        "instance": inst.to_dict(),
        "algorithm": p.algorithm,
        "threshold": p.threshold,
        "runs": [runs.start, runs.stop],
        "section": sec,
        "seed": p.seed,
        "code": p.code,
    },
    log,
    f"{inst.name}/{p.algorithm}/{p.threshold} runs {runs}",
    snakemake.output.timings,
)
