"""Adapter: named-instance characteristic times -> Markdown table."""

from baiuv.io import read_table, write_text
from baiuv.logs import setup_logging
from baiuv.report_pages import for_readers
from baiuv.report_tables import characteristic_time_table

setup_logging(snakemake.log[0])
df, params = read_table(snakemake.input[0])
write_text(for_readers(characteristic_time_table(df, params)), snakemake.output[0])
