"""Adapter: initial times / costs Parquet -> Markdown table."""

from baiuv.experiments.thresholds import costs_markdown, initial_times_markdown
from baiuv.pipeline.io import read_table, write_text
from baiuv.pipeline.logs import setup_logging

setup_logging(snakemake.log[0])
df, params = read_table(snakemake.input[0])
if "statement_count" in df.columns:
    text = initial_times_markdown(df, params)
else:
    text = costs_markdown(df, params)
write_text(text, snakemake.output[0])
