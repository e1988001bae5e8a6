"""Key numba's on-disk cache by a hash of the package sources.

numba's cache of a module only checks that module's own source file: a kernel compiled into
the cache keeps the machine code of every function it inlined from *other* modules (the
simulation loop inlines the transportation costs, the oracles, the threshold kernels and
the exact BoB solver). After an edit to one of those, numba would silently keep running the
old code. Keying the cache directory by :func:`baiuv.storage.provenance.source_hash` makes any
edit of the package start from a fresh cache.

* ``NUMBA_CACHE_DIR`` set (by the user, or by the workflow for each job, decision D60):
  the cache goes to ``$NUMBA_CACHE_DIR/baiuv-<hash>``;
* otherwise to ``$XDG_CACHE_HOME/baiuv/numba/baiuv-<hash>`` (``~/.cache`` by default),
  keeping the three most recent hashes.

This must run before any ``@njit(cache=True)`` function of the package is defined: it is
called at the top of ``baiuv/__init__.py``. It does not import numba itself (about 0.6 s,
paid by every pipeline job, also those that never run a kernel): when numba
is not imported yet, a one-shot import hook sets ``numba.core.config.CACHE_DIR`` right after
numba's configuration module is executed, i.e. before numba can create any cache.
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import os
import shutil
import sys
import time
from pathlib import Path

from baiuv.storage.provenance import source_hash

KEEP = 3
MIN_AGE_S = 86400.0  # never prune a cache directory modified less than a day ago


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
        now = time.time()
        for old in dirs[KEEP - 1 :]:
            # a directory used in the last day may belong to a running process of another
            # version of the sources (another checkout): removing it under that process
            # makes numba fail when it writes its index
            if now - old.stat().st_mtime > MIN_AGE_S:
                shutil.rmtree(old, ignore_errors=True)
    except OSError:  # pragma: no cover - concurrent pruning
        pass


class _SetCacheDirAfterImport(importlib.abc.MetaPathFinder):
    """Import hook: once ``numba.core.config`` has been executed, set its ``CACHE_DIR``."""

    MODULE = "numba.core.config"

    def __init__(self, cache_dir: str) -> None:
        self.cache_dir = cache_dir

    def find_spec(self, fullname, path, target=None):
        if fullname != self.MODULE:
            return None
        _remove_hooks()  # one shot; also lets the lookup below find the real spec
        spec = importlib.util.find_spec(fullname)
        if spec is None or spec.loader is None:  # pragma: no cover - broken numba install
            return spec
        exec_module = spec.loader.exec_module
        cache_dir = self.cache_dir

        def exec_then_set(module):
            exec_module(module)
            module.CACHE_DIR = cache_dir

        spec.loader.exec_module = exec_then_set  # this spec's own loader instance
        return spec


def _remove_hooks() -> None:
    sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, _SetCacheDirAfterImport)]


#: The directory chosen by the last :func:`configure` call (``None``: unusable or not yet).
CACHE_DIR: str | None = None


def configure() -> str | None:
    """Point numba's cache at the hash-keyed directory; returns it (``None`` if unusable).

    Sets ``numba.core.config.CACHE_DIR`` now if numba is already imported, otherwise as
    soon as it is (without importing it here).
    """
    user = os.environ.get("NUMBA_CACHE_DIR")
    base = Path(user) if user else _default_base()
    target = base / f"baiuv-{source_hash()}"
    try:
        target.mkdir(parents=True, exist_ok=True)
        os.utime(target)  # mtime = last use (pruning spares directories in use)
    except OSError:
        return None  # unwritable: numba falls back to its default locations
    if not user:
        _prune(base, target)
    _remove_hooks()
    config = sys.modules.get(_SetCacheDirAfterImport.MODULE)
    if config is not None:
        config.CACHE_DIR = str(target)
    else:
        sys.meta_path.insert(0, _SetCacheDirAfterImport(str(target)))
    global CACHE_DIR
    CACHE_DIR = str(target)
    return CACHE_DIR
