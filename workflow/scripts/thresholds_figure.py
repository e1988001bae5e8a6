"""Adapter: threshold curves -> figure thresholds_{glr,evglr,all} (PDF + PNG)."""

from baiuv.pipeline.io import read_table, save_figure
from baiuv.pipeline.logs import setup_logging
from baiuv.plotting.thresholds import threshold_figure

setup_logging(snakemake.log[0])
ddf, dparams = read_table(snakemake.input.delta)
tdf, _ = read_table(snakemake.input.time)
families = {
    "glr": ["student", "box", "kl", "bob", "heuristic"],
    "evglr": ["ev-student", "ev-box", "ev-bob", "heuristic"],
    "all": ["student", "box", "kl", "bob", "ev-student", "ev-box", "ev-bob", "heuristic"],
}[snakemake.wildcards.which]
fig = threshold_figure(
    ddf, tdf, families, t_fixed=dparams["t_fixed"], delta_fixed=dparams["delta_fixed"]
)
save_figure(fig, [snakemake.output.pdf, snakemake.output.png])
