"""Adapter: characteristic times of the named instances -> Parquet."""

import pandas as pd

from baiuv.experiments.characteristic_times import instance_summary
from baiuv.pipeline.logs import end_job, setup_logging
from baiuv.storage.io import write_table

log = setup_logging(snakemake.log[0])
beta = float(snakemake.params.beta)
rows = [instance_summary(i["name"], i["mu"], i["sigma2"], beta) for i in snakemake.params.instances]
df = pd.DataFrame(rows)
write_table(
    df,
    snakemake.output[0],
    {"instances": list(snakemake.params.instances), "beta": beta, "code": snakemake.params.code},
)
log.info("characteristic times of %d instances", len(df))
end_job()
