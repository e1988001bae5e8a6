"""Adapter: delta-correct runs -> figures/delta_correct_stopping.{pdf,png}."""

from baiuv.pipeline.logs import end_job, setup_logging
from baiuv.plotting.delta_correct import delta_correct_figure
from baiuv.storage.io import read_table, save_figure
from baiuv.studies.delta_correct import summarize_delta_correct

log = setup_logging(snakemake.log[0])
df, _ = read_table(snakemake.input[0])
p = snakemake.params
fig = delta_correct_figure(summarize_delta_correct(df), p.instances, p.algorithms, p.delta)
save_figure(fig, [snakemake.output.pdf, snakemake.output.png])
log.info("figure with %d runs", len(df))
end_job()
