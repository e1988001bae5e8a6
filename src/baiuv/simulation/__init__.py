"""Sampling rules and the simulation engine of the stopping-time experiments.

See :mod:`baiuv.simulation.engine` (registry, runs, shards) and
:mod:`baiuv.simulation.kernels` (numba kernels; how to add a rule).
"""

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
from baiuv.simulation.summary import error_rates, stopping_time_summary, wilson_interval

__all__ = [
    "ALGORITHMS",
    "Algorithm",
    "Experiment",
    "RunSettings",
    "aggregate_shards",
    "error_rates",
    "experiment_from_config",
    "fhn_n0",
    "run_shard",
    "shard_runs",
    "simulate_run",
    "stopping_time_summary",
    "wilson_interval",
]
