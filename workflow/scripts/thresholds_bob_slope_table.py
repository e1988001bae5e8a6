"""Adapter: BoB slope study -> Markdown table."""

from baiuv.experiments.bob_slope import bob_slope_markdown
from baiuv.pipeline.logs import end_job, setup_logging
from baiuv.storage.io import read_table, write_text

setup_logging(snakemake.log[0])
text = bob_slope_markdown(
    read_table(snakemake.input.summary)[0], read_table(snakemake.input.curves)[0]
)
write_text(text, snakemake.output[0])
end_job()
