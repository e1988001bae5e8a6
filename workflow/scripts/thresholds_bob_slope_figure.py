"""Adapter: BoB slope study -> figure."""

from baiuv.io import read_table
from baiuv.logs import setup_logging
from baiuv.plotting.thresholds import plot_bob_slope

setup_logging(snakemake.log[0])
plot_bob_slope(
    read_table(snakemake.input.curves)[0],
    read_table(snakemake.input.summary)[0],
    snakemake.output.pdf,
    snakemake.output.png,
)
