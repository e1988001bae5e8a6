"""Adapter: an experiment's tables -> its figure (``output.pdf``, ``output.png``), through
the ``figure`` function its record (``params.experiment``) names (D401: shared scripts
call the functions the record names)."""

from baiuv.pipeline.logs import end_job, setup_logging
from baiuv.pipeline.specs import experiment_step
from baiuv.storage.io import read_table, save_figure

log = setup_logging(snakemake.log[0])
p = snakemake.params
inp = snakemake.input
draw = experiment_step(p.experiment, "figure")
tables = {
    k: read_table(v)[0] if isinstance(v, str) else [read_table(f)[0] for f in v]
    for k, v in ((k, getattr(inp, k)) for k in inp.keys())
}
fig = draw(tables, p)
save_figure(fig, [snakemake.output.pdf, snakemake.output.png])
log.info("%s: figure drawn", p.experiment)
end_job()
