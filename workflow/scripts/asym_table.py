"""Adapter: verdicts and fitted slopes -> results/tables/asymptotic_slopes.md."""

from baiuv.pipeline.logs import end_job, setup_logging
from baiuv.report.pages import for_readers
from baiuv.storage.io import read_table, write_text
from baiuv.studies.asymptotic import asymptotic_markdown

log = setup_logging(snakemake.log[0])
slopes, _ = read_table(snakemake.input.slopes)
summary, _ = read_table(snakemake.input.summary)
verdicts, _ = read_table(snakemake.input.verdicts)
paired, _ = read_table(snakemake.input.paired)
p = snakemake.params
text = asymptotic_markdown(
    verdicts, slopes, summary, fit_points=p.fit_points, level=p.level, n0=p.n0, paired=paired
)
write_text(for_readers(text), snakemake.output[0])
log.info("wrote %s (%d slopes)", snakemake.output[0], len(slopes))
end_job()
