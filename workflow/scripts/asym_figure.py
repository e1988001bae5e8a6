"""Adapter: asymptotic summary -> figures/asymptotic.{pdf,png}."""

from baiuv.pipeline.logs import end_job, setup_logging
from baiuv.plotting.asymptotic import asymptotic_figure
from baiuv.storage.io import read_table, save_figure

log = setup_logging(snakemake.log[0])
summary, _ = read_table(snakemake.input[0])
p = snakemake.params
fig = asymptotic_figure(summary, [tuple(c) for c in p.cells], p.instances)
save_figure(fig, [snakemake.output.pdf, snakemake.output.png])
log.info("asymptotic figure: %d cells", len(summary))
end_job()
