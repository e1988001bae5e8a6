"""baiuv: best-arm identification for Gaussian bandits with unknown variances.

Reproducible artifact of Jourdan, Degenne and Kaufmann, "Dealing with Unknown Variances in
Best-Arm Identification" (ALT 2023).
"""

from baiuv._numba_setup import configure as _configure_numba_cache

_configure_numba_cache()  # before any kernel is compiled (decision D19)

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

__version__ = "0.1.0"

__all__ = [
    "EASY",
    "STANDARD",
    "BestArmIdentifier",
    "GaussianInstance",
    "characteristic_time",
    "complexity_d",
    "complexity_ratio",
    "glr_statistics",
    "optimal_allocation",
    "random_instance",
    "ratio_upper_bound",
]
