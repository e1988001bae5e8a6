"""Adapter: one characteristic-time ratio sweep -> Parquet."""

from baiuv.experiments.characteristic_times import ratio_sweep
from baiuv.pipeline.logs import end_job, setup_logging
from baiuv.storage.grids import grid
from baiuv.storage.io import write_table

log = setup_logging(snakemake.log[0])
axis = snakemake.wildcards.axis
sweep = dict(snakemake.params.sweep)
fixed = sweep["r"] if axis == "gap" else sweep["gap"]
values = grid(sweep["grid"])
log.info("sweep %s: %d points, fixed %s", axis, values.size, fixed)
df = ratio_sweep(axis, values, fixed)
write_table(df, snakemake.output[0], {"axis": axis, **sweep, "code": snakemake.params.code})
log.info("ratio range [%.6g, %.6g]", df["ratio"].min(), df["ratio"].max())
end_job()
