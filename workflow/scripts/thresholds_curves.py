"""Adapter: threshold curves along ln(1/delta) or t -> Parquet."""

from baiuv.experiments.thresholds import threshold_curves
from baiuv.pipeline.logs import end_job, setup_logging
from baiuv.storage.grids import grid
from baiuv.storage.io import write_table
from baiuv.thresholds import ThresholdParams, bob_fallback_count

log = setup_logging(snakemake.log[0])
thr = dict(snakemake.params.thr)
axis = snakemake.wildcards.axis
df = threshold_curves(
    axis,
    mu=thr["mu"],
    sigma2=thr["sigma2"],
    params=ThresholdParams.from_config(thr),
    t_fixed=int(thr["t_fixed"]),
    delta_fixed=float(thr["delta_fixed"]),
    log_inv_delta=grid(thr["log_inv_delta_grid"]),
    times=grid(thr["t_grid"], integer=True),
    streams=int(thr["streams"]),
    seed=int(snakemake.params.seed),
    seed_offset=int(thr["seed_offset"]),
    backend=thr["bob_backend"],
)
log.info("%d rows, BoB fallbacks: %d", len(df), bob_fallback_count())
write_table(df, snakemake.output[0], params={**thr, "axis": axis, "seed": snakemake.params.seed})
end_job()
