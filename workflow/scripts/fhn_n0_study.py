"""Adapter: FHN1/FHN2 runs at each n0 of simulation.fhn_n0_grid -> Parquet."""

from baiuv.experiments.fhn_n0 import fhn_n0_runs
from baiuv.pipeline.logs import end_job, setup_logging
from baiuv.storage.io import write_table

log = setup_logging(snakemake.log[0])
p = snakemake.params
runs = fhn_n0_runs(
    dict(p.experiments),
    dict(p.instances),
    list(p.grid),
    seed=int(p.seed),
    settings=dict(p.settings),
)
log.info("%d FHN runs over n0 = %s", len(runs), list(p.grid))
meta = {"grid": list(p.grid), "seed": p.seed, "settings": dict(p.settings), "code": p.code}
write_table(runs, snakemake.output[0], params={**meta, "experiments": dict(p.experiments)})
end_job()
