"""Adapter: aggregated runs -> error-rate and stopping-time Markdown tables."""

import pandas as pd

from baiuv.experiments.stopping_times import error_rates_markdown, stopping_times_markdown
from baiuv.pipeline.logs import end_job, setup_logging
from baiuv.report.pages import for_readers
from baiuv.simulation.engine import fhn_n0
from baiuv.storage.io import read_table, write_text

log = setup_logging(snakemake.log[0])
df = pd.concat([read_table(p)[0] for p in snakemake.input], ignore_index=True)
errors = error_rates_markdown(df, snakemake.params.delta)
p = snakemake.params
fhn = p.fhn_n0 if p.fhn_n0 is not None else fhn_n0(log_inv_delta=p.log_inv_delta)
times = stopping_times_markdown(df, p.delta, n0=p.n0, fhn_n0=fhn)
write_text(for_readers(errors), snakemake.output.errors)
write_text(for_readers(times), snakemake.output.times)
log.info("wrote %s and %s (%d runs)", snakemake.output.errors, snakemake.output.times, len(df))
end_job()
