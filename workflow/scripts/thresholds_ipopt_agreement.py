"""Adapter: BoB/EV-BoB on the figure grids, exact solver vs Pyomo + Ipopt -> Parquet; the
solve times go to a timing file (results stay identical between runs, decision D131)."""

import pandas as pd

from baiuv.experiments.thresholds import agreement_summary, ipopt_agreement
from baiuv.pipeline.logs import end_job, setup_logging
from baiuv.storage.grids import grid
from baiuv.storage.io import write_table
from baiuv.thresholds import ThresholdParams
from baiuv.thresholds.bob import ipopt_backend

log = setup_logging(snakemake.log[0])
thr = dict(snakemake.params.thr)
backend = ipopt_backend()
log.info("Ipopt backend: %s", backend)
common = dict(
    mu=thr["mu"],
    sigma2=thr["sigma2"],
    params=ThresholdParams.from_config(thr),
    streams=max(1, min(int(thr.get("ipopt_streams", 1)), int(thr["streams"]))),
    seed=int(snakemake.params.seed),
    seed_offset=int(thr.get("seed_offset", 0)),
    backend=backend,
)
df = pd.concat(
    [
        ipopt_agreement(
            "delta",
            t_fixed=int(thr["t_fixed"]),
            log_inv_delta=grid(thr["log_inv_delta_grid"]),
            **common,
        ),
        ipopt_agreement(
            "time",
            delta_fixed=float(thr["delta_fixed"]),
            times=grid(thr["t_grid"], integer=True),
            **common,
        ),
    ],
    ignore_index=True,
)
log.info("agreement:\n%s", agreement_summary(df).to_string())
meta = {**thr, "seed": snakemake.params.seed}
timing = ["exact_s", "ipopt_s"]
keys = ["axis", "family", "x", "t", "stream"]
write_table(df[keys + timing], snakemake.output.timings, meta)
write_table(df.drop(columns=timing), snakemake.output.agreement, meta)
end_job()
