"""Adapter: audit cells and summary -> audit_flagged.md and audit_summary.md."""

from baiuv.pipeline.logs import end_job, setup_logging
from baiuv.report.pages import for_readers
from baiuv.storage.io import read_table, write_text
from baiuv.studies.audit import audit_markdown

log = setup_logging(snakemake.log[0])
p = snakemake.params
cells, _ = read_table(snakemake.input.cells)
summary, _ = read_table(snakemake.input.summary)
flagged_md, summary_md = audit_markdown(
    cells, summary, delta=p.delta, level=p.level, threshold=p.threshold
)
write_text(for_readers(flagged_md), snakemake.output.flagged)
write_text(for_readers(summary_md), snakemake.output.summary)
log.info(
    "wrote %s and %s (%d flagged cells)",
    snakemake.output.summary,
    snakemake.output.flagged,
    int(cells["flagged"].sum()),
)
end_job()
