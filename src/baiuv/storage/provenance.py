"""Provenance: a hash of the package sources, so that changed science reruns the pipeline,
a check that the imported package is the workflow's own sources, and a description of the
machine that measured a timing (timing tables name it)."""

from __future__ import annotations

import hashlib
import os
import platform
from functools import lru_cache
from pathlib import Path

PACKAGE_ROOT = Path(__file__).resolve().parent.parent  # src/baiuv


@lru_cache(maxsize=8)
def source_hash(exclude: tuple[str, ...] = ()) -> str:
    """SHA-256 (first 16 hex digits) over the path and bytes of every ``.py`` file of baiuv,
    except those of the subpackages named in ``exclude`` (``("plotting",)``)."""
    h = hashlib.sha256()
    for f in sorted(PACKAGE_ROOT.rglob("*.py")):
        rel = f.relative_to(PACKAGE_ROOT)
        if rel.parts[0] in exclude:
            continue
        h.update(str(rel).encode())
        h.update(b"\0")
        h.update(f.read_bytes())
        h.update(b"\0")
    return h.hexdigest()[:16]


def check_package_source(checkout: str | os.PathLike) -> None:
    """``RuntimeError`` unless the imported baiuv is the package of ``checkout``
    (``<checkout>/src/baiuv``): jobs importing another copy (an editable install of another
    clone, an installed release) would ignore this checkout's sources while its results
    were recorded as made by them (decision D269)."""
    expected = (Path(checkout) / "src" / "baiuv").resolve()
    if PACKAGE_ROOT != expected:
        raise RuntimeError(
            f"the imported baiuv is {PACKAGE_ROOT}, not this workflow's sources {expected}: "
            f"install this checkout (pip install -e {Path(checkout).resolve()}) or put "
            f"{expected.parent} first on PYTHONPATH"
        )


def machine_description() -> str:
    """One line naming the machine and software a timing was measured with: CPU model,
    logical cores, OS, Python and the numeric libraries' versions."""
    # importlib.metadata is slow to import: only when a version is read
    from importlib.metadata import PackageNotFoundError, version

    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as fh:
            cpu = next(
                (ln.split(":", 1)[1].strip() for ln in fh if ln.startswith("model name")), cpu
            )
    except OSError:
        pass
    libs = []
    for name in ("numpy", "scipy", "numba", "pyomo"):
        try:
            libs.append(f"{name} {version(name)}")
        except PackageNotFoundError:
            pass
    return (
        f"{cpu}, {os.cpu_count()} logical cores, {platform.system()} {platform.machine()}, "
        f"Python {platform.python_version()}, " + ", ".join(libs)
    )
