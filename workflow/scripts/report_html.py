"""Adapter: a Markdown table of the pipeline -> its HTML page in the report."""

from pathlib import Path

from baiuv.pipeline.logs import end_job, setup_logging
from baiuv.report.pages import table_page
from baiuv.storage.io import write_text

log = setup_logging(snakemake.log[0])
md = Path(snakemake.input[0]).read_text(encoding="utf-8")
write_text(table_page(md, snakemake.params.title), snakemake.output[0])
log.info("%s -> %s", snakemake.input[0], snakemake.output[0])
end_job()
