"""Adapter: aggregated runs -> figures/stopping_times.{pdf,png}."""

import pandas as pd

from baiuv.pipeline.logs import end_job, setup_logging
from baiuv.plotting.simulation import stopping_time_figure
from baiuv.storage.io import read_table, save_figure

log = setup_logging(snakemake.log[0])
tables = [read_table(p) for p in snakemake.input]
df = pd.concat([t[0] for t in tables], ignore_index=True)
# the GLR rules' initial pulls per arm, one value over every shard (first check at n0 * K)
n0s = {s["settings"]["n0"] for _, params in tables for s in params["shards"]}
if len(n0s) != 1:
    raise ValueError(f"the runs of the figure must share one n0, got {sorted(n0s)}")
fig = stopping_time_figure(
    df, snakemake.params.experiments, snakemake.params.algorithms, n0=n0s.pop()
)
save_figure(fig, [snakemake.output.pdf, snakemake.output.png])
log.info("figure with %d runs", len(df))
end_job()
