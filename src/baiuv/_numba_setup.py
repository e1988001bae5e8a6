"""Key numba's on-disk cache by a hash of the package sources.

numba's cache of a module only checks that module's own source file: a kernel compiled into
the cache keeps the machine code of every function it inlined from *other* modules (the
simulation loop inlines the transportation costs, the oracles, the threshold kernels and
the exact BoB solver). After an edit to one of those, numba would silently keep running the
old code. Keying the cache directory by :func:`baiuv.provenance.source_hash` makes any
edit of the package start from a fresh cache (decision D19).

* ``NUMBA_CACHE_DIR`` set (by the user, or by the workflow for each job, decision D60):
  the cache goes to ``$NUMBA_CACHE_DIR/baiuv-<hash>``;
* otherwise to ``$XDG_CACHE_HOME/baiuv/numba/baiuv-<hash>`` (``~/.cache`` by default),
  keeping the three most recent hashes.

This must run before any ``@njit(cache=True)`` function of the package is defined: it is
called at the top of ``baiuv/__init__.py``.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from baiuv.provenance import source_hash

KEEP = 3


def _default_base() -> Path:
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "baiuv" / "numba"


def _prune(base: Path, keep: Path) -> None:
    try:
        dirs = sorted(
            (p for p in base.glob("baiuv-*") if p.is_dir() and p != keep),
            key=lambda p: p.stat().st_mtime,
            reverse=True,
        )
        for old in dirs[KEEP - 1 :]:
            shutil.rmtree(old, ignore_errors=True)
    except OSError:  # pragma: no cover - concurrent pruning
        pass


def configure() -> str | None:
    """Point numba's cache at the hash-keyed directory; returns it (``None`` if unusable)."""
    from numba.core import config

    user = os.environ.get("NUMBA_CACHE_DIR")
    base = Path(user) if user else _default_base()
    target = base / f"baiuv-{source_hash()}"
    try:
        target.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None  # unwritable: numba falls back to its default locations
    if not user:
        _prune(base, target)
    config.CACHE_DIR = str(target)
    return str(target)
