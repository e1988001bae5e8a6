"""An indifference zone for the GLR stopping rules: ε-best-arm identification.

With ``epsilon > 0`` the GLR (or EV-GLR) stopping rule of Section 2.3 (Equations (4) and
(5) of the paper) tests, for each challenger ``a``, the alternatives where ``a`` beats the
empirical best arm :math:`\\hat a_t` by *more than* ε:

.. math:: Z^\\varepsilon_a(t) = \\inf_{\\lambda_a \\ge \\lambda_{\\hat a_t} + \\varepsilon}
   \\sum_{b \\in \\{a, \\hat a_t\\}} \\frac{N_{t,b}}{2}
   \\ln\\Big(1 + \\frac{(\\mu_{t,b} - \\lambda_b)^2}{\\sigma_{t,b}^2}\\Big)

(and its EV-GLR version with :math:`N_{t,b} (\\mu_{t,b} - \\lambda_b)^2 / (2 \\sigma_{t,b}^2)`),
and stops when :math:`Z^\\varepsilon_a(t) > c_{\\hat a_t, a}(N_t, \\delta)` for every
challenger, with the same thresholds. The substitution :math:`\\lambda_a = \\lambda'_a +
\\varepsilon` shows that :math:`Z^\\varepsilon_a(t)` is the ordinary statistic with the
challenger's empirical mean :math:`\\mu_{t,a}` replaced by :math:`\\mu_{t,a} - \\varepsilon`,
the variances untouched (decision D290); the stopping check
(:func:`baiuv.simulation.rules.glr_stop_check`, and
:func:`baiuv.simulation.rules.epsilon_stats_into` for the identifier's report) computes it
so, reading ε from the
threshold parameters (slot ``P_EPS`` of :mod:`baiuv.thresholds.kernels`, which no
threshold reads). The recommendation stays the empirical best arm.

Sampling. TCI and EV-TCI take their challenger with the same statistic,
:math:`\\arg\\min_{a \\ne \\hat a_t} Z^\\varepsilon_a(t) + \\ln N_{t,a}`: the challenger of
EB-TCε (Jourdan, Degenne and Kaufmann, NeurIPS 2023) with the penalty of TCI kept
(D323: the Top Two rules take their challenger with the run's sampling epsilon), so that
two tied best arms do not hold back the sampling of the others and the rule stops. The
zone they read is the run's (``RunSettings.sampling_epsilon``, default ``epsilon``; a
stopping level's ``epsilon`` changes its stopping only, D324: a stopping level's epsilon
changes its stopping only). The other rules (Track-and-Stop, DKM, FWS, uniform) track the
allocation of exact identification and do not read ε.

Guarantee (decision D292). With a threshold family that the paper proves δ-correct through
the concentration conditions of its Lemma 48 (every δ-correct family of the paper), the
recommended arm is within ε of the best with probability at least :math:`1 - \\delta`,
whatever the sampling rule: if the rule stops recommending an arm ``a`` with
:math:`\\mu_a < \\mu_{a^\\star} - \\varepsilon`, the true means lie in the alternative set of
the pair :math:`(a, a^\\star)`, so :math:`Z^\\varepsilon_{a^\\star}` is at most the pair's
concentration term of Lemma 48, which exceeds its threshold with probability at most δ
over all times. This holds with several best arms too (take any of them as
:math:`a^\\star`).

The p-value (:mod:`baiuv.simulation.p_value`) computed on :math:`Z^\\varepsilon` is then an
anytime-valid p-value of "the recommended arm is more than ε below the best" (D293: the
p-value with an indifference zone).
"""

from __future__ import annotations

import math
import numbers

import numpy as np

__all__ = [
    "MAX_EPSILON",
    "check_epsilon",
    "is_epsilon_good",
    "stopping_statistics",
    "with_epsilon",
]

#: Largest ε accepted: the magnitude bound of an observation
#: (:data:`baiuv.simulation.data_shape.MAX_ABS_VALUE`), so that a shifted mean stays within
#: the range where the statistics are finite (D191: certified arms keep them finite).
MAX_EPSILON = 1e50


def check_epsilon(value, name: str = "epsilon") -> float:
    """``value`` as a float if it is a finite real number in ``[0, MAX_EPSILON]``;
    ``ValueError`` naming ``name`` otherwise."""
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool)
    if ok:
        v = float(value)
        ok = math.isfinite(v) and 0.0 <= v <= MAX_EPSILON
    if not ok:
        raise ValueError(
            f"{name} must be a finite number >= 0 (and at most {MAX_EPSILON:g}): the "
            f"indifference zone, 0 for exact best-arm identification; got {value!r}"
        )
    return v + 0.0  # -0.0 as 0.0


def with_epsilon(spec, epsilon: float):
    """The threshold specification ``spec`` (:class:`~baiuv.thresholds.ThresholdSpec`)
    with the indifference zone ``epsilon`` in its parameters: ``spec`` itself when
    ``epsilon == 0``, else a copy (the specifications are cached and shared)."""
    if epsilon == 0.0:
        return spec
    from baiuv.thresholds.kernels import P_EPS  # numba's, loaded with the kernels (D227)

    fp = spec.fparams.copy()
    fp[P_EPS] = float(epsilon)
    return spec._replace(fparams=fp)


def stopping_statistics(Z, counts, means, variances, plug_in, best, epsilon) -> np.ndarray:
    """The statistics the stopping rule compares with its thresholds: ``Z`` (the GLR or
    EV-GLR statistics against ``best``, those the sampling rules read) when ``epsilon ==
    0``, else :math:`Z^\\varepsilon` in a new array
    (:func:`~baiuv.simulation.rules.epsilon_stats_into`)."""
    if epsilon == 0.0:
        return Z
    # numba's kernels, loaded by the first run (D227)
    from baiuv.simulation import rules

    out = np.empty(means.shape[0])
    rules.epsilon_stats_into(counts, means, variances, plug_in, best, epsilon, out)
    return out


def is_epsilon_good(mu, arm: int, epsilon: float) -> bool:
    """Whether ``arm`` is within ``epsilon`` of the best of the means ``mu``
    (:math:`\\mu_{arm} \\ge \\max_b \\mu_b - \\varepsilon`): a correct answer of
    ε-best-arm identification."""
    mu = np.asarray(mu, dtype=np.float64)
    return bool(mu[arm] >= mu.max() - epsilon)
