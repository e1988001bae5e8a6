"""Adapter: cost of one threshold evaluation per family -> Parquet (timings, with the machine)."""

from baiuv.experiments.thresholds import threshold_costs
from baiuv.pipeline.logs import end_job, setup_logging
from baiuv.storage.io import write_table
from baiuv.storage.provenance import machine_description
from baiuv.thresholds import ThresholdParams

setup_logging(snakemake.log[0])
thr = dict(snakemake.params.thr)
df = threshold_costs(
    delta=float(thr["delta_fixed"]),
    n=int(thr["t_fixed"]) // 2,
    repeats=int(thr["cost_repeats"]),
    params=ThresholdParams.from_config(thr),
    seed=int(snakemake.params.seed),
    backend=thr["bob_backend"],
)
write_table(df, snakemake.output[0], params={**thr, "machine": machine_description()})
end_job()
