"""Adapter: audit summary -> figures/audit.{pdf,png}."""

from baiuv.pipeline.logs import end_job, setup_logging
from baiuv.plotting.asymptotic import audit_figure
from baiuv.storage.io import read_table, save_figure

log = setup_logging(snakemake.log[0])
summary, _ = read_table(snakemake.input[0])
fig = audit_figure(summary, snakemake.params.delta, snakemake.params.algorithms)
save_figure(fig, [snakemake.output.pdf, snakemake.output.png])
log.info("audit figure: %d (algorithm, n0) pairs", len(summary))
end_job()
