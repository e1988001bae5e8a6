"""Adapter: one shard of one (instance, algorithm, threshold variant) cell -> Parquet."""

from baiuv.pipeline.cells import run_dc_shard
from baiuv.pipeline.logs import end_job

out = snakemake.output
run_dc_shard(snakemake.params.p, {"runs": out.runs, "timings": out.timings}, snakemake.log[0])
end_job()
