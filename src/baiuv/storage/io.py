"""Atomic, self-describing result files.

Every intermediate file written by the pipeline carries the parameters that produced it
(JSON in the Parquet schema metadata, or a ``__params__`` entry in NPZ files) and is
written atomically: data go to a temporary file in the destination folder, which is then
renamed over the target. A killed job therefore never leaves a truncated file behind that a
later run could accept. Files get the usual permissions (``0666`` minus the umask, as
``open`` would give them), not the owner-only mode of the temporary file.

Every table is verified when read (decision D266): :func:`write_table` stores a digest of
its content (the decoded columns and the parameters, :func:`table_digest`) in the Parquet
metadata, and :func:`read_table`, the one reader of the pipeline's tables, recomputes it. A
flipped byte that changes a value, a truncated file or a file written by something else
raises :class:`CorruptResultError` naming the file and how to rebuild it. The digest is a
function of the content only, so two runs still write byte-identical files.

Temporary files are named ``.<name>.<pid>.<random>.tmp``: the next write of the same target
removes those left by a process that no longer runs (a job killed by SIGKILL), so a rerun
leaves none behind.

Figures are byte-deterministic: the same figure and library versions give the same bytes
(no creation date in PDF/SVG unless ``SOURCE_DATE_EPOCH`` asks for one, fixed SVG ids).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from glob import escape
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

# pandas and pyarrow (about 0.4 s of CPU to import) are imported by the functions that read
# or write tables: the jobs that only write text or copy files do not load them.

PARAMS_KEY = b"baiuv_params"
DIGEST_KEY = b"baiuv_digest"

#: How to rebuild a result file that fails its check.
REBUILD_HINT = "delete it and run the same snakemake command again to rebuild it"


class CorruptResultError(ValueError):
    """A result file is unreadable, fails its content digest or is not the expected one."""

    def __init__(self, path: str | os.PathLike, what: str):
        super().__init__(f"{os.fspath(path)}: {what}; {REBUILD_HINT}")


def jsonable(obj: Any) -> Any:
    """``obj`` with mappings, sequences, arrays, numpy scalars and paths made JSON values
    (as the parameters are stored)."""
    if isinstance(obj, Mapping):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, Path):
        return str(obj)
    return obj


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


def remove_stale_temporaries(target: Path) -> list[Path]:
    """Remove the temporary files of ``target`` (``.<name>.<pid>.<random>.tmp``) whose
    process no longer runs; returns them."""
    removed = []
    prefix = f".{target.name}."
    for f in target.parent.glob(f".{glob_escape(target.name)}.*.tmp"):
        pid = f.name[len(prefix) :].split(".", 1)[0]
        if pid.isdigit() and int(pid) != os.getpid() and not _pid_alive(int(pid)):
            f.unlink(missing_ok=True)
            removed.append(f)
    return removed


def glob_escape(name: str) -> str:
    """``name`` with the glob metacharacters escaped."""
    return escape(name)


def atomic_path(path: str | os.PathLike) -> tuple[Path, Path]:
    """Return ``(target, tmp)`` where ``tmp`` is a fresh temporary file next to ``target``
    (stale temporaries of ``target`` removed first, :func:`remove_stale_temporaries`)."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_temporaries(target)
    fd, tmp = tempfile.mkstemp(
        prefix=f".{target.name}.{os.getpid()}.", suffix=".tmp", dir=target.parent
    )
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


def _hash_array(h, arr) -> None:
    """Feed the values of a pyarrow array to ``h`` (independent of chunking and buffers)."""
    # pyarrow is a pipeline extra (D245): loaded on first use
    import pyarrow as pa

    t = arr.type
    nested = pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t)
    # a list's type is named by its values (Parquet renames the child field "item")
    h.update(f"{'list' if nested else t}|{len(arr)}|".encode())
    h.update(np.asarray(arr.is_null().to_numpy(zero_copy_only=False)).tobytes())
    if nested:
        lengths = arr.value_lengths().fill_null(0).to_numpy(zero_copy_only=False)
        h.update(np.ascontiguousarray(lengths, dtype=np.int64).tobytes())
        _hash_array(h, arr.flatten())
    elif pa.types.is_struct(t):
        for child in arr.flatten():
            _hash_array(h, child)
    elif pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_boolean(t):
        if arr.null_count:  # nulls are in the mask above; a fixed value keeps the dtype
            arr = arr.fill_null(pa.scalar(False if pa.types.is_boolean(t) else 0, type=t))
        values = np.ascontiguousarray(arr.to_numpy(zero_copy_only=False))
        assert values.dtype != object, t  # bytes of values, never of object pointers
        h.update(values.tobytes())
    else:  # strings, dictionaries, dates...: their Python values
        h.update(json.dumps(arr.to_pylist(), default=str).encode())


def table_digest(table) -> str:
    """SHA-256 of a pyarrow table's content: column names, types and values (as decoded,
    whatever the chunking) and its ``pandas`` and parameters metadata."""
    # pyarrow is a pipeline extra (D245): loaded on first use
    import pyarrow as pa

    h = hashlib.sha256()
    meta = table.schema.metadata or {}
    for key in (b"pandas", PARAMS_KEY):
        h.update(key + b"=" + meta.get(key, b"") + b"\0")
    for name, col in zip(table.column_names, table.columns, strict=True):
        h.update(name.encode() + b"\0")
        chunks = col.chunks
        _hash_array(h, pa.concat_arrays(chunks) if chunks else pa.array([], type=col.type))
    return h.hexdigest()


def write_table(df: pd.DataFrame, path: str | os.PathLike, params: Mapping | None = None) -> Path:
    """Write ``df`` to Parquet atomically, storing ``params`` as JSON metadata and the
    digest of the content (:func:`table_digest`)."""
    # pyarrow is a pipeline extra (D245): loaded on first use
    import pyarrow as pa
    import pyarrow.parquet as pq

    with atomic_target(path) as tmp:
        table = pa.Table.from_pandas(df, preserve_index=False)
        meta = dict(table.schema.metadata or {})
        meta[PARAMS_KEY] = json.dumps(jsonable(dict(params or {})), sort_keys=True).encode()
        table = table.replace_schema_metadata(meta)
        meta[DIGEST_KEY] = table_digest(table).encode()
        pq.write_table(table.replace_schema_metadata(meta), tmp)
    return Path(path)


def read_table(path: str | os.PathLike) -> tuple[pd.DataFrame, dict]:
    """Read a Parquet file written by :func:`write_table`; returns ``(df, params)``.

    Raises :class:`CorruptResultError` (naming the file and how to rebuild it) when the file
    cannot be decoded, has no digest or its content does not match its digest;
    ``FileNotFoundError`` when it does not exist."""
    # pyarrow is a pipeline extra (D245): loaded on first use
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(path)
        meta = table.schema.metadata or {}
        if DIGEST_KEY not in meta:
            raise CorruptResultError(path, "no content digest (not written by baiuv)")
        if table_digest(table).encode() != meta[DIGEST_KEY]:
            raise CorruptResultError(path, "content does not match its digest (corrupted)")
        params = json.loads(meta[PARAMS_KEY]) if PARAMS_KEY in meta else {}
        df = table.to_pandas()
    except (CorruptResultError, FileNotFoundError):
        raise
    except Exception as exc:  # pyarrow's errors on damaged files vary (OSError, ArrowInvalid...)
        msg = str(exc).splitlines()[0] if str(exc) else ""
        raise CorruptResultError(path, f"unreadable ({type(exc).__name__}: {msg})") from None
    return df, params


def write_text(text: str, path: str | os.PathLike) -> Path:
    """Write a text file (Markdown table, report) atomically."""
    with atomic_target(path) as tmp:
        tmp.write_text(text, encoding="utf-8")
    return Path(path)


def rewrite_text(text: str, path: str | os.PathLike) -> bool:
    """Write ``text`` to a generated file unless it already holds it (the generators'
    ``python -m`` entry points); returns whether the file was written."""
    path = Path(path)
    if path.exists() and path.read_text(encoding="utf-8") == text:
        return False
    write_text(text, path)
    return True


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
    # matplotlib is a pipeline extra (D245): loaded on first use
    import matplotlib as mpl

    for p in paths:
        fmt = Path(p).suffix.lstrip(".").lower()
        opts = dict(kwargs)
        meta = figure_metadata(fmt)
        if meta is not None:
            opts["metadata"] = {**meta, **opts.get("metadata", {})}
        with atomic_target(p) as tmp, mpl.rc_context({"svg.hashsalt": "baiuv"}):
            fig.savefig(tmp, format=fmt, **opts)
