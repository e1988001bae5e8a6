"""Runs without the cached bounds of the pair thresholds, the reference the cache tests
compare with (decisions D254, D348, D349)."""

from __future__ import annotations

import contextlib
import math

from baiuv.simulation import engine, identify
from baiuv.thresholds import kernels as k
from baiuv.thresholds.families import ThresholdSpec


@contextlib.contextmanager
def without_cached_bounds(monkeypatch):
    """Every threshold spec of the simulator and the identifier with ``P_LB_NMIN = inf``
    and ``P_LB_MODE = LB_NONE``: no lower or upper bound of a pair threshold is kept."""
    original = engine.threshold_spec

    def spec(*args, **kwargs):
        s = original(*args, **kwargs)
        fp = s.fparams.copy()
        fp[k.P_LB_NMIN] = math.inf
        fp[k.P_LB_MODE] = k.LB_NONE
        return ThresholdSpec(s.code, fp, s.table)

    with monkeypatch.context() as m:
        m.setattr(engine, "threshold_spec", spec)
        m.setattr(identify, "threshold_spec", spec)
        yield
