"""Adapter: result files -> results/reproduction.md (the claims of every experiment's
record, in their order)."""

from pathlib import Path

from baiuv.pipeline.logs import end_job, setup_logging
from baiuv.pipeline.specs import enabled_specs, not_run
from baiuv.report.pages import table_page, verdict_summary_rst
from baiuv.report.reproduction import decisions, render
from baiuv.storage.io import read_table, write_text

log = setup_logging(snakemake.log[0])
inp = snakemake.input
config = snakemake.params.config
tables = {}
for key in inp.keys():
    if key != "decisions":
        paths = getattr(inp, key)
        tables[key] = (
            read_table(paths)[0] if isinstance(paths, str) else [read_table(p)[0] for p in paths]
        )
claims = []
for spec in enabled_specs(config):
    if spec.claims is not None:
        claims += spec.claims(tables, config)
config_name = snakemake.params.config_name
text = render(claims, decisions(Path(inp.decisions).read_text()), config_name, not_run(config))
write_text(text, snakemake.output.md)
write_text(table_page(text, "Reproduction report"), snakemake.output.html)
write_text(verdict_summary_rst(claims, config_name), snakemake.output.summary)
log.info("%d claims written", len(claims))
end_job()
