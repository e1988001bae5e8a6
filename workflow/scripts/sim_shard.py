"""Adapter: one shard of runs of one algorithm on one experiment -> Parquet."""

from baiuv.pipeline.cells import run_sim_shard
from baiuv.pipeline.logs import end_job

out = snakemake.output
run_sim_shard(snakemake.params.p, {"runs": out.runs, "timings": out.timings}, snakemake.log[0])
end_job()
