"""Atomic, self-describing result files.

Every intermediate file written by the pipeline carries the parameters that produced it
(JSON in the Parquet schema metadata, or a ``__params__`` entry in NPZ files) and is
written atomically: data go to a temporary file in the destination folder, which is then
renamed over the target. A killed job therefore never leaves a truncated file behind that a
later run could accept.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

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


def _commit(tmp: Path, target: Path) -> None:
    with open(tmp, "rb") as fh:
        os.fsync(fh.fileno())
    os.replace(tmp, target)


def write_table(df: pd.DataFrame, path: str | os.PathLike, params: Mapping | None = None) -> Path:
    """Write ``df`` to Parquet atomically, storing ``params`` as JSON metadata."""
    target, tmp = atomic_path(path)
    try:
        table = pa.Table.from_pandas(df, preserve_index=False)
        meta = dict(table.schema.metadata or {})
        meta[PARAMS_KEY] = json.dumps(_jsonable(dict(params or {})), sort_keys=True).encode()
        table = table.replace_schema_metadata(meta)
        pq.write_table(table, tmp)
        _commit(tmp, target)
    finally:
        if tmp.exists():
            tmp.unlink()
    return target


def read_table(path: str | os.PathLike) -> tuple[pd.DataFrame, dict]:
    """Read a Parquet file written by :func:`write_table`; returns ``(df, params)``."""
    table = pq.read_table(path)
    meta = table.schema.metadata or {}
    params = json.loads(meta[PARAMS_KEY]) if PARAMS_KEY in meta else {}
    return table.to_pandas(), params


def write_text(text: str, path: str | os.PathLike) -> Path:
    """Write a text file (Markdown table, report) atomically."""
    target, tmp = atomic_path(path)
    try:
        tmp.write_text(text, encoding="utf-8")
        _commit(tmp, target)
    finally:
        if tmp.exists():
            tmp.unlink()
    return target


def write_json(obj: Any, path: str | os.PathLike) -> Path:
    return write_text(json.dumps(_jsonable(obj), indent=2, sort_keys=True) + "\n", path)


def save_figure(fig, paths: list[str | os.PathLike] | tuple, **kwargs) -> None:
    """Save a matplotlib figure to each path (format from the suffix), atomically."""
    for p in paths:
        target, tmp = atomic_path(p)
        try:
            fig.savefig(tmp, format=Path(p).suffix.lstrip("."), **kwargs)
            _commit(tmp, target)
        finally:
            if tmp.exists():
                tmp.unlink()
