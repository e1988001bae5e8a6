"""Where numba's on-disk cache lives, so concurrent cluster jobs never race on it.

The numeric kernels are ``@njit(cache=True)``: the first process that calls a kernel
compiles it and writes ``.nbi``/``.nbc`` files, later processes load them. By default numba
writes next to the sources (``src/baiuv/**/__pycache__``). On a cluster the sources sit on
a shared file system and dozens of jobs on different nodes would compile and rewrite the
same index files at once; renames and locks on NFS/Lustre are not reliable enough for
that (decision D60 in ``docs/decisions/architecture.md``).

The workflow therefore sets ``NUMBA_CACHE_DIR`` for every job (``workflow/rules/kernels.smk``
calls :func:`configure_numba_cache` before any job starts):

* inside a SLURM job (``SLURM_JOB_ID`` set): a **node-local** directory,
  ``$TMPDIR/baiuv-numba-<uid>-<source hash>-<generation>`` (``/tmp`` when ``TMPDIR`` is
  unset). It is warmed once per node and per *generation* of the shared cache of the
  project (``<workdir>/.numba_cache``, filled by local runs and by the workflow's local
  ``kernels`` rules): the generation names the ``kernels`` rules' marker files present
  (``markers``), so a job started after the kernels were compiled seeds a new node-local
  copy holding them, even on a node where an earlier job (started before the compilation
  ended) had seeded an incomplete one, and a run leaves at most one copy per set of
  markers on a node. Kernels that local rules compile later (tables, figures) do not start
  a new generation: a job that needs one compiles it into its node's copy. The copy is
  made in a private temporary directory and renamed into place, so two jobs starting
  together on one node never see a half-copied cache. Jobs only ever write to their
  node's directory.
* outside SLURM: the shared project cache ``<workdir>/.numba_cache`` (one machine,
  local file system: numba's own write-to-temporary-then-rename is enough).
* ``BAIUV_NUMBA_CACHE_DIR`` overrides both (e.g. a site-specific scratch directory).

This module does not import numba: the variable is read by every job's fresh Python
process, which inherits the environment of the Snakemake process that set it.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from collections.abc import MutableMapping, Sequence
from pathlib import Path

OVERRIDE_VAR = "BAIUV_NUMBA_CACHE_DIR"
SHARED_NAME = ".numba_cache"


def numba_cache_dir(
    workdir: str | os.PathLike,
    src_hash: str,
    env: MutableMapping[str, str] | None = None,
    markers: Sequence[str] = (),
) -> tuple[Path, bool]:
    """Choose the numba cache directory for this process (see module docstring).

    Parameters
    ----------
    workdir : path-like
        Working directory of the workflow (holds the shared ``.numba_cache``).
    src_hash : str
        Hash of the package sources (:func:`baiuv.storage.provenance.source_hash`); node-local
        caches are keyed by it so a changed package never reuses stale machine code.
    env : mapping, optional
        Environment to read (default ``os.environ``).
    markers : sequence of str, optional
        Paths, relative to ``workdir``, of the files written once kernels are in the
        shared cache (the ``kernels`` rules' outputs); their presence makes the generation.

    Returns
    -------
    path : Path
        The directory to use as ``NUMBA_CACHE_DIR``.
    node_local : bool
        True when ``path`` is a node-local directory of a SLURM job.
    """
    env = os.environ if env is None else env
    if not isinstance(src_hash, str) or not src_hash or any(c in src_hash for c in "/\\"):
        raise ValueError(f"src_hash must be a non-empty string without '/', got {src_hash!r}")
    if env.get(OVERRIDE_VAR):
        return Path(env[OVERRIDE_VAR]), False
    if env.get("SLURM_JOB_ID"):
        base = Path(env.get("TMPDIR") or tempfile.gettempdir())
        generation = cache_generation(Path(workdir).resolve(), markers)
        return base / f"baiuv-numba-{os.getuid()}-{src_hash}-{generation}", True
    return Path(workdir).resolve() / SHARED_NAME, False


def cache_generation(workdir: Path, markers: Sequence[str]) -> str:
    """The generation of the shared cache: which of the ``markers`` exist under
    ``workdir``, as a short digest of their names; ``"none"`` when none does.

    Parameters
    ----------
    workdir : Path
        The working directory of the workflow.
    markers : sequence of str
        Paths of marker files relative to ``workdir``.

    Returns
    -------
    str
        12 hexadecimal digits, or ``"none"``.
    """
    present = sorted(str(m) for m in markers if (workdir / m).is_file())
    if not present:
        return "none"
    return hashlib.sha256("\n".join(present).encode()).hexdigest()[:12]


def _seed(target: Path, shared: Path) -> None:
    """Create ``target`` atomically, as a copy of ``shared`` when that exists."""
    if target.exists():
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        if shared.is_dir():
            # numba writes a file to "<name>.tmp.<id>" and renames it: such a file may be
            # gone by the time it would be copied, and is never read
            shutil.copytree(
                shared,
                tmp,
                dirs_exist_ok=True,
                ignore_dangling_symlinks=True,
                ignore=shutil.ignore_patterns("*.tmp.*"),
            )
        try:
            os.rename(tmp, target)  # atomic; fails if another job won the race
        except OSError:
            if not target.exists():
                raise
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)


def configure_numba_cache(
    workdir: str | os.PathLike,
    src_hash: str,
    env: MutableMapping[str, str] | None = None,
    markers: Sequence[str] = (),
) -> Path:
    """Set ``NUMBA_CACHE_DIR`` in ``env`` (default ``os.environ``) and create the directory.

    Inside a SLURM job the node-local directory of the shared project cache's current
    generation is seeded once from it (see the module docstring).

    Parameters
    ----------
    workdir, src_hash, env, markers
        As in :func:`numba_cache_dir`.

    Returns
    -------
    Path
        The directory now in ``env["NUMBA_CACHE_DIR"]``.
    """
    env = os.environ if env is None else env
    path, node_local = numba_cache_dir(workdir, src_hash, env, markers)
    if node_local:
        _seed(path, Path(workdir).resolve() / SHARED_NAME)
    else:
        path.mkdir(parents=True, exist_ok=True)
    env["NUMBA_CACHE_DIR"] = str(path)
    return path
