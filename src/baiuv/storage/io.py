"""Atomic, self-describing result files.

Every intermediate file written by the pipeline carries the parameters that produced it
(JSON in the Parquet schema metadata, or a ``__params__`` entry in NPZ files) and is
written atomically: data go to a temporary file in the destination folder, which is then
renamed over the target. A killed job therefore never leaves a truncated file behind that a
later run could accept. Files get the usual permissions (``0666`` minus the umask, as
``open`` would give them), not the owner-only mode of the temporary file.

Figures are byte-deterministic: the same figure and library versions give the same bytes
(no creation date in PDF/SVG unless ``SOURCE_DATE_EPOCH`` asks for one, fixed SVG ids).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

# pandas and pyarrow (about 0.4 s of CPU to import) are imported by the functions that read
# or write tables: the jobs that only write text or copy files do not load them.

PARAMS_KEY = b"baiuv_params"


def _jsonable(obj: Any) -> Any:
    if isinstance(obj, Mapping):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, Path):
        return str(obj)
    return obj


def atomic_path(path: str | os.PathLike) -> tuple[Path, Path]:
    """Return ``(target, tmp)`` where ``tmp`` is a fresh temporary file next to ``target``."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.close(fd)
    return target, Path(tmp)


def _umask() -> int:
    """The process umask (read without changing it where Linux allows)."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except OSError:
        pass
    mask = os.umask(0o022)  # elsewhere: read by setting, then restore
    os.umask(mask)
    return mask


def _commit(tmp: Path, target: Path) -> None:
    # mkstemp creates 0600; give the file the mode a plain open() would (0644 under umask 022)
    os.chmod(tmp, 0o666 & ~_umask())
    with open(tmp, "rb") as fh:
        os.fsync(fh.fileno())
    os.replace(tmp, target)


@contextmanager
def atomic_target(path: str | os.PathLike) -> Iterator[Path]:
    """``with atomic_target(path) as tmp:`` write ``tmp``; on success it replaces ``path``
    (with the usual permissions), on error it is removed and ``path`` is untouched."""
    target, tmp = atomic_path(path)
    try:
        yield tmp
        _commit(tmp, target)
    finally:
        if tmp.exists():
            tmp.unlink()


def write_table(df: pd.DataFrame, path: str | os.PathLike, params: Mapping | None = None) -> Path:
    """Write ``df`` to Parquet atomically, storing ``params`` as JSON metadata."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    with atomic_target(path) as tmp:
        table = pa.Table.from_pandas(df, preserve_index=False)
        meta = dict(table.schema.metadata or {})
        meta[PARAMS_KEY] = json.dumps(_jsonable(dict(params or {})), sort_keys=True).encode()
        table = table.replace_schema_metadata(meta)
        pq.write_table(table, tmp)
    return Path(path)


def read_table(path: str | os.PathLike) -> tuple[pd.DataFrame, dict]:
    """Read a Parquet file written by :func:`write_table`; returns ``(df, params)``."""
    import pyarrow.parquet as pq

    table = pq.read_table(path)
    meta = table.schema.metadata or {}
    params = json.loads(meta[PARAMS_KEY]) if PARAMS_KEY in meta else {}
    return table.to_pandas(), params


def write_text(text: str, path: str | os.PathLike) -> Path:
    """Write a text file (Markdown table, report) atomically."""
    with atomic_target(path) as tmp:
        tmp.write_text(text, encoding="utf-8")
    return Path(path)


def copy_file(src: str | os.PathLike, dst: str | os.PathLike) -> Path:
    """Copy the bytes of ``src`` to ``dst`` atomically (published figures and reports)."""
    with atomic_target(dst) as tmp:
        shutil.copyfile(src, tmp)
    return Path(dst)


# Metadata entries that would make two renderings of one figure differ. A date is only
# written when SOURCE_DATE_EPOCH is set (matplotlib then uses it); PNG carries none.
_DATE_KEY = {"pdf": "CreationDate", "svg": "Date"}


def figure_metadata(fmt: str) -> dict | None:
    """``metadata=`` argument of ``savefig`` for a byte-deterministic file of format ``fmt``."""
    key = _DATE_KEY.get(fmt)
    if key is None or os.environ.get("SOURCE_DATE_EPOCH"):
        return None
    return {key: None}


def save_figure(fig, paths: list[str | os.PathLike] | tuple, **kwargs) -> None:
    """Save a matplotlib figure to each path (format from the suffix), atomically and
    byte-deterministically (:func:`figure_metadata`; ``svg.hashsalt`` fixed)."""
    import matplotlib as mpl

    for p in paths:
        fmt = Path(p).suffix.lstrip(".").lower()
        opts = dict(kwargs)
        meta = figure_metadata(fmt)
        if meta is not None:
            opts["metadata"] = {**meta, **opts.get("metadata", {})}
        with atomic_target(p) as tmp, mpl.rc_context({"svg.hashsalt": "baiuv"}):
            fig.savefig(tmp, format=fmt, **opts)
