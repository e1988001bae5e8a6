"""The elimination procedures FHN1 and FHN2 (Algorithm ``algo:fhn2``; Fan, Hong and Nelson,
2016; decision D45), with their own stopping (elimination) rule: all surviving arms are
sampled in rounds."""

from __future__ import annotations

import math

import numpy as np
from numba import njit


@njit(cache=True)
def fhn_eliminate(n, means, pair_m2, pair_m2_n0, active, log_term, use_n0):
    """Elimination step of FHN2 (``use_n0=False``) / FHN1 (``use_n0=True``), decision D45.

    With ``S_{b,a}`` the ``1/(n-1)`` empirical variance of the paired differences
    ``X_{s,b} - X_{s,a}`` (``s <= n``, or ``s <= n0`` for FHN1), ``t_{b,a} = n / S_{b,a}``
    and ``g(x) = sqrt((x + 1) (log_term + log(x + 1)))`` with
    ``log_term = 2 log((K-1)/(2 delta))``, an active arm ``b`` is eliminated when
    ``t_{b,a} (mean_b - mean_a) < -g(t_{b,a})`` for some other active arm ``a``. All
    eliminations of one step are decided on the same active set. Returns the number of
    eliminated arms (``active`` is updated in place).
    """
    K = means.shape[0]
    out = np.zeros(K, dtype=np.bool_)
    for b in range(K):
        if not active[b]:
            continue
        for a in range(K):
            if a == b or not active[a]:
                continue
            if use_n0:
                S = pair_m2_n0[b, a]
            else:
                S = pair_m2[b, a] / (n - 1.0)
            if not (S > 0.0):
                continue
            tba = n / S
            g = math.sqrt((tba + 1.0) * (log_term + math.log1p(tba)))
            if tba * (means[b] - means[a]) < -g:
                out[b] = True
                break
    n_out = 0
    for b in range(K):
        if out[b]:
            active[b] = False
            n_out += 1
    return n_out


@njit(cache=True)
def run_fhn(mu, sigma2, n0, log_term, use_n0, rng, max_samples):
    """One run of FHN2 / FHN1 (Algorithm ``algo:fhn2``; Fan, Hong and Nelson, 2016).

    ``n0`` observations of every arm, then rounds: elimination step
    (:func:`fhn_eliminate`), and while more than one arm survives one new observation of
    each surviving arm. Paired-difference statistics are updated with Welford's algorithm.

    Returns ``(tau, recommendation, counts, truncated)`` as :func:`run_glr`.
    """
    K = mu.shape[0]
    sd = np.sqrt(sigma2)
    counts = np.zeros(K, dtype=np.int64)
    means = np.zeros(K)
    pair_mean = np.zeros((K, K))
    pair_m2 = np.zeros((K, K))
    pair_m2_n0 = np.zeros((K, K))
    active = np.ones(K, dtype=np.bool_)
    x = np.zeros(K)
    n = 0
    t = 0
    n_active = K
    truncated = False
    while True:
        if n >= n0:
            if n == n0:
                for a in range(K):
                    for b in range(K):
                        pair_m2_n0[a, b] = pair_m2[a, b] / (n0 - 1.0)
            # int(): the round typed int64, not as the literal 0 (D225)
            n_active -= fhn_eliminate(int(n), means, pair_m2, pair_m2_n0, active, log_term, use_n0)
            if n_active <= 1:
                break
        if t + n_active > max_samples:
            truncated = True
            break
        # one round: one observation of every active arm
        n += 1
        for a in range(K):
            if active[a]:
                x[a] = mu[a] + sd[a] * rng.standard_normal()
                counts[a] += 1
                means[a] += (x[a] - means[a]) / n
                t += 1
        for a in range(K):
            if not active[a]:
                continue
            for b in range(a + 1, K):
                if not active[b]:
                    continue
                d = x[a] - x[b]
                delta = d - pair_mean[a, b]
                pair_mean[a, b] += delta / n
                pair_m2[a, b] += delta * (d - pair_mean[a, b])
                pair_mean[b, a] = -pair_mean[a, b]
                pair_m2[b, a] = pair_m2[a, b]
    rec = -1
    for a in range(K):
        if active[a] and (rec < 0 or means[a] > means[rec]):
            rec = a
    return t, rec, counts, truncated
