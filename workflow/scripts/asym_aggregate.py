"""Adapter: asymptotic shards -> runs, per-cell summary and fitted slopes (Parquet)."""

import pandas as pd

from baiuv.experiments.asymptotic import slope_table, summarize_asymptotic
from baiuv.instance import GaussianInstance
from baiuv.io import read_table, write_table
from baiuv.logs import setup_logging

log = setup_logging(snakemake.log[0])
p = snakemake.params
frames = [read_table(path)[0] for path in snakemake.input]
runs = pd.concat([f for f in frames if len(f)], ignore_index=True)
dup = runs.duplicated(["instance", "algorithm", "threshold", "delta", "run"])
if dup.any():
    raise ValueError(f"{int(dup.sum())} duplicated runs in the asymptotic shards")
runs = runs.sort_values(["instance", "algorithm", "threshold", "delta", "run"], kind="stable")
runs = runs.reset_index(drop=True)
insts = {k: GaussianInstance(v["mu"], v["sigma2"], k) for k, v in p.instances.items()}
summary = summarize_asymptotic(runs, insts, beta=p.beta, level=p.level).reset_index(drop=True)
slopes = slope_table(summary, fit_points=p.fit_points, level=p.level)
meta = {"beta": p.beta, "level": p.level, "fit_points": p.fit_points, "code": p.code}
write_table(runs, snakemake.output.runs, meta)
write_table(summary, snakemake.output.summary, meta)
write_table(slopes, snakemake.output.slopes, meta)
log.info("%d runs, %d cells, %d slopes", len(runs), len(summary), len(slopes))
