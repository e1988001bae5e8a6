"""Adapter: a batch of shards on the job's cores (local runs)."""

from baiuv.pipeline.batches import run_cells
from baiuv.pipeline.logs import end_job, setup_logging

run_cells(
    snakemake.params.cells,
    setup_logging(snakemake.log[0], name="baiuv-batch"),
    workers=snakemake.threads,
)
end_job()
