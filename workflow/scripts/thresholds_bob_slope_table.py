"""Adapter: BoB slope study -> Markdown table."""

from baiuv.io import read_table, write_text
from baiuv.logs import setup_logging
from baiuv.thresholds.bob_slope import bob_slope_markdown

setup_logging(snakemake.log[0])
text = bob_slope_markdown(
    read_table(snakemake.input.summary)[0], read_table(snakemake.input.curves)[0]
)
write_text(text, snakemake.output[0])
