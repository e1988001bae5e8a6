"""Value grids of the config (``{min, max, num, scale}`` entries of the schema's ``grid``)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

__all__ = ["grid"]


def grid(spec: Mapping, *, integer: bool = False) -> np.ndarray:
    """Grid from ``{"min", "max", "num", "scale": "log"|"linear"}`` (default ``"log"``).

    ``np.geomspace`` (log) or ``np.linspace`` (linear) from ``min`` to ``max`` with ``num``
    points; with ``integer`` the sorted unique rounded values (``int64``). ``ValueError``
    unless ``min <= max``, ``num >= 1``, ``min > 0`` on a log scale and ``scale`` is
    ``"log"`` or ``"linear"``.
    """
    lo, hi, num = float(spec["min"]), float(spec["max"]), int(spec["num"])
    scale = spec.get("scale", "log")
    if scale not in ("log", "linear"):
        raise ValueError(f"grid scale must be 'log' or 'linear', got {scale!r}")
    if num < 1 or hi < lo or (scale == "log" and lo <= 0):
        raise ValueError(f"grid needs min <= max, num >= 1 (and min > 0 for log), got {spec}")
    vals = np.geomspace(lo, hi, num) if scale == "log" else np.linspace(lo, hi, num)
    if integer:
        vals = np.unique(np.round(vals).astype(np.int64))
    return vals
