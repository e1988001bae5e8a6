"""Adapter: aggregated runs -> figures/stopping_times.{pdf,png}."""

import pandas as pd

from baiuv.pipeline.logs import end_job, setup_logging
from baiuv.plotting.simulation import stopping_time_figure
from baiuv.storage.io import read_table, save_figure

log = setup_logging(snakemake.log[0])
df = pd.concat([read_table(p)[0] for p in snakemake.input], ignore_index=True)
fig = stopping_time_figure(df, snakemake.params.experiments, snakemake.params.algorithms)
save_figure(fig, [snakemake.output.pdf, snakemake.output.png])
log.info("figure with %d runs", len(df))
end_job()
