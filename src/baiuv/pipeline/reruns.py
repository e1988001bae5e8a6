"""Reruns that do not lie: results built from files that are gone are rebuilt (decision
D268).

Snakemake reruns a job when its output is missing only if something downstream needs it:
after a failed job whose outputs it removed (an aggregate refusing a corrupt shard, a killed
sweep), the figures and tables built from the removed file are still there, and the next run
says "Nothing to be done". :func:`stale_outputs` reads what Snakemake recorded of every
output (``.snakemake/metadata``: the input files of the job that wrote it) and returns the
outputs that still exist although an input they were built from is missing, and those built
from them; :func:`missing_inputs` returns those missing files. The workflow makes the missing
files that a rule can produce targets of its default rule (``workflow/rules/common.smk``):
the next run rebuilds them and, as their inputs are then newer, everything built from them,
or fails again with the same message.

A target other than the default one (a named figure, ``publish``) reaches only the outputs it
is built from: :func:`mark_incomplete` writes Snakemake's own marker of an interrupted job
for each stale output, so any run whose target needs one reruns it, with the missing file it
reads (``rerun-incomplete`` in the profiles; without it Snakemake stops naming the files and
that option). An output dated in the future (clock skew: :func:`future_outputs`) looks newer
than any input rebuilt after it, so it is marked the same way and rebuilt (decision D298).
"""

from __future__ import annotations

import json
import os
import time
from base64 import urlsafe_b64decode, urlsafe_b64encode
from collections.abc import Iterable
from pathlib import Path

__all__ = [
    "future_outputs",
    "mark_incomplete",
    "missing_inputs",
    "recorded_inputs",
    "stale_outputs",
]

#: Folder of the files the workflow writes (inputs outside it are sources, not results).
RESULTS = "results/"

#: Seconds by which a result may be dated after the clock of the run before it counts as
#: written in the future (file systems round times; a shared one may run a little ahead).
FUTURE_TOLERANCE = 2.0


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


def _records(metadata_dir, workdir):
    base = Path(workdir)
    recorded = recorded_inputs(base / metadata_dir)
    existing = {out: inputs for out, inputs in recorded.items() if (base / out).exists()}

    def gone(p: str) -> bool:
        return (p.startswith(RESULTS) or p in recorded) and not (base / p).exists()

    return existing, gone


def missing_inputs(
    metadata_dir: str | os.PathLike = ".snakemake/metadata", workdir: str | os.PathLike = "."
) -> list[str]:
    """Files under ``results/`` (or recorded outputs) that no longer exist although an
    existing output under ``results/`` was built from them; sorted."""
    existing, gone = _records(metadata_dir, workdir)
    return sorted(
        {
            p
            for out, inputs in existing.items()
            if out.startswith(RESULTS)
            for p in inputs
            if gone(p)
        }
    )


def stale_outputs(
    metadata_dir: str | os.PathLike = ".snakemake/metadata", workdir: str | os.PathLike = "."
) -> list[str]:
    """Existing outputs under ``results/`` (paths relative to ``workdir``) recorded as built
    from a file under ``results/`` or from another recorded output that no longer exists,
    and, transitively, the existing outputs built from those; sorted. Outputs elsewhere (the
    copies ``snakemake publish`` writes) are left to the command that writes them."""
    records, gone = _records(metadata_dir, workdir)
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


def future_outputs(
    workdir: str | os.PathLike = ".",
    *,
    now: float | None = None,
    tolerance: float = FUTURE_TOLERANCE,
) -> list[str]:
    """Files under ``results/`` of ``workdir`` (relative paths) modified after ``now``
    (default: the clock) plus ``tolerance`` seconds; sorted."""
    limit = (time.time() if now is None else now) + tolerance
    base = Path(workdir)
    out = []
    for folder, _, names in os.walk(base / RESULTS):
        for name in names:
            f = Path(folder, name)
            try:
                if f.lstat().st_mtime > limit:
                    out.append(f.relative_to(base).as_posix())
            except OSError:  # removed meanwhile
                continue
    return sorted(out)


def _marker(folder: Path, key: str) -> Path:
    """Path of Snakemake's record of ``key`` under ``folder``: the urlsafe base64 of the
    path, cut into parts of at most the file-name length (all but the last prefixed by
    ``@``), as ``snakemake.persistence.file`` names them."""
    try:
        max_len = os.pathconf(folder, "PC_NAME_MAX") or 255
    except (OSError, ValueError, AttributeError):
        max_len = 255
    b64 = urlsafe_b64encode(key.encode()).decode()
    parts = [b64[i : i + max_len - 1] for i in range(0, len(b64), max_len - 1)]
    return folder.joinpath(*["@" + p for p in parts[:-1]], parts[-1])


def mark_incomplete(
    paths: Iterable[str],
    workdir: str | os.PathLike = ".",
    persistence: str | os.PathLike = ".snakemake",
) -> list[Path]:
    """Write Snakemake's marker of an interrupted job for each of ``paths`` (relative to
    ``workdir``, as the rules name them), so the next run needing one of them reruns its
    job; returns the markers written."""
    folder = Path(workdir, persistence, "incomplete")
    written = []
    if not isinstance(paths, list | tuple):
        paths = list(paths)
    if paths:
        folder.mkdir(parents=True, exist_ok=True)
    for key in paths:
        marker = _marker(folder, key)
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.write_text(json.dumps({"external_jobid": None}))
        written.append(marker)
    return written
