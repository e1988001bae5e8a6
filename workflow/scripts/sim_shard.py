"""Adapter: one shard of runs of one algorithm on one experiment -> Parquet."""

from baiuv.pipeline.logs import Progress, setup_logging
from baiuv.pipeline.shards import write_shard
from baiuv.simulation import RunSettings, experiment_from_config, run_shard

log = setup_logging(snakemake.log[0])
p = snakemake.params
exp = experiment_from_config(p.experiment, p.spec, p.instances)
settings = RunSettings(**p.settings)
df = run_shard(
    exp,
    p.algorithm,
    seed=p.seed,
    settings=settings,
    n_shards=p.n_shards,
    shard=p.shard,
    progress=Progress(log, f"{p.experiment}/{p.algorithm} shard {p.shard}"),
)
write_shard(
    df,
    snakemake.output[0],
    {
        "experiment": p.experiment,
        "spec": p.spec,
        "algorithm": p.algorithm,
        "seed": p.seed,
        "settings": settings.to_dict(),
        "n_shards": p.n_shards,
        "shard": p.shard,
        "code": p.code,
    },
    log,
    f"{p.experiment}/{p.algorithm} shard {p.shard}/{p.n_shards}",
    snakemake.output.timings,
)
