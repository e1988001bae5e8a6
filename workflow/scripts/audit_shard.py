"""Adapter: one shard of the audit runs of one (algorithm, n0) -> Parquet."""

from baiuv.pipeline.cells import run_audit_shard
from baiuv.pipeline.logs import end_job

out = snakemake.output
run_audit_shard(snakemake.params.p, {"runs": out.runs, "timings": out.timings}, snakemake.log[0])
end_job()
