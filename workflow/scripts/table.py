"""Adapter: an experiment's tables -> its Markdown tables, through the ``table`` function its
record (``params.experiment``) names (D401: shared scripts call the functions the record
names). A table of ``results/tables/`` is written for readers of the printed paper
(``baiuv.report.pages.for_readers``); a timing table (``results/timings/``) as computed."""

from baiuv.pipeline.logs import end_job, setup_logging
from baiuv.pipeline.specs import experiment_step
from baiuv.report.pages import for_readers
from baiuv.storage.io import read_table, write_text

log = setup_logging(snakemake.log[0])
p = snakemake.params
inp = snakemake.input
render = experiment_step(p.experiment, "table")
tables = {
    k: read_table(v)[0] if isinstance(v, str) else [read_table(f)[0] for f in v]
    for k, v in ((k, getattr(inp, k)) for k in inp.keys())
}
for key, text in render(tables, p).items():
    path = getattr(snakemake.output, key)
    write_text(text if path.startswith("results/timings/") else for_readers(text), path)
    log.info("wrote %s", path)
end_job()
