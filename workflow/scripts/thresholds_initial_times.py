"""Adapter: initial times per family and delta -> Parquet."""

from baiuv.experiments.thresholds import initial_times
from baiuv.pipeline.logs import end_job, setup_logging
from baiuv.storage.io import write_table
from baiuv.thresholds import ThresholdParams

setup_logging(snakemake.log[0])
thr = dict(snakemake.params.thr)
deltas = thr["initial_time_deltas"]
df = initial_times(deltas, params=ThresholdParams.from_config(thr))
write_table(df, snakemake.output[0], params=thr)
end_job()
