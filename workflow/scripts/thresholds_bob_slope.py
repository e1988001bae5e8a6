"""Adapter: BoB/KL/Box over a wide ln(1/delta) range -> curves and summary Parquet."""

from baiuv.experiments.bob_slope import bob_slope_curves, bob_slope_summary
from baiuv.pipeline.logs import end_job, setup_logging
from baiuv.storage.grids import grid
from baiuv.storage.io import write_table
from baiuv.thresholds import ThresholdParams

log = setup_logging(snakemake.log[0])
thr = dict(snakemake.params.thr)
cfg = dict(thr["bob_slope"])
curves = bob_slope_curves(
    grid(cfg["log_inv_delta_grid"]),
    cfg["times"],
    mu=thr["mu"],
    sigma2=thr["sigma2"],
    params=ThresholdParams.from_config(thr),
    streams=int(cfg.get("streams", 1)),
    seed=int(snakemake.params.seed),
    seed_offset=int(thr.get("seed_offset", 0)),
)
summary = bob_slope_summary(
    curves, tol=float(cfg.get("tol", 0.1)), tail_points=int(cfg.get("tail_points", 5))
)
log.info("BoB slope study:\n%s", summary.to_string())
params = {**thr, "seed": snakemake.params.seed}
write_table(curves, snakemake.output.curves, params=params)
write_table(summary, snakemake.output.summary, params=params)
end_job()
