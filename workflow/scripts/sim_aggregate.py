"""Adapter: shards of one experiment -> one Parquet file (canonical order), and their
timing files -> one timing file."""

from baiuv.experiments.stopping_times import aggregate_shards
from baiuv.pipeline.logs import end_job, setup_logging
from baiuv.storage.io import write_table
from baiuv.storage.shards import aggregate_timings, read_shards

log = setup_logging(snakemake.log[0])
frames, params = read_shards(snakemake.input.runs, snakemake.params.expect)
out = aggregate_shards(frames)
write_table(
    out,
    snakemake.output.runs,
    {"experiment": snakemake.wildcards.experiment, "shards": params, "code": snakemake.params.code},
)
aggregate_timings(snakemake.input.timings, snakemake.output.timings, {"shards": params})
log.info(
    "%s: %d runs of %d algorithms",
    snakemake.wildcards.experiment,
    len(out),
    out["algorithm"].nunique(),
)
end_job()
