"""Characteristic times and optimal allocations (Appendix ``app:characteristic_times``).

Public, validated front-ends to the compiled oracles of :mod:`baiuv.model.oracle`. numba
and the oracles load with the first characteristic time or allocation a process computes,
not with this module, so the modules that import it for its names (the experiments, the
reproduction report) cost a job no numba import unless it computes one.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from baiuv._deferred import DeferredModule
from baiuv.model.validate import check_beta, check_instance, unique_best

Method = Literal["fast", "bisection"]

_oracles = DeferredModule("baiuv.model.oracle")


def _oracle(mu, sigma2, known_variance, beta, method):
    mu, sigma2 = check_instance(mu, sigma2)
    b = check_beta(beta)
    best = unique_best(mu)
    if method == "fast":
        # writable C-contiguous copies: the argument types under which the simulation
        # kernels compile the warm-started oracle, loaded from numba's cache (D220)
        mu, sigma2 = np.array(mu, order="C"), np.array(sigma2, order="C")
        return _oracles.oracle_fast(mu, sigma2, best, bool(known_variance), b)
    if method == "bisection":
        return _oracles.oracle_bisection(mu, sigma2, best, bool(known_variance), b)
    raise ValueError(f"method must be 'fast' or 'bisection', got {method!r}")


def characteristic_time(
    mu: ArrayLike,
    sigma2: ArrayLike,
    *,
    known_variance: bool = False,
    beta: float | None = None,
    method: Method = "fast",
) -> float:
    """Characteristic time of a Gaussian instance.

    ``T*(mu, sigma^2)`` (unknown variances) or ``T*_{sigma^2}(mu)`` (``known_variance``),
    or their beta-versions ``T*_beta`` when ``beta`` is given (``w_{a*} = beta``);
    Lemma ``lem:lower_bound_sample_complexity`` and Theorem
    ``thm:equivalent_optimization_problem``.

    Parameters
    ----------
    mu, sigma2 : array_like, shape (K,)
        Means (unique maximum) and variances (> 0), ``K >= 2``.
    known_variance : bool
        Use the known-variance transportation costs.
    beta : float in (0, 1) or None
        Proportion of the best arm for the beta-version.
    method : {"fast", "bisection"}
        ``"fast"``: Brent + Newton (default); ``"bisection"``: the paper's nested binary
        searches (reference mode). They agree to about 1e-12 relative.
    """
    return float(_oracle(mu, sigma2, known_variance, beta, method)[0])


def optimal_allocation(
    mu: ArrayLike,
    sigma2: ArrayLike,
    *,
    known_variance: bool = False,
    beta: float | None = None,
    method: Method = "fast",
) -> np.ndarray:
    """Optimal allocation ``w*(mu, sigma^2)`` (or ``w*_{sigma^2}(mu)``, or beta-versions).

    Same parameters as :func:`characteristic_time`; returns a positive vector summing to 1
    (Theorem ``thm:equivalent_optimization_problem``).
    """
    return np.asarray(_oracle(mu, sigma2, known_variance, beta, method)[1])


def complexity_d(mu: ArrayLike, sigma2: ArrayLike) -> float:
    """``d(mu, sigma^2) = max_{a != a*} (mu_{a*} - mu_a)^2 / min(sigma_a^2, sigma_{a*}^2)``
    (Lemma ``lem:complexity_inequalities``)."""
    mu, sigma2 = check_instance(mu, sigma2)
    best = unique_best(mu)
    others = np.arange(mu.size) != best
    return float(np.max((mu[best] - mu[others]) ** 2 / np.minimum(sigma2[others], sigma2[best])))


def ratio_upper_bound(mu: ArrayLike, sigma2: ArrayLike) -> float:
    """Upper bound ``d / ln(1 + d)`` on ``T*/T*_{sigma^2}`` (Lemma ``lem:complexity_inequalities``)."""
    d = complexity_d(mu, sigma2)
    return float(d / np.log1p(d))


def complexity_ratio(mu: ArrayLike, sigma2: ArrayLike, *, beta: float | None = None) -> float:
    """``T*(mu, sigma^2) / T*_{sigma^2}(mu)`` (or the beta-version ratio)."""
    return characteristic_time(mu, sigma2, beta=beta) / characteristic_time(
        mu, sigma2, known_variance=True, beta=beta
    )
