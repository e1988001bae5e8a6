"""Adapter: audit shards -> runs, cells (with instance features) and summary (Parquet)."""

import pandas as pd

from baiuv.experiments.audit import audit_cells, audit_summary
from baiuv.io import read_table, write_table
from baiuv.logs import setup_logging

log = setup_logging(snakemake.log[0])
p = snakemake.params
feats, _ = read_table(snakemake.input.instances)
frames = [read_table(path)[0] for path in snakemake.input.shards]
runs = pd.concat([f for f in frames if len(f)], ignore_index=True)
dup = runs.duplicated(["instance", "algorithm", "n0", "run"])
if dup.any():
    raise ValueError(f"{int(dup.sum())} duplicated runs in the audit shards")
runs = runs.sort_values(["algorithm", "n0", "instance", "run"], kind="stable").reset_index(
    drop=True
)
cells = audit_cells(
    runs, feats.drop(columns=["mu", "sigma2", "family"]), delta=p.delta, level=p.level
)
summary = audit_summary(cells, delta=p.delta, level=p.level)
meta = {"delta": p.delta, "level": p.level, "code": p.code}
write_table(runs, snakemake.output.runs, meta)
write_table(cells, snakemake.output.cells, meta)
write_table(summary, snakemake.output.summary, meta)
log.info("%d runs, %d cells, %d flagged", len(runs), len(cells), int(cells["flagged"].sum()))
