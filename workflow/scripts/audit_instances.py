"""Adapter: audit instances and their features -> results/audit/instances.parquet."""

import pandas as pd

from baiuv.pipeline.logs import end_job, setup_logging
from baiuv.storage.io import write_table
from baiuv.studies.audit import audit_instances, instance_features

log = setup_logging(snakemake.log[0])
p = snakemake.params
insts = audit_instances(p.section, p.instances, p.seed)
df = pd.DataFrame(
    [
        {
            "instance": a.instance_id,
            "family": a.family,
            "mu": a.instance.mu.tolist(),
            "sigma2": a.instance.sigma2.tolist(),
            **instance_features(a.instance),
        }
        for a in insts
    ]
)
write_table(df, snakemake.output[0], {"seed": p.seed, "section": p.section, "code": p.code})
log.info("%d audit instances", len(df))
end_job()
