"""Gaussian bandit instances: validation, the paper's named instances, random instances."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

import numpy as np

from baiuv.model.characteristic import characteristic_time, optimal_allocation
from baiuv.model.validate import check_instance


@dataclass(frozen=True)
class GaussianInstance:
    """A Gaussian bandit ``(mu, sigma^2)`` with a unique best arm.

    Raises ``ValueError`` (naming the field) on non-finite values, variances <= 0,
    ``K < 2``, lengths that differ or a tie for the best arm.
    """

    mu: np.ndarray
    sigma2: np.ndarray
    name: str | None = field(default=None, compare=False)

    def __post_init__(self):
        mu, sigma2 = check_instance(self.mu, self.sigma2)
        mu.setflags(write=False)
        sigma2.setflags(write=False)
        object.__setattr__(self, "mu", mu)
        object.__setattr__(self, "sigma2", sigma2)

    @property
    def K(self) -> int:
        """Number of arms."""
        return int(self.mu.size)

    @functools.cached_property
    def best_arm(self) -> int:
        """Index of the best arm (computed once: the arrays are read-only)."""
        return int(np.argmax(self.mu))

    def characteristic_time(self, **kw) -> float:
        """:func:`baiuv.characteristic_time` of this instance (same keyword arguments)."""
        return characteristic_time(self.mu, self.sigma2, **kw)

    def optimal_allocation(self, **kw) -> np.ndarray:
        """:func:`baiuv.optimal_allocation` of this instance (same keyword arguments)."""
        return optimal_allocation(self.mu, self.sigma2, **kw)

    def to_dict(self) -> dict:
        """``{"name", "mu", "sigma2"}`` with plain lists (JSON- and YAML-ready)."""
        return {"name": self.name, "mu": self.mu.tolist(), "sigma2": self.sigma2.tolist()}


#: The "standard" instance of Section ``ssec:experiments`` (Figure 2, left).
STANDARD = GaussianInstance(
    np.array([1.0, 0.85, 0.8, 0.7, 0.65]), np.array([1.0, 0.6, 0.5, 0.4, 0.35]), "standard"
)
#: The "easy" instance of Section ``ssec:experiments`` (Figure 2, right).
EASY = GaussianInstance(
    np.array([1.0, 0.2, 0.15, 0.1, 0.05]), np.array([1.0, 0.05, 0.05, 0.05, 0.05]), "easy"
)


def random_instance(
    rng: np.random.Generator,
    K: int = 10,
    gap_range: tuple[float, float] = (0.2, 1.0),
    var_range: tuple[float, float] = (0.1, 10.0),
    name: str | None = None,
) -> GaussianInstance:
    """Random instance of Section ``ssec:experiments``: ``(mu_1, s2_1) = (0, 1)``,
    ``mu_a = -Delta_a``, ``Delta_a ~ U[gap_range]``, ``s2_a ~ U[var_range]`` for ``a != 1``."""
    if K < 2:
        raise ValueError(f"K must be >= 2, got {K}")
    lo, hi = gap_range
    if not (0 < lo <= hi):
        raise ValueError(f"gap_range must satisfy 0 < low <= high, got {gap_range}")
    vlo, vhi = var_range
    if not (0 < vlo <= vhi):
        raise ValueError(f"var_range must satisfy 0 < low <= high, got {var_range}")
    gaps = rng.uniform(lo, hi, size=K - 1)
    var = rng.uniform(vlo, vhi, size=K - 1)
    return GaussianInstance(np.r_[0.0, -gaps], np.r_[1.0, var], name)
