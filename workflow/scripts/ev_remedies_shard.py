"""Adapter: one shard of the EV remedies of one (algorithm, n0), every threshold of that n0
a stopping level of one trajectory -> runs and truncated runs' evidence (Parquet). The
baseline's trajectories on the main experiment's instances are that experiment's runs
(params.main, D400)."""

from baiuv.pipeline.logs import end_job, setup_logging
from baiuv.storage.io import write_table
from baiuv.studies.ev_remedy_runs import (
    EXPERIMENT,
    ev_instances,
    group_streams,
    remedies_from_config,
    run_remedy_shard,
)

log = setup_logging(snakemake.log[0])
p = snakemake.params
sec = p.section
remedies = remedies_from_config(p.remedies, baseline=False)
df, evidence = run_remedy_shard(
    ev_instances(sec, p.instances, p.seed),
    snakemake.wildcards.algorithm,
    remedies,
    seed=p.seed,
    delta=float(sec["delta"]),
    max_samples=int(sec["max_samples"]),
    n_shards=int(sec["shards"]),
    shard=int(snakemake.wildcards.shard),
    evidence=True,
    streams=group_streams(sec, p.main),
)
meta = {"remedies": p.remedies, "algorithm": snakemake.wildcards.algorithm, "seed": p.seed}
meta.update(shard=int(snakemake.wildcards.shard), main=dict(p.main), code=p.code)
write_table(df, snakemake.output.runs, meta)
write_table(evidence, snakemake.output.evidence, meta)
log.info(
    "%s n0=%s (%s): %d rows, %d errors, %d truncated, %d from the main experiment's streams",
    snakemake.wildcards.algorithm,
    snakemake.wildcards.n0,
    ", ".join(r.threshold for r in remedies),
    len(df),
    int((~df["correct"]).sum()) if len(df) else 0,
    len(evidence),
    int((df["stream"] != EXPERIMENT).sum()) if len(df) else 0,
)
end_job()
