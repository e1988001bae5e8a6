"""Reruns that do not lie: results built from files that are gone are rebuilt (decision
D263).

Snakemake reruns a job when its output is missing only if something downstream needs it:
after a failed job whose outputs it removed (an aggregate refusing a corrupt shard, a killed
sweep), the figures and tables built from the removed file are still there, and the next run
says "Nothing to be done". :func:`stale_outputs` reads what Snakemake recorded of every
output (``.snakemake/metadata``: the input files of the job that wrote it) and returns the
outputs that still exist although an input they were built from is missing, and those built
from them; the workflow forces them (``workflow/rules/common.smk``), so the next run rebuilds
the missing files and everything built from them, or fails again with the same message.
"""

from __future__ import annotations

import json
import os
from base64 import urlsafe_b64decode
from pathlib import Path

__all__ = ["recorded_inputs", "stale_outputs"]

#: Folder of the files the workflow writes (inputs outside it are sources, not results).
RESULTS = "results/"


def recorded_inputs(metadata_dir: str | os.PathLike) -> dict[str, list[str]]:
    """``{output: [input files]}`` of Snakemake's metadata records under ``metadata_dir``
    (one JSON file per output, named by the urlsafe base64 of its path, split into folders
    when long); unreadable records are skipped."""
    root = Path(metadata_dir)
    out: dict[str, list[str]] = {}
    if not root.is_dir():
        return out
    for f in root.rglob("*"):
        if not f.is_file():
            continue
        try:
            name = urlsafe_b64decode("".join(f.relative_to(root).parts)).decode()
            record = json.loads(f.read_text())
        except (ValueError, OSError, UnicodeDecodeError):
            continue
        if isinstance(record, dict) and isinstance(record.get("input"), list):
            out[name] = [str(p) for p in record["input"]]
    return out


def stale_outputs(
    metadata_dir: str | os.PathLike = ".snakemake/metadata", workdir: str | os.PathLike = "."
) -> list[str]:
    """Existing outputs under ``results/`` (paths relative to ``workdir``) recorded as built
    from a file under ``results/`` or from another recorded output that no longer exists,
    and, transitively, the existing outputs built from those; sorted. Outputs elsewhere (the
    copies ``snakemake publish`` writes) are left to the command that writes them."""
    base = Path(workdir)
    records = {
        out: inputs
        for out, inputs in recorded_inputs(base / metadata_dir).items()
        if (base / out).exists()
    }
    produced = set(recorded_inputs(base / metadata_dir))

    def gone(p: str) -> bool:
        return (p.startswith(RESULTS) or p in produced) and not (base / p).exists()

    stale = {out for out, inputs in records.items() if any(gone(p) for p in inputs)}
    grew = True
    while grew:
        more = {
            out
            for out, inputs in records.items()
            if out not in stale and any(p in stale for p in inputs)
        }
        stale |= more
        grew = bool(more)
    return sorted(p for p in stale if p.startswith(RESULTS))
