"""Adapter: shards of the delta-correct experiment -> one Parquet file."""

import pandas as pd

from baiuv.io import read_table, write_table
from baiuv.logs import setup_logging

log = setup_logging(snakemake.log[0])
frames, metas = [], []
for path in snakemake.input:
    df, meta = read_table(path)
    frames.append(df)
    metas.append(meta)
out = pd.concat([f for f in frames if len(f)], ignore_index=True)
dup = out.duplicated(["instance", "algorithm", "threshold", "run"])
if dup.any():
    raise ValueError(f"{int(dup.sum())} duplicated runs in the shards")
write_table(out, snakemake.output[0], {"shards": metas, "code": snakemake.params.code})
log.info(
    "%d runs in %d cells", len(out), out.groupby(["instance", "algorithm", "threshold"]).ngroups
)
