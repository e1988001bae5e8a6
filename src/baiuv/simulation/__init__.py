"""Sampling rules and the simulation engine of the stopping-time experiments.

See :mod:`baiuv.simulation.engine` (registry, runs, shards) and
:mod:`baiuv.simulation.rules` (numba kernels; how to add a rule).

Names are imported on first use (:mod:`baiuv._deferred`, decision D105).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from baiuv._deferred import deferred_attributes

__all__ = [
    "ALGORITHMS",
    "Algorithm",
    "Experiment",
    "RunSettings",
    "aggregate_shards",
    "experiment_from_config",
    "fhn_n0",
    "run_shard",
    "shard_runs",
    "simulate_run",
]

__getattr__, __dir__ = deferred_attributes(
    __name__,
    {
        "ALGORITHMS": ".engine",
        "Algorithm": ".engine",
        "Experiment": ".engine",
        "RunSettings": ".engine",
        "aggregate_shards": ".engine",
        "experiment_from_config": ".engine",
        "fhn_n0": ".engine",
        "run_shard": ".engine",
        "shard_runs": ".engine",
        "simulate_run": ".engine",
    },
    globals(),
)

if TYPE_CHECKING:  # static analysers and IDEs see the real names
    from baiuv.simulation.engine import (
        ALGORITHMS,
        Algorithm,
        Experiment,
        RunSettings,
        aggregate_shards,
        experiment_from_config,
        fhn_n0,
        run_shard,
        shard_runs,
        simulate_run,
    )
