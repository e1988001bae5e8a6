"""baiuv: best-arm identification for Gaussian bandits with unknown variances.

Reproducible artifact of Jourdan, Degenne and Kaufmann, "Dealing with Unknown Variances in
Best-Arm Identification" (ALT 2023).

The public names below are imported on first use (PEP 562, :mod:`baiuv._deferred`), so
``import baiuv`` and the light helper modules (``baiuv.storage.io``, ``baiuv.pipeline.logs``,
``baiuv.pipeline.config``, ...) do not pay for scipy, the threshold kernels and the simulation
engine: every pipeline job and every Snakemake parse imports the package (decision D105).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from baiuv._deferred import deferred_attributes
from baiuv.storage.numba_setup import configure as _configure_numba_cache

_configure_numba_cache()  # before any kernel is compiled (decision D19)

__version__ = "0.1.0"

__all__ = [
    "BestArmIdentifier",
    "EASY",
    "GaussianInstance",
    "STANDARD",
    "characteristic_time",
    "complexity_d",
    "complexity_ratio",
    "glr_statistics",
    "optimal_allocation",
    "random_instance",
    "ratio_upper_bound",
]

__getattr__, __dir__ = deferred_attributes(
    __name__,
    {
        "BestArmIdentifier": ".simulation.identify",
        "EASY": ".model.instance",
        "GaussianInstance": ".model.instance",
        "STANDARD": ".model.instance",
        "characteristic_time": ".model.characteristic",
        "complexity_d": ".model.characteristic",
        "complexity_ratio": ".model.characteristic",
        "glr_statistics": ".model.glr",
        "optimal_allocation": ".model.characteristic",
        "random_instance": ".model.instance",
        "ratio_upper_bound": ".model.characteristic",
    },
    globals(),
)

if TYPE_CHECKING:  # static analysers and IDEs see the real names
    from baiuv.model.characteristic import (
        characteristic_time,
        complexity_d,
        complexity_ratio,
        optimal_allocation,
        ratio_upper_bound,
    )
    from baiuv.model.glr import glr_statistics
    from baiuv.model.instance import EASY, STANDARD, GaussianInstance, random_instance
    from baiuv.simulation.identify import BestArmIdentifier
