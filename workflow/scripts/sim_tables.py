"""Adapter: aggregated runs -> error-rate and stopping-time Markdown tables."""

import pandas as pd

from baiuv.experiments.stopping_times import error_rates_markdown, stopping_times_markdown
from baiuv.pipeline.logs import end_job, setup_logging
from baiuv.report.pages import for_readers
from baiuv.storage.io import read_table, write_text

log = setup_logging(snakemake.log[0])
df = pd.concat([read_table(p)[0] for p in snakemake.input], ignore_index=True)
errors = error_rates_markdown(df, snakemake.params.delta)
times = stopping_times_markdown(df, snakemake.params.delta)
write_text(for_readers(errors), snakemake.output.errors)
write_text(for_readers(times), snakemake.output.times)
log.info("wrote %s and %s (%d runs)", snakemake.output.errors, snakemake.output.times, len(df))
end_job()
