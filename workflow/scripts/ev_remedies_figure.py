"""Adapter: EV remedy cells -> figures/ev_remedies.{pdf,png}."""

from baiuv.pipeline.logs import end_job, setup_logging
from baiuv.plotting.ev_remedies import remedies_figure
from baiuv.storage.io import read_table, save_figure

log = setup_logging(snakemake.log[0])
cells, _ = read_table(snakemake.input[0])
fig = remedies_figure(cells, snakemake.params.delta)
save_figure(fig, [snakemake.output.pdf, snakemake.output.png])
log.info("EV remedies figure: %d cells", len(cells))
end_job()
