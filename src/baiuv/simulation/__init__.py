"""Sampling rules and the simulation engine: one run, the runs of one cell.

See :mod:`baiuv.simulation.engine` (settings, runs, cells) and
:mod:`baiuv.simulation.rules` (numba kernels; how to add a rule).

Names are imported on first use (:mod:`baiuv._deferred`, decision D105).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from baiuv._deferred import deferred_attributes

__all__ = [
    "ALGORITHMS",
    "Algorithm",
    "RunSettings",
    "fhn_n0",
    "plan_experiment",
    "shard_runs",
    "simulate_run",
]

__getattr__, __dir__ = deferred_attributes(
    __name__,
    {
        "ALGORITHMS": ".engine",
        "Algorithm": ".engine",
        "RunSettings": ".engine",
        "fhn_n0": ".engine",
        "plan_experiment": ".plan",
        "shard_runs": ".engine",
        "simulate_run": ".engine",
    },
    globals(),
)

if TYPE_CHECKING:  # static analysers and IDEs see the real names
    from baiuv.simulation.engine import (
        ALGORITHMS,
        Algorithm,
        RunSettings,
        fhn_n0,
        shard_runs,
        simulate_run,
    )
    from baiuv.simulation.plan import plan_experiment
