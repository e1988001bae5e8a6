"""Public GLR statistics (Section ``ssec:GLR_stopping_rule`` and Lemma ``lem:glrt_formula_gaussian``)."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from baiuv.model.glr_kernels import glr_stats
from baiuv.model.validate import as_vector, check_positive, check_same_length


def glr_statistics(
    counts: ArrayLike, means: ArrayLike, variances: ArrayLike, *, known_variance: bool = False
) -> np.ndarray:
    """GLR statistics of every arm against the empirical best arm.

    Parameters
    ----------
    counts : array_like, shape (K,)
        Number of samples ``N_{t,a}`` of each arm (> 0).
    means : array_like, shape (K,)
        Empirical means ``mu_{t,a}``.
    variances : array_like, shape (K,)
        Empirical (biased, 1/N) variances ``sigma^2_{t,a}`` (> 0).
    known_variance : bool
        ``False``: the unknown-variance statistic ``Z_a(t)`` (infimum over
        ``lambda in [mu_{t,a}, mu_{t,best}]`` of ``sum N_b/2 log(1 + (mu_b - lambda)^2 /
        sigma_b^2)``); ``True``: the EV-GLR statistic ``Z^EV_a(t)`` (closed form with the
        empirical variance plugged in).

    Returns
    -------
    numpy.ndarray, shape (K,)
        ``Z_a(t)`` for each arm, ``+inf`` at the empirical best arm (first maximiser).
    """
    counts = as_vector(counts, "counts", min_len=2)
    means = as_vector(means, "means", min_len=2)
    variances = as_vector(variances, "variances", min_len=2)
    check_same_length(counts, means, "counts", "means")
    check_same_length(counts, variances, "counts", "variances")
    check_positive(counts, "counts")
    check_positive(variances, "variances")
    return glr_stats(counts, means, variances, bool(known_variance))
