"""Adapter: initial times / costs Parquet -> Markdown table."""

from baiuv.experiments.thresholds import (
    agreement_markdown,
    agreement_timings_markdown,
    costs_markdown,
    initial_times_markdown,
)
from baiuv.pipeline.logs import end_job, setup_logging
from baiuv.report.pages import for_readers
from baiuv.storage.io import read_table, write_text

setup_logging(snakemake.log[0])
df, params = read_table(snakemake.input[0])
if "statement_count" in df.columns:
    text = initial_times_markdown(df, params)
elif "ipopt" in df.columns:
    from baiuv.storage.provenance import machine_description

    text = agreement_markdown(df, params)
    write_text(agreement_timings_markdown(df, machine_description()), snakemake.output.timings)
else:
    text = costs_markdown(df, params)
write_text(for_readers(text), snakemake.output.table)
end_job()
