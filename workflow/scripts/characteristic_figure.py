"""Adapter: ratio sweeps -> figure (PDF + PNG)."""

from baiuv.pipeline.logs import end_job, setup_logging
from baiuv.plotting.characteristic import ratio_figure
from baiuv.storage.io import read_table, save_figure

setup_logging(snakemake.log[0])
gap_df, gap_params = read_table(snakemake.input.gap)
var_df, var_params = read_table(snakemake.input.variance)
fig = ratio_figure(gap_df, var_df, r_fixed=gap_params["r"], gap_fixed=var_params["gap"])
save_figure(fig, [snakemake.output.pdf, snakemake.output.png])
end_job()
