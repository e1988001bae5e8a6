"""Adapter: compile one part of the simulation kernels into numba's cache (the ``part``
wildcard, or the loops), then write the marker."""

from baiuv.pipeline.logs import end_job, setup_logging
from baiuv.storage.io import write_text
from baiuv.warmup import compile_simulation_kernels

part = snakemake.wildcards.get("part", "loops")
log = setup_logging(snakemake.log[0])
for signature in compile_simulation_kernels(part):
    log.info("compiled or loaded %s", signature)
write_text(
    f"{part} kernels compiled for the baiuv sources {snakemake.params.code}\n", snakemake.output[0]
)
end_job()
