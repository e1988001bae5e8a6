"""Adapter: delta-correct runs -> results/tables/delta_correct.md."""

from baiuv.experiments.delta_correct import delta_correct_markdown, summarize_delta_correct
from baiuv.pipeline.io import read_table, write_text
from baiuv.pipeline.logs import setup_logging
from baiuv.report.pages import for_readers

log = setup_logging(snakemake.log[0])
df, _ = read_table(snakemake.input[0])
md = delta_correct_markdown(summarize_delta_correct(df), snakemake.params.delta)
write_text(for_readers(md), snakemake.output[0])
log.info("\n%s", md)
