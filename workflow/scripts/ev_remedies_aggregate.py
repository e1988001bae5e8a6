"""Adapter: EV remedy shards -> runs, cells, paired costs, truncated runs (Parquet) and the
trade-off table; fails when a run of the authors' code's configuration drawn from the main
experiment's streams differs from that experiment's run (D400), or when a truncated run
decides one of the study's verdicts (D333)."""

import pandas as pd

from baiuv.pipeline.logs import end_job, setup_logging
from baiuv.report.pages import for_readers
from baiuv.storage.io import read_table, write_table, write_text
from baiuv.storage.shards import read_shards
from baiuv.studies.ev_paired import (
    paired_costs,
    paired_markdown,
    truncation_check,
    truncation_check_markdown,
)
from baiuv.studies.ev_remedies import (
    instance_cells,
    main_markdown,
    remedy_cells,
    remedy_markdown,
)
from baiuv.studies.ev_remedy_runs import check_main_rows
from baiuv.studies.ev_truncation import truncation_markdown, truncation_summary

log = setup_logging(snakemake.log[0])
p = snakemake.params
inp = snakemake.input
runs = pd.concat(read_shards(inp.runs, p.expect)[0], ignore_index=True)
evidence = pd.concat(read_shards(inp.evidence, p.expect)[0], ignore_index=True)
main = [read_table(f)[0] for f in inp.main]
shared = check_main_rows(runs, pd.concat(main, ignore_index=True) if main else None, p.main)
log.info("%d runs of the authors' code's configuration are the main experiment's", shared)
cells = remedy_cells(runs, delta=p.delta, level=p.level)
instances = instance_cells(runs, delta=p.delta, level=p.level)
paired = paired_costs(runs, cells, instances=instances, level=p.level)
summary = truncation_summary(runs, evidence)
check = truncation_check(runs, delta=p.delta, level=p.level)
meta = {"delta": p.delta, "level": p.level, "code": p.code}
write_table(runs, snakemake.output.runs, meta)
write_table(cells, snakemake.output.cells, meta)
write_table(instances, snakemake.output.instances, meta)
write_table(paired, snakemake.output.paired, meta)
write_table(evidence, snakemake.output.truncated, meta)
md = remedy_markdown(cells, delta=p.delta, level=p.level, instances=instances)
md += "\n" + main_markdown(cells)
md += "\n" + paired_markdown(paired, level=p.level)
md += "\n" + truncation_markdown(summary, evidence, max_samples=p.max_samples)
md += "\n" + truncation_check_markdown(check, max_samples=p.max_samples)
if check["flips"].any():
    raise RuntimeError(
        "truncated runs decide these verdicts (raise ev_remedies.max_samples): "
        + "; ".join(check[check["flips"]]["claim"])
    )
write_text(for_readers(md), snakemake.output.table)
log.info("%d runs, %d cells, %d resolved", len(runs), len(cells), int(cells["resolved"].sum()))
end_job()
