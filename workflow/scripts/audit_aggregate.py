"""Adapter: audit shards -> runs, cells (with instance features) and summary (Parquet); their
timing files -> one timing file."""

from baiuv.pipeline.logs import end_job, setup_logging
from baiuv.storage.io import read_table, write_table
from baiuv.storage.shards import aggregate_timings, concat_runs, read_shards
from baiuv.studies.audit import audit_cells, audit_summary

log = setup_logging(snakemake.log[0])
p = snakemake.params
feats, _ = read_table(snakemake.input.instances)
runs = concat_runs(
    read_shards(snakemake.input.shards, p.expect)[0],
    ["instance", "algorithm", "n0", "run"],
    sort_by=["algorithm", "n0", "instance", "run"],
    what="audit shards",
)
cells = audit_cells(
    runs, feats.drop(columns=["mu", "sigma2", "family"]), delta=p.delta, level=p.level
)
summary = audit_summary(cells, delta=p.delta, level=p.level)
meta = {"delta": p.delta, "level": p.level, "code": p.code}
write_table(runs, snakemake.output.runs, meta)
write_table(cells, snakemake.output.cells, meta)
write_table(summary, snakemake.output.summary, meta)
aggregate_timings(snakemake.input.timings, snakemake.output.timings, meta)
log.info("%d runs, %d cells, %d flagged", len(runs), len(cells), int(cells["flagged"].sum()))
end_job()
