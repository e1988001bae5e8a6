"""Adapter: one shard of the EV remedies of one (algorithm, remedy) -> Parquet."""

from baiuv.experiments.ev_remedies import Remedy, ev_instances, run_remedy_shard
from baiuv.pipeline.logs import end_job, setup_logging
from baiuv.storage.io import write_table

log = setup_logging(snakemake.log[0])
p = snakemake.params
sec = p.section
r = p.remedy
remedy = Remedy(str(r["threshold"]), int(r["n0"]), float(r.get("runs_scale", 1.0)))
df = run_remedy_shard(
    ev_instances(sec, p.instances, p.seed),
    snakemake.wildcards.algorithm,
    remedy,
    seed=p.seed,
    delta=float(sec["delta"]),
    max_samples=int(sec["max_samples"]),
    n_shards=int(sec["shards"]),
    shard=int(snakemake.wildcards.shard),
)
meta = {"remedy": r, "algorithm": snakemake.wildcards.algorithm, "seed": p.seed}
meta.update(shard=int(snakemake.wildcards.shard), code=p.code)
write_table(df, snakemake.output[0], meta)
log.info(
    "%s %s: %d runs, %d errors",
    df["algorithm"].iloc[0] if len(df) else "",
    remedy.name,
    len(df),
    int((~df["correct"]).sum()) if len(df) else 0,
)
end_job()
