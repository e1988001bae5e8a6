"""Adapter: one shard of one asymptotic cell (instance, algorithm, threshold, delta) -> Parquet."""

from baiuv.pipeline.cells import run_asym_shard

out = snakemake.output
run_asym_shard(snakemake.params.p, {"runs": out.runs, "timings": out.timings}, snakemake.log[0])
