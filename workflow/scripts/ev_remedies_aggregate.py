"""Adapter: EV remedy shards -> runs, cells (Parquet) and the trade-off table."""

import pandas as pd

from baiuv.experiments.ev_remedies import instance_cells, remedy_cells, remedy_markdown
from baiuv.pipeline.logs import end_job, setup_logging
from baiuv.report.pages import for_readers
from baiuv.storage.io import write_table, write_text
from baiuv.storage.shards import read_shards

log = setup_logging(snakemake.log[0])
p = snakemake.params
runs = pd.concat(read_shards(snakemake.input, p.expect)[0], ignore_index=True)
cells = remedy_cells(runs, delta=p.delta, level=p.level)
instances = instance_cells(runs, delta=p.delta, level=p.level)
meta = {"delta": p.delta, "level": p.level, "code": p.code}
write_table(runs, snakemake.output.runs, meta)
write_table(cells, snakemake.output.cells, meta)
write_table(instances, snakemake.output.instances, meta)
md = remedy_markdown(cells, delta=p.delta, level=p.level, instances=instances)
write_text(for_readers(md), snakemake.output.table)
log.info("%d runs, %d cells, %d resolved", len(runs), len(cells), int(cells["resolved"].sum()))
end_job()
