"""Many shards per job in local runs; one job per shard on a cluster (decision D226).

A shard job spends about 1.5–2 s of CPU before its first run (interpreter, pandas, pyarrow,
numba, loading the compiled kernels), which at paper scale (360 simulation shards) is as
much as the runs themselves. Snakemake ignores job groups in local execution, so the
workflow defines, for local runs, *batch* rules (``<family>_batch_<b>``,
``workflow/rules/batches.smk``) whose job runs many shards (:func:`run_cells`) through the
same shard functions as the per-shard jobs (:mod:`baiuv.pipeline.cells`). The shard files,
their names and their bytes are the same either way; only the number of processes changes.

:func:`local_batches` decides, when the Snakefile is parsed, whether shards run in batches:
yes in a local run, no (one job per shard) when a cluster executor runs the workflow
(``--jobs`` given with an executor plugin) or inside a cluster job (``--mode remote``), so
a cluster keeps its per-shard jobs. With ``shard_batches: auto`` (:func:`batch_count`) a
family is one batch job that takes every core of the run and hands its shards to forked
worker processes as they become free (start-up paid once per family). With a number ``N``,
the family's shards are dealt into ``N`` jobs of one core each, which run their shards one
after the other. Both come from the configuration alone (never from ``--cores``, so a later
call with other options reruns nothing); ``off`` means one job per shard locally too.
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import logging
import multiprocessing
import os
import signal
import time
from collections.abc import Mapping, Sequence

__all__ = [
    "CellBatch",
    "batch_count",
    "local_batches",
    "pool_workers",
    "run_cells",
    "split_batches",
]


def local_batches(setting: str | int, *, default_mode: bool, nodes: int | None) -> str | int:
    """Whether shards run in batches: ``0`` (one job per shard), else the setting for
    :func:`batch_count` (``"auto"`` or a number of batches per family).

    Parameters
    ----------
    setting : "auto", "off" or int >= 1
        The configuration's ``shard_batches``.
    default_mode : bool
        Snakemake runs in its default mode (not ``--mode remote``/``subprocess``: a job
        inside a cluster job must see the same per-shard rules as the run that submitted it).
    nodes : int or None
        ``--jobs`` of a cluster executor (Snakemake's ``resource_settings.nodes``; ``None``
        in local runs, where ``--jobs`` means cores).
    """
    if setting not in ("auto", "off") and (isinstance(setting, bool) or int(setting) < 1):
        raise ValueError(f"shard_batches must be 'auto', 'off' or an integer >= 1, got {setting!r}")
    if not default_mode or setting == "off" or nodes is not None:
        return 0
    return setting if setting == "auto" else int(setting)


def batch_count(n_cells: int, setting: str | int) -> int:
    """Number of batch jobs for a family of ``n_cells`` shards: one for ``"auto"`` (its job
    runs the shards on all of its cores, :func:`run_cells`), else ``setting`` (at most one
    per shard). It depends on the configuration only, never on ``--cores``: a later call
    with other options finds the same jobs and reruns nothing."""
    if n_cells < 1:
        return 0
    if setting == "auto":
        return 1
    return min(int(setting), n_cells)


def split_batches(cells: Sequence, n_batches: int, key=None) -> list[list]:
    """Deal ``cells`` into at most ``n_batches`` non-empty batches, round robin.

    With ``key`` (e.g. the algorithm of a cell), cells are first ordered by key (stable), so
    the cells of one key, which cost about the same, are spread over consecutive batches
    instead of piling up in one: the batches' costs stay balanced without a cost model.
    Deterministic: the same cells always give the same batches.
    """
    if n_batches < 1:
        raise ValueError(f"n_batches must be >= 1, got {n_batches}")
    order = list(cells)
    if key is not None:
        first = {}
        for c in order:
            first.setdefault(key(c), len(first))
        order.sort(key=lambda c: first[key(c)])
    n = min(n_batches, len(order))
    return [order[b::n] for b in range(n)] if n else []


class CellBatch(tuple):
    """The cells of one batch job (its ``params.cells``), shown by their digest.

    Snakemake keeps the ``repr`` of each parameter of a job in the metadata record of every
    output of the job, to rerun it when a parameter changes. A batch job has two outputs per
    cell and its parameter is the list of its cells, so the records of a batch of ``n``
    cells would hold ``2 n`` copies of all ``n`` cells: 212 MB for the 360 shards of the
    paper-scale stopping-time experiment, read back by every later run. The ``repr`` of a
    ``CellBatch`` is its number of cells and the SHA-256 of their canonical JSON, which
    changes with any parameter, file or log of any cell. The job itself
    receives the cells (a tuple: ``batch[i]``, ``len(batch)``, iteration).
    """

    __slots__ = ()

    def digest(self) -> str:
        """SHA-256 of the cells' JSON (keys sorted, no spaces; other values by ``repr``)."""
        text = json.dumps(list(self), sort_keys=True, separators=(",", ":"), default=repr)
        return hashlib.sha256(text.encode()).hexdigest()

    def __repr__(self) -> str:
        return f"CellBatch(cells={len(self)}, sha256={self.digest()})"


#: The cells of the running pool, read by its forked workers (:func:`_run_pooled`).
_POOL_CELLS: Sequence[Mapping] = ()


def _run_cell(cell: Mapping) -> float:
    """Run one cell; its CPU seconds."""
    # the cells load the experiments (pandas, numba): in the process that runs them
    from baiuv.pipeline.cells import SHARD_KINDS

    t0 = time.process_time()
    SHARD_KINDS[cell["kind"]](cell["params"], cell["output"], cell["log"])
    return time.process_time() - t0


def _end_with_the_batch(batch_pid: int) -> None:
    """Initializer of the pool's workers: a worker ends when the batch process does.

    Pool workers otherwise finish the shard they hold when the batch process is killed (by
    a signal to its process alone), and write its files after the job has failed. On
    Linux the kernel sends the worker SIGTERM when its parent exits (``prctl``
    ``PR_SET_PDEATHSIG``); a parent gone before that was set ends the worker at once."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # 1: PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # not Linux: the worker ends once its queue closes
        pass
    if os.getppid() != batch_pid:
        os._exit(1)


def _run_pooled(i: int) -> tuple[int, float]:
    """Worker of the pool: run cell ``i`` of :data:`_POOL_CELLS`; ``(i, CPU seconds)``. An
    error is logged to the cell's own log before it reaches the batch."""
    try:
        return i, _run_cell(_POOL_CELLS[i])
    except BaseException:
        logging.getLogger("baiuv").exception("shard failed: %s", _POOL_CELLS[i]["output"]["runs"])
        raise


def _children_cpu() -> float:
    """CPU seconds of the child processes this process waited for (0 without ``resource``)."""
    try:
        import resource  # Unix only
    except ImportError:  # pragma: no cover - not Unix: no fork, no children
        return 0.0
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def _log_total(log: logging.Logger, n: int, shards_cpu: float) -> None:
    """Last line of a batch's log: the CPU of its shards, and of the whole job since its
    process started (interpreter, imports and workers included; what
    ``benchmarks/bench_pipeline.py`` compares with the runs' own time)."""
    job_cpu = time.process_time() + _children_cpu()
    log.info("%d shards in %.2f CPU s; this job %.2f CPU s since its start", n, shards_cpu, job_cpu)


def pool_workers(workers: int, n_cells: int) -> int:
    """Worker processes for ``n_cells`` cells on ``workers`` cores: ``0`` (run them in this
    process) with one core, one cell, or no ``fork`` start method on this platform, else
    ``min(workers, n_cells)``."""
    if workers < 1:
        raise ValueError(f"workers must be >= 1, got {workers!r}")
    if workers == 1 or n_cells < 2 or "fork" not in multiprocessing.get_all_start_methods():
        return 0
    return min(workers, n_cells)


def run_cells(cells: Sequence[Mapping], log: logging.Logger, workers: int = 1) -> None:
    """Run the shards ``cells``, on ``workers`` cores.

    Each cell is a mapping with ``kind`` (a key of :data:`baiuv.pipeline.cells.SHARD_KINDS`),
    ``params``, ``output`` (``runs``, ``timings``) and ``log`` (the shard's own log file).

    With one worker the cells run one after the other in this process. With more, this
    process first imports what the shard functions use and loads the compiled kernels
    (:func:`baiuv.pipeline.cells.preload`), then forks ``workers`` processes that take the
    cells in their order, one at a time, as they become free: the start-up (interpreter,
    pandas, pyarrow, numba's registries, the kernels) is paid once per batch instead of once
    per process, and a costly shard does not hold up the others. Each shard writes its own
    files, so the files do not depend on which process ran which shard. The first error
    stops the batch and is raised here.
    """
    # the cells load the experiments (pandas, numba): in the process that runs them
    from baiuv.pipeline.cells import SHARD_KINDS, preload

    unknown = sorted({c["kind"] for c in cells} - set(SHARD_KINDS))
    if unknown:
        raise ValueError(f"unknown shard kind(s) {unknown}; known: {sorted(SHARD_KINDS)}")
    start = time.process_time()
    n_workers = pool_workers(workers, len(cells))

    def done(i: int, cpu: float) -> None:
        log.info(
            "shard %d/%d (%s) done in %.2f CPU s: %s",
            i + 1,
            len(cells),
            cells[i]["kind"],
            cpu,
            cells[i]["output"]["runs"],
        )

    if not n_workers:
        for i, cell in enumerate(cells):
            done(i, _run_cell(cell))
        _log_total(log, len(cells), time.process_time() - start)
        return
    global _POOL_CELLS
    preload({c["kind"] for c in cells})
    log.info("%d shards on %d worker processes", len(cells), n_workers)
    _POOL_CELLS = cells
    try:
        ctx = multiprocessing.get_context("fork")
        with ctx.Pool(n_workers, _end_with_the_batch, (os.getpid(),)) as pool:
            for i, cpu in pool.imap_unordered(_run_pooled, range(len(cells)), chunksize=1):
                done(i, cpu)
            pool.close()  # the workers exit once idle (an error instead terminates them)
            pool.join()
    finally:
        _POOL_CELLS = ()
    _log_total(log, len(cells), time.process_time() - start + _children_cpu())
