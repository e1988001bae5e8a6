"""Adapter: delta-correct runs -> results/tables/delta_correct.md; their timing file ->
results/timings/delta_correct.md."""

from baiuv.pipeline.logs import end_job, setup_logging
from baiuv.report.pages import for_readers
from baiuv.storage.io import read_table, write_text
from baiuv.studies.delta_correct import (
    delta_correct_markdown,
    delta_correct_timings_markdown,
    summarize_delta_correct,
)

log = setup_logging(snakemake.log[0])
df, _ = read_table(snakemake.input.runs)
md = delta_correct_markdown(summarize_delta_correct(df), snakemake.params.delta)
write_text(for_readers(md), snakemake.output.table)
timings, _ = read_table(snakemake.input.timings)
write_text(
    delta_correct_timings_markdown(timings, snakemake.params.delta), snakemake.output.timings
)
log.info("wrote %s and %s", snakemake.output.table, snakemake.output.timings)
end_job()
