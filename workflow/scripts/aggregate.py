"""Adapter: the shards of an experiment (``params.experiment``) -> its aggregated tables
(Parquet), and their timing files -> one timing file, through the ``aggregate`` function
its record names (D401: shared scripts call the functions the record names)."""

from baiuv.pipeline.logs import end_job, setup_logging
from baiuv.pipeline.specs import experiment_step
from baiuv.storage.io import read_table, write_table
from baiuv.storage.shards import aggregate_timings, read_shards

log = setup_logging(snakemake.log[0])
p = snakemake.params
inp = snakemake.input
aggregate = experiment_step(p.experiment, "aggregate")
frames, metas = read_shards(inp.runs, p.expect)
# the rule's other named inputs, read as tables
tables = {k: read_table(getattr(inp, k))[0] for k in inp.keys() if k not in ("runs", "timings")}
out = aggregate(frames, metas, p, **tables)
for key, table in out.tables.items():
    write_table(table, getattr(snakemake.output, key), out.meta)
timings_meta = out.meta if out.timings_meta is None else out.timings_meta
aggregate_timings(inp.timings, snakemake.output.timings, timings_meta)
log.info("%s: %s", p.experiment, out.message)
end_job()
