"""Adapter: a batch of shards, run one after the other in this process (local runs)."""

from baiuv.pipeline.batches import run_cells
from baiuv.pipeline.logs import end_job, setup_logging

run_cells(snakemake.params.cells, setup_logging(snakemake.log[0], name="baiuv-batch"))
end_job()
