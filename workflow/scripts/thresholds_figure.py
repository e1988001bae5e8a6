"""Adapter: threshold curves -> figure thresholds_{glr,evglr,all} (PDF + PNG)."""

from baiuv.pipeline.logs import end_job, setup_logging
from baiuv.plotting.thresholds import figure_families, threshold_figure
from baiuv.storage.io import read_table, save_figure

setup_logging(snakemake.log[0])
ddf, dparams = read_table(snakemake.input.delta)
tdf, _ = read_table(snakemake.input.time)
fig = threshold_figure(
    ddf,
    tdf,
    figure_families(snakemake.wildcards.which),
    t_fixed=dparams["t_fixed"],
    delta_fixed=dparams["delta_fixed"],
)
save_figure(fig, [snakemake.output.pdf, snakemake.output.png])
end_job()
