"""Adapter: Appendix J.1's hyper-parameter measures of the thresholds -> Parquet."""

from baiuv.experiments.threshold_params import parameter_effects
from baiuv.pipeline.logs import end_job, setup_logging
from baiuv.storage.io import write_table

log = setup_logging(snakemake.log[0])
backend = snakemake.params.backend
df = parameter_effects(backend=backend)
log.info("threshold hyper-parameter measures:\n%s", df.to_string())
write_table(df, snakemake.output[0], params={"bob_backend": backend})
end_job()
