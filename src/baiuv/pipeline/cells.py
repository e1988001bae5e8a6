"""One shard of an experiment, as a plain function: the work of one shard job.

:func:`run_shard` runs one shard of a kind of the experiments' records
(:class:`baiuv.experiments.spec.ShardKind`: its ``run`` simulates the shard) and writes its
result and timing files (:func:`baiuv.storage.shards.write_shard`). ``params`` is the
mapping of the shard rule's parameters (the kind's ``plan``), ``output`` maps ``"runs"`` and
``"timings"`` to the two files, ``log_path`` is the shard's log. The shard rules
(``workflow/scripts/shard.py``, one job per shard, the cluster's unit) and the batch runner
(:mod:`baiuv.pipeline.batches`, many shards per process in local runs) call the same
function, so a shard file has the same bytes whichever ran it.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Mapping

import numpy as np

from baiuv.model.characteristic import characteristic_time
from baiuv.pipeline.logs import Progress, setup_logging
from baiuv.pipeline.specs import specs
from baiuv.storage.shards import write_shard
from baiuv.warmup import compile_simulation_kernels

__all__ = ["SHARD_KINDS", "preload", "run_shard", "shard_kinds"]


def shard_kinds() -> dict:
    """The shard kinds of every experiment's record, by name."""
    return {k.name: k for s in specs() for k in s.shard_kinds}


def run_shard(kind: str, p: Mapping, output: Mapping[str, str], log_path: str | None) -> None:
    """One shard of the kind ``kind``: simulated, then its runs and timings written."""
    log = setup_logging(log_path)
    df, meta, label = shard_kinds()[kind].run(p, lambda name: Progress(log, name))
    write_shard(df, output["runs"], meta, log, label, output["timings"])


#: The shard functions ``f(params, output, log_path)`` by the name of their kind.
SHARD_KINDS = {name: functools.partial(run_shard, name) for name in shard_kinds()}


def preload(kinds) -> None:
    """Import what the shard functions of ``kinds`` use (pandas and pyarrow included) and
    load the compiled simulation kernels and the oracle (compiling them if numba's cache
    lacks them), without running a shard or writing a file: processes forked afterwards
    (:func:`baiuv.pipeline.batches.run_cells`) start with all of it loaded."""
    import pyarrow.parquet  # noqa: F401 - loaded before the fork, used by every shard

    known = shard_kinds()
    for kind in sorted(kinds):
        for module in known[kind].modules if kind in known else ():
            importlib.import_module(module)
    compile_simulation_kernels("loops")
    characteristic_time(np.array([1.0, 0.5]), np.array([1.0, 1.0]))
