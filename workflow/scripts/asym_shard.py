"""Adapter: one shard of one asymptotic cell (instance, algorithm, threshold, delta) -> Parquet."""

from baiuv.experiments.asymptotic import run_asymptotic_cell
from baiuv.model.instance import GaussianInstance
from baiuv.pipeline.logs import Progress, setup_logging
from baiuv.pipeline.shards import write_shard

log = setup_logging(snakemake.log[0])
p = snakemake.params
label = f"{p.instance['name']}/{p.algorithm}/{p.threshold}"
inst = GaussianInstance(p.instance["mu"], p.instance["sigma2"], p.instance["name"])
df = run_asymptotic_cell(
    inst,
    p.algorithm,
    p.threshold,
    p.delta,
    runs=p.runs,
    seed=p.seed,
    n0=p.n0,
    beta=p.beta,
    max_samples=p.max_samples,
    n_shards=p.n_shards,
    shard=p.shard,
    progress=Progress(log, f"{label}/{p.delta:g}"),
)
write_shard(
    df,
    snakemake.output[0],
    {
        k: getattr(p, k)
        for k in (
            "instance",
            "algorithm",
            "threshold",
            "delta",
            "runs",
            "n0",
            "beta",
            "max_samples",
            "seed",
            "n_shards",
            "shard",
            "code",
        )
    },
    log,
    f"{label} delta={p.delta:g} shard {p.shard}/{p.n_shards}",
    snakemake.output.timings,
)
