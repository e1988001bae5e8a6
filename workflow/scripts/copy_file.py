"""Adapter: copy one file atomically (publishes the default-config report to docs/)."""

from pathlib import Path

from baiuv.pipeline.io import write_text

write_text(Path(snakemake.input[0]).read_text(encoding="utf-8"), snakemake.output[0])
