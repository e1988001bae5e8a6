"""baiuv: best-arm identification for Gaussian bandits with unknown variances.

Reproducible artifact of Jourdan, Degenne and Kaufmann, "Dealing with Unknown Variances in
Best-Arm Identification" (ALT 2023).

The public names below are imported on first use (PEP 562, :mod:`baiuv._lazy`), so
``import baiuv`` and the light helper modules (``baiuv.io``, ``baiuv.logs``,
``baiuv.jobenv``, ...) do not pay for scipy, the threshold kernels and the simulation
engine: every pipeline job and every Snakemake parse imports the package (decision D105).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from baiuv._lazy import lazy_attributes
from baiuv._numba_setup import configure as _configure_numba_cache

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

__getattr__, __dir__ = lazy_attributes(
    __name__,
    {
        "BestArmIdentifier": ".identify",
        "EASY": ".instance",
        "GaussianInstance": ".instance",
        "STANDARD": ".instance",
        "characteristic_time": ".characteristic",
        "complexity_d": ".characteristic",
        "complexity_ratio": ".characteristic",
        "glr_statistics": ".glr",
        "optimal_allocation": ".characteristic",
        "random_instance": ".instance",
        "ratio_upper_bound": ".characteristic",
    },
    globals(),
)

if TYPE_CHECKING:  # static analysers and IDEs see the real names
    from baiuv.characteristic import (
        characteristic_time,
        complexity_d,
        complexity_ratio,
        optimal_allocation,
        ratio_upper_bound,
    )
    from baiuv.glr import glr_statistics
    from baiuv.identify import BestArmIdentifier
    from baiuv.instance import EASY, STANDARD, GaussianInstance, random_instance
