"""The statistics of a GLR run: Welford updates of the counts, means and ``1/N`` empirical
variances (with the threshold state), the GLR statistic of one challenger, and the guard
against degenerate statistics.

The GLR loop (:func:`baiuv.simulation.rules.run_glr`) and
:class:`baiuv.simulation.identify.BestArmIdentifier` call the same functions, so a run of
the identifier fed with draws from an instance is the simulator's run (decision D72).
"""

from __future__ import annotations

import math

from numba import njit

from baiuv.model.transport import tc_known, tc_unknown
from baiuv.thresholds.kernels import has_state, update_state

# pair_stat takes scalars only: the kernels of the GLR loop call it with the entries of
# their (borrowed, decision D247) arrays.


@njit(cache=True)
def welford(arm, x, counts, means, m2, variances):
    """Welford update of ``arm``'s count, mean and ``1/N`` variance with ``x``; returns the
    new count. Small on purpose: the simulation loop calls it at every sample and numba
    inlines it (a call of a function that contains the threshold-state update costs about
    100 ns per sample even when the update is skipped; decision D160)."""
    n = counts[arm] + 1
    d = x - means[arm]
    means[arm] += d / n
    m2[arm] += d * (x - means[arm])
    counts[arm] = n
    variances[arm] = m2[arm] / n
    return n


@njit(cache=True)
def observe_update(arm, x, stats, family, states):
    """Add observation ``x`` of ``arm`` to ``stats = (counts, means, m2, variances)``:
    Welford update of its count, mean and ``1/N`` empirical variance (Section
    ``ssec:GLR_stopping_rule``), then of its threshold state ``states[arm]``
    (``baiuv.thresholds.kernels.update_state`` of the family ``family = (thr_code,
    thr_fparams)``, per-arm peeling statistics of Theorem
    ``thm:delta_correct_complex_threshold_glrt``)."""
    counts, means, m2, variances = stats
    thr_code, thr_fparams = family
    n = welford(arm, x, counts, means, m2, variances)
    if has_state(thr_fparams):
        update_state(thr_code, thr_fparams, states[arm], n, means[arm], variances[arm])


@njit(cache=True)
def draw(arm, mu, sd, rng):
    """One Gaussian observation ``mu_a + sigma_a Z`` from the run's stream."""
    return mu[arm] + sd[arm] * rng.standard_normal()


@njit(cache=True)
def draw_observe(arm, bandit, rng, stats, family, states):
    """Draw one observation of ``arm`` (:func:`draw`, ``bandit = (mu, sd)``) and add it
    (:func:`observe_update`)."""
    mu, sd = bandit
    observe_update(arm, draw(arm, mu, sd, rng), stats, family, states)


@njit(cache=True)
def certified_arm(mean, variance):
    """``True`` when an arm's statistics cannot make the GLR loop's statistics degenerate
    (decision D191): ``1e-100 <= variance <= 1e100`` and ``|mean| <= 1e50``. When every arm
    is certified (counts between 1 and ``2^63``), every ``Z_a(t)`` and ``Z^EV_a(t)`` is
    finite, so :func:`degenerate_arm` returns ``-1`` without reading them."""
    return 1e-100 <= variance <= 1e100 and abs(mean) <= 1e50


@njit(cache=True)
def degenerate_arm(counts, variances, Z, best):
    """Guard of the GLR loop against degenerate statistics (decision D120).

    The statistics are *degenerate* when some arm has no positive empirical variance (all
    its observations are equal) or some challenger's GLR statistic is ``nan`` or ``+inf``
    (zero variance, equal constant arms, overflow). Returns ``-1`` when they are not, and
    otherwise the arm to sample next: the least-sampled arm, an arm with zero variance
    first on equal counts, then the first index (forced exploration). While the
    statistics are degenerate the stopping rule does not stop and the sampling rule is not
    consulted. On Gaussian observations (``n0 >= 2``) this never happens (probability 0),
    so the loop is unchanged.
    """
    K = counts.shape[0]
    bad = False
    for a in range(K):
        if not (variances[a] > 0.0) or (a != best and not (Z[a] < math.inf)):
            bad = True
            break
    if not bad:
        return -1
    arm = 0
    for a in range(1, K):
        if counts[a] < counts[arm] or (
            counts[a] == counts[arm] and not (variances[a] > 0.0) and variances[arm] > 0.0
        ):
            arm = a
    return arm


@njit(cache=True, inline="always")
def pair_stat(plug_in, mb, sb, nb, ma, sa, na):
    """``Z^EV`` (``tc_known``) or ``Z`` (``tc_unknown``) of a challenger with statistics
    ``(ma, sa, na)`` against the empirical best arm ``(mb, sb, nb)``."""
    if plug_in:
        return tc_known(mb, sb, nb, ma, sa, na)
    return tc_unknown(mb, sb, nb, ma, sa, na)


@njit(cache=True)
def epsilon_stats_into(counts, means, variances, plug_in, best, epsilon, out):
    """The statistics the stopping rule compares with its thresholds, written to ``out``:
    ``Z_a`` (``plug_in``: ``Z^EV_a``) of every challenger against ``best`` with the
    challenger's mean shifted by ``-epsilon``, as
    :func:`~baiuv.simulation.rules.glr_stop_check` computes them (D290: the epsilon-GLR is
    the GLR with the challenger's mean shifted by -epsilon); ``inf`` at ``best``."""
    mb = means[best]
    sb = variances[best]
    nb = counts[best]
    for a in range(means.shape[0]):
        if a == best:
            out[a] = math.inf
        else:
            out[a] = pair_stat(plug_in, mb, sb, nb, means[a] - epsilon, variances[a], counts[a])
