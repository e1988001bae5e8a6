"""Adapter: asymptotic shards -> runs, per-level summary, fitted slopes, verdicts and the
paired comparison of the levels (Parquet); their timing files -> one timing file."""

from baiuv.model.instance import GaussianInstance
from baiuv.pipeline.logs import end_job, setup_logging
from baiuv.storage.io import write_table
from baiuv.storage.shards import aggregate_timings, concat_runs, read_shards
from baiuv.studies.asymptotic import (
    paired_level_table,
    slope_table,
    summarize_asymptotic,
    verdict_table,
)

log = setup_logging(snakemake.log[0])
p = snakemake.params
keys = ["instance", "algorithm", "threshold", "log_inv_delta", "run"]
runs = concat_runs(
    read_shards(snakemake.input.runs, p.expect)[0], keys, sort_by=keys, what="asymptotic shards"
)
insts = {k: GaussianInstance(v["mu"], v["sigma2"], k) for k, v in p.instances.items()}
summary = summarize_asymptotic(runs, insts, beta=p.beta, level=p.level).reset_index(drop=True)
slopes = slope_table(summary, fit_points=p.fit_points, level=p.level, runs=runs)
verdicts = verdict_table(summary, tol=p.tolerance, level=p.level, runs=runs)
paired = paired_level_table(runs, tol=p.tolerance, level=p.level)
meta = {
    "beta": p.beta,
    "level": p.level,
    "fit_points": p.fit_points,
    "tolerance": p.tolerance,
    "code": p.code,
}
write_table(runs, snakemake.output.runs, meta)
write_table(summary, snakemake.output.summary, meta)
write_table(slopes, snakemake.output.slopes, meta)
write_table(verdicts, snakemake.output.verdicts, meta)
write_table(paired, snakemake.output.paired, meta)
aggregate_timings(snakemake.input.timings, snakemake.output.timings, meta)
log.info("%d runs, %d cells, %d verdicts", len(runs), len(summary), len(verdicts))
end_job()
