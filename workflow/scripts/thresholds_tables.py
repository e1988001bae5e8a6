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
    # the solve times, from the timing file (same rows, same order)
    timings, _ = read_table(snakemake.input.timings)
    keys = ["axis", "family", "x", "t", "stream"]
    if not timings[keys].equals(df[keys]):
        raise ValueError(f"{snakemake.input.timings} does not match {snakemake.input[0]}")
    timed = df.assign(exact_s=timings["exact_s"], ipopt_s=timings["ipopt_s"])
    write_text(agreement_timings_markdown(timed, machine_description()), snakemake.output.timings)
else:
    text = costs_markdown(df, params)
write_text(for_readers(text), snakemake.output.table)
end_job()
