"""Adapter: named-instance characteristic times -> Markdown table."""

from baiuv.experiments.characteristic_times import characteristic_time_table
from baiuv.pipeline.logs import end_job, setup_logging
from baiuv.report.pages import for_readers
from baiuv.storage.io import read_table, write_text

setup_logging(snakemake.log[0])
df, params = read_table(snakemake.input[0])
write_text(for_readers(characteristic_time_table(df, params)), snakemake.output[0])
end_job()
