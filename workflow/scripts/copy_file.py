"""Adapter: copy one file atomically, byte for byte (`snakemake publish`)."""

from baiuv.pipeline.logs import end_job, setup_logging
from baiuv.storage.io import copy_file

log = setup_logging(snakemake.log[0])
copy_file(snakemake.input[0], snakemake.output[0])
log.info("published %s -> %s", snakemake.input[0], snakemake.output[0])
end_job()
