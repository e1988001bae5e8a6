"""Adapter: one shard of one asymptotic cell (instance, algorithm, threshold), every level
of the grid on one trajectory per run -> Parquet."""

from baiuv.pipeline.cells import run_asym_shard
from baiuv.pipeline.logs import end_job

out = snakemake.output
run_asym_shard(snakemake.params.p, {"runs": out.runs, "timings": out.timings}, snakemake.log[0])
end_job()
