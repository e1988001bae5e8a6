"""Provenance: a hash of the package sources, so that changed science reruns the pipeline."""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path

PACKAGE_ROOT = Path(__file__).resolve().parent.parent  # src/baiuv


@lru_cache(maxsize=1)
def source_hash() -> str:
    """SHA-256 (first 16 hex digits) over the path and bytes of every ``.py`` file of baiuv."""
    h = hashlib.sha256()
    for f in sorted(PACKAGE_ROOT.rglob("*.py")):
        h.update(str(f.relative_to(PACKAGE_ROOT)).encode())
        h.update(b"\0")
        h.update(f.read_bytes())
        h.update(b"\0")
    return h.hexdigest()[:16]
