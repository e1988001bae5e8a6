"""Adapter: compile the simulation kernels into numba's cache, then write the marker."""

from baiuv.pipeline.logs import setup_logging
from baiuv.warmup import compile_simulation_kernels

log = setup_logging(snakemake.log[0])
for signature in compile_simulation_kernels():
    log.info("compiled or loaded %s", signature)
with open(snakemake.output[0], "w") as fh:
    fh.write(f"simulation kernels compiled for the baiuv sources {snakemake.params.code}\n")
