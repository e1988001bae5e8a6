"""Adapter: shards of the delta-correct experiment -> one Parquet file, and their timing
files -> one timing file."""

from baiuv.pipeline.logs import end_job, setup_logging
from baiuv.storage.io import write_table
from baiuv.storage.shards import aggregate_timings, concat_runs, read_shards

log = setup_logging(snakemake.log[0])
frames, metas = read_shards(snakemake.input.runs, snakemake.params.expect)
out = concat_runs(frames, ["instance", "algorithm", "threshold", "run"])
write_table(out, snakemake.output.runs, {"shards": metas, "code": snakemake.params.code})
aggregate_timings(snakemake.input.timings, snakemake.output.timings, {"shards": metas})
log.info(
    "%d runs in %d cells", len(out), out.groupby(["instance", "algorithm", "threshold"]).ngroups
)
end_job()
