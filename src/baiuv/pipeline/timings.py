"""Which output files are timings, not results (decision D131).

Every result file of the workflow is byte-identical between two runs of the same
configuration, whatever the machine, the executor (local or SLURM) or the number of shards.
Wall-clock measurements cannot be: they live in the files listed by :data:`TIMING_FILES`
and nowhere else.

* ``results/timings/**``: the wall time of every simulated run, one file next to each
  shard and aggregate of ``results/`` (same relative path below ``results/timings/``; the
  run's key columns and ``wall_time`` in seconds, :func:`baiuv.storage.shards.split_timings`), and
  ``results/timings/delta_correct.md`` (mean wall time per run of each cell of the
  δ-correct stopping experiment).
* ``results/timings/threshold_costs.{parquet,md,html}``: the measured cost of one
  evaluation of each threshold family (seconds per call), and its table naming the machine.
* ``results/timings/ipopt_agreement.{parquet,md}``: the solve times of the Ipopt agreement
  (whose values, ``results/thresholds/ipopt_agreement.parquet``, are a result).

Tests comparing two runs compare every file except these (``tests/pipeline_helpers.py``).
"""

from __future__ import annotations

from fnmatch import fnmatchcase
from pathlib import PurePosixPath

__all__ = ["TIMINGS_DIR", "TIMING_FILES", "is_timing_file"]

#: Folder of the per-run wall times (mirrors the layout of ``results/``).
TIMINGS_DIR = "results/timings"

#: Glob patterns (relative to the working directory) of every timing file.
TIMING_FILES = (f"{TIMINGS_DIR}/**",)


def is_timing_file(path: str) -> bool:
    """True if ``path`` (relative to the working directory, ``/``-separated) is a timing
    file (:data:`TIMING_FILES`)."""
    p = PurePosixPath(path).as_posix()
    for pattern in TIMING_FILES:
        if pattern.endswith("/**"):
            if p.startswith(pattern[:-2]):
                return True
        elif fnmatchcase(p, pattern):
            return True
    return False
