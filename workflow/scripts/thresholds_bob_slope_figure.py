"""Adapter: BoB slope study -> figure."""

from baiuv.pipeline.logs import end_job, setup_logging
from baiuv.plotting.thresholds import bob_slope_figure
from baiuv.storage.io import read_table, save_figure

setup_logging(snakemake.log[0])
fig = bob_slope_figure(
    read_table(snakemake.input.curves)[0], read_table(snakemake.input.summary)[0]
)
save_figure(fig, [snakemake.output.pdf, snakemake.output.png])
end_job()
