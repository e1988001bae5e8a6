"""The experiments the pipeline runs, in the order of the reproduction report: the paper's
first, then the artifact's own studies (D371: the paper's experiments before the studies).
Each module exports its record ``SPEC`` (:class:`baiuv.experiments.spec.ExperimentSpec`);
the configuration loader, the shard runner, the workflow's targets, batch rules and the
reproduction report iterate over them (D370: one record per experiment).
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Mapping

__all__ = ["SPEC_MODULES", "enabled_specs", "specs"]

#: The modules exporting an experiment's ``SPEC``, in the order of the report.
SPEC_MODULES = (
    "baiuv.experiments.characteristic_times",
    "baiuv.experiments.threshold_claims",
    "baiuv.experiments.stopping_claims",
    "baiuv.experiments.fhn_n0",
    # the artifact's own studies
    "baiuv.studies.asymptotic_claims",
    "baiuv.studies.delta_correct",
    "baiuv.studies.audit",
    "baiuv.studies.ev_remedies",
)


@functools.cache
def specs() -> tuple:
    """The records of every experiment, in the order of :data:`SPEC_MODULES`."""
    return tuple(importlib.import_module(m).SPEC for m in SPEC_MODULES)


def enabled_specs(config: Mapping) -> list:
    """The records of the experiments a validated configuration runs."""
    return [s for s in specs() if s.runs(config)]
