"""Many shards per process in local runs; one job per shard on a cluster (decision D201).

A shard job spends about 1.5–2 s of CPU before its first run (interpreter, pandas, pyarrow,
numba, loading the compiled kernels), which at paper scale (360 simulation shards) is as
much as the runs themselves. Snakemake ignores job groups in local execution, so the
workflow defines, for local runs, one *batch* rule per group of shards
(``<family>_batch_<b>``, ``workflow/rules/batches.smk``) whose job runs its shards one
after the other in one process (:func:`run_cells`), through the same shard functions as
the per-shard jobs (:mod:`baiuv.pipeline.cells`). The shard files, their names and their
bytes are the same either way; only the number of processes changes.

:func:`local_batches` decides, when the Snakefile is parsed, whether shards run in batches:
yes in a local run, no (one job per shard) when a cluster executor runs the workflow
(``--jobs`` given with an executor plugin) or inside a cluster job (``--mode remote``), so
a cluster keeps its per-shard jobs. :func:`batch_count` gives a family of ``n`` shards
``ceil(sqrt(n))`` batches, from the configuration alone (never from ``--cores``, so a later
call with other options reruns nothing); Snakemake's scheduler spreads them over the cores.
The configuration key ``shard_batches`` overrides: ``auto`` (default), ``off``, or a number
of batches per family.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Mapping, Sequence

__all__ = ["batch_count", "local_batches", "run_cells", "split_batches"]


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
    """Number of batches for a family of ``n_cells`` shards: ``ceil(sqrt(n_cells))`` for
    ``"auto"`` (so both the number of processes and the shards per process grow like the
    square root: 36 shards -> 6 batches of 6, 360 -> 19 of at most 19), else ``setting``.
    It depends on the configuration only, never on ``--cores``: a later call with other
    options finds the same jobs and reruns nothing."""
    if n_cells < 1:
        return 0
    if setting == "auto":
        return math.isqrt(n_cells - 1) + 1
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


def run_cells(cells: Sequence[Mapping], log: logging.Logger) -> None:
    """Run the shards ``cells`` one after the other in this process.

    Each cell is a mapping with ``kind`` (a key of :data:`baiuv.pipeline.cells.SHARD_KINDS`),
    ``params``, ``output`` (``runs``, ``timings``) and ``log`` (the shard's own log file).
    """
    from baiuv.pipeline.cells import SHARD_KINDS

    unknown = sorted({c["kind"] for c in cells} - set(SHARD_KINDS))
    if unknown:
        raise ValueError(f"unknown shard kind(s) {unknown}; known: {sorted(SHARD_KINDS)}")
    start = time.process_time()
    for i, cell in enumerate(cells):
        t0 = time.process_time()
        SHARD_KINDS[cell["kind"]](cell["params"], cell["output"], cell["log"])
        log.info(
            "shard %d/%d (%s) done in %.2f CPU s: %s",
            i + 1,
            len(cells),
            cell["kind"],
            time.process_time() - t0,
            cell["output"]["runs"],
        )
    log.info("%d shards in %.2f CPU s", len(cells), time.process_time() - start)
