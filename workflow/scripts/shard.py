"""Adapter: one shard of an experiment's shard kind (``params.kind``) -> Parquet."""

from baiuv.pipeline.cells import run_shard
from baiuv.pipeline.logs import end_job

out = snakemake.output
run_shard(
    snakemake.params.kind,
    snakemake.params.p,
    {"runs": out.runs, "timings": out.timings},
    snakemake.log[0],
)
end_job()
