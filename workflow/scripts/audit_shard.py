"""Adapter: one shard of the audit runs of one (algorithm, n0) -> Parquet."""

from baiuv.experiments.audit import audit_instances, run_audit_shard
from baiuv.pipeline.logs import Progress, setup_logging
from baiuv.pipeline.shards import write_shard

log = setup_logging(snakemake.log[0])
p = snakemake.params
sec = p.section
insts = audit_instances(sec, p.instances, p.seed)
df = run_audit_shard(
    insts,
    p.algorithm,
    p.n0,
    runs=int(sec["runs"]),
    seed=p.seed,
    delta=float(sec["delta"]),
    threshold=sec["threshold"],
    settings=p.settings,
    n_shards=p.n_shards,
    shard=p.shard,
    progress=Progress(log, f"audit {p.algorithm} n0={p.n0} shard {p.shard}"),
)
write_shard(
    df,
    snakemake.output[0],
    {
        "section": sec,
        "algorithm": p.algorithm,
        "n0": p.n0,
        "settings": p.settings,
        "seed": p.seed,
        "n_shards": p.n_shards,
        "shard": p.shard,
        "code": p.code,
    },
    log,
    f"{p.algorithm} n0={p.n0} shard {p.shard}/{p.n_shards}",
    snakemake.output.timings,
)
