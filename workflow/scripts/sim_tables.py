"""Adapter: aggregated runs -> error-rate and stopping-time Markdown tables."""

import pandas as pd

from baiuv.io import read_table, write_text
from baiuv.logs import setup_logging
from baiuv.simulation import error_rates, stopping_time_summary
from baiuv.tables import markdown_table

log = setup_logging(snakemake.log[0])
df = pd.concat([read_table(p)[0] for p in snakemake.input], ignore_index=True)
delta = snakemake.params.delta

er = error_rates(df)
er["error rate [95% Wilson]"] = [
    f"{r:.4f} [{lo:.4f}, {hi:.4f}]"
    for r, lo, hi in zip(er["error_rate"], er["wilson_low"], er["wilson_high"], strict=True)
]
er_md = markdown_table(
    er[["experiment", "algorithm", "runs", "errors", "error rate [95% Wilson]", "truncated"]]
)
write_text(
    f"# Empirical error rates (delta = {delta})\n\n"
    "Proportion of runs whose recommendation is not the best arm, with the 95% Wilson score "
    "interval.\n\n" + er_md,
    snakemake.output.errors,
)

st = stopping_time_summary(df)
st["mean ± s.e."] = [f"{m:.1f} ± {s:.1f}" for m, s in zip(st["mean"], st["se"], strict=True)]
st_md = markdown_table(
    st[
        [
            "experiment",
            "algorithm",
            "runs",
            "mean ± s.e.",
            "median",
            "lower_bound",
            "ratio_to_bound",
        ]
    ],
    floatfmt=".1f",
)
write_text(
    f"# Stopping times (delta = {delta})\n\n"
    "Mean ± standard error of the stopping time; `lower_bound` is "
    "T*(mu, sigma^2) log(1/delta) (mean over instances for random instances).\n\n" + st_md,
    snakemake.output.times,
)
log.info("wrote %s and %s (%d rows)", snakemake.output.errors, snakemake.output.times, len(st))
