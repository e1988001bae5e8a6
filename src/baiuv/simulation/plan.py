"""Planning an experiment: how many samples before the best arm is identified?

:func:`plan_experiment` answers the question a practitioner asks before collecting data,
for Gaussian arms with given means and standard deviations and an error probability δ:

* the lower bound of Lemma 2 of the paper: every algorithm that is δ-correct on all
  Gaussian bandits with unknown variances has
  :math:`\\mathbb{E}[\\tau_\\delta] \\ge T^\\star(\\mu, \\sigma^2) \\ln(1/(2.4\\,\\delta))`
  (the constant 2.4 as the paper states it; the bound is vacuous, 0, for
  :math:`\\delta \\ge 1/2.4`);
* the characteristic time :math:`T^\\star(\\mu, \\sigma^2)` and the optimal allocation
  :math:`w^\\star(\\mu, \\sigma^2)` (:func:`baiuv.characteristic_time`,
  :func:`baiuv.optimal_allocation`): the proportions of samples an asymptotically optimal
  rule gives each arm;
* a simulation of the chosen sampling rule and threshold on that instance, through the
  simulator (:class:`baiuv.simulation.engine.Runner`, the code of every experiment of the
  artifact; run ``r`` draws from ``run_seed(seed, "plan", 0, rule, r)``): the mean, median
  and 90th percentile of the stopping time and the error rate with its 95 % Wilson
  interval.

With an indifference zone ``epsilon > 0`` (:mod:`baiuv.simulation.epsilon`) the simulated
rule stops once its recommendation is within ε of the best with probability at least
:math:`1 - \\delta`, an error is a recommendation more than ε below the best, and the best
arm may be tied. No lower bound is given then: Lemma 2 bounds the methods that identify
the best arm itself, which an ε-rule need not do; :math:`T^\\star` and :math:`w^\\star`
(those of exact identification) are given when the best arm is unique (D294: the planner
with an indifference zone).

``baiuv plan --means ... --sd ... --delta ...`` prints it (:mod:`baiuv.cli_plan`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from statistics import NormalDist

import numpy as np

from baiuv.model.characteristic import characteristic_time, optimal_allocation
from baiuv.model.instance import GaussianInstance
from baiuv.model.validate import as_vector, check_integer, check_real
from baiuv.registry import ALGORITHMS, THRESHOLD_FAMILIES
from baiuv.simulation.engine import Runner, RunSettings
from baiuv.simulation.epsilon import check_epsilon, is_epsilon_good
from baiuv.simulation.identify import SAMPLING_RULES, BestArmIdentifier
from baiuv.simulation.rng import generator_of, run_seed
from baiuv.thresholds import EV_FAMILIES, GLR_FAMILIES

__all__ = ["LEMMA2_CONSTANT", "lemma2_lower_bound", "plan_experiment", "wilson_interval"]

#: The constant of Lemma 2 of the paper: ``E[tau] >= T*(mu, sigma^2) ln(1/(2.4 delta))``.
LEMMA2_CONSTANT = 2.4
#: Experiment key of the planner's random streams (``run_seed(seed, "plan", 0, rule, r)``).
PLAN_EXPERIMENT = "plan"
#: Level of the error rate's Wilson interval.
WILSON_LEVEL = 0.95


def lemma2_lower_bound(T_star: float, delta: float) -> float:
    """``T_star ln(1/(2.4 delta))`` of Lemma 2, ``0.0`` when ``delta >= 1/2.4`` (where the
    logarithm is not positive and the bound says nothing)."""
    return max(0.0, T_star * (-math.log(delta) - math.log(LEMMA2_CONSTANT)))


def wilson_interval(errors: int, n: int, level: float = WILSON_LEVEL) -> tuple[float, float]:
    """Wilson score interval of the proportion ``errors / n`` at ``level`` (clamped so that
    it contains the proportion)."""
    z = NormalDist().inv_cdf(0.5 + 0.5 * level)
    p = errors / n
    den = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return min(max(0.0, centre - half), p), max(min(1.0, centre + half), p)


def _sampling(name) -> str:
    if not isinstance(name, str) or name.lower() not in SAMPLING_RULES:
        raise ValueError(f"sampling must be one of {sorted(SAMPLING_RULES)}, got {name!r}")
    return SAMPLING_RULES[name.lower()]


def _threshold(name, sampling: str) -> str:
    plug_in = ALGORITHMS[sampling].plug_in
    if name is None:
        return "ev-bob" if plug_in else "bob"
    allowed = EV_FAMILIES if plug_in else GLR_FAMILIES
    if name not in allowed:
        raise ValueError(
            f"threshold must be one of {list(allowed)} for sampling {sampling!r}, got {name!r}"
        )
    return name


def _instance(means, sd, epsilon: float) -> tuple[GaussianInstance | None, np.ndarray, np.ndarray]:
    """The instance (``None`` when the best arm is tied, allowed with ``epsilon > 0``) and
    its means and variances."""
    mu = as_vector(means, "means", min_len=2)
    s = as_vector(sd, "sd", min_len=2)
    if mu.size != s.size:
        raise ValueError(
            f"means and sd must have the same length, got {mu.size} and {s.size} entries"
        )
    if np.any(s <= 0):
        raise ValueError(f"sd must be > 0; offending indices {np.flatnonzero(s <= 0).tolist()}")
    top = np.flatnonzero(mu == mu.max())
    if top.size > 1:
        if epsilon > 0:
            return None, mu, s * s
        raise ValueError(
            f"means must have a unique largest value (arms {top.tolist()} tie at "
            f"{mu.max():g}): the best arm is then not identifiable (an indifference zone "
            "epsilon > 0 allows ties)"
        )
    return GaussianInstance(mu, s * s), mu, s * s


def plan_experiment(
    means: Sequence[float],
    sd: Sequence[float],
    delta: float,
    *,
    sampling: str = "tci",
    threshold: str | None = None,
    runs: int = 100,
    seed: int = 0,
    max_samples: int | None = None,
    epsilon: float = 0.0,
    batch: int = 1,
    progress: Callable[[int, int], None] | None = None,
) -> dict:
    """How long identifying the best of Gaussian arms takes: bound, allocation, simulation.

    Parameters
    ----------
    means, sd : sequence of float
        Means (a unique largest) and standard deviations (``> 0``) of the ``K >= 2`` arms.
    delta : float
        Error probability in ``(0, 1)``.
    sampling : str
        Sampling rule, as for :class:`baiuv.BestArmIdentifier` (default ``tci``).
    threshold : str or None
        Threshold family (default ``bob``, ``ev-bob`` for the ``ev-`` rules).
    runs : int
        Simulated runs (``0``: bound and allocation only).
    seed : int
        Seed of the runs' random streams.
    max_samples : int or None
        Budget of a run (default: the registry's safety cap); a run reaching it is counted
        in ``truncated`` with its budget as stopping time.
    epsilon : float
        Indifference zone ``>= 0`` (default 0: identify the best arm itself): the rule
        stops once its recommendation is within ``epsilon`` of the best with probability
        at least ``1 - delta``; an error is then a recommendation more than ``epsilon``
        below the best, and the largest mean may be tied.
    batch : int
        Samples assigned at once (default 1: one at a time). With ``batch > 1`` each run is
        the identifier's (:meth:`baiuv.BestArmIdentifier.next_arms`): ``batch`` requests,
        all answered only once the whole batch is sampled (a delay of one batch), the
        stopping rule checked after each answer.
    progress : callable or None
        ``progress(done, total)`` after each run.

    Returns
    -------
    dict
        ``K, means, sd, delta, epsilon, batch, best_arm, T_star, lower_bound`` (Lemma 2),
        ``optimal_allocation`` (:math:`w^\\star`), ``sampling, threshold, delta_correct``
        (whether the family is δ-correct), ``runs, seed, max_samples``, and from the
        simulation (``None`` without runs): ``stopping_time_mean, stopping_time_median,
        stopping_time_p90`` (numpy's linear-interpolation percentile; the observations
        used at the stop), ``samples_drawn_mean`` (whole batches drawn), ``errors,
        error_rate, error_rate_low, error_rate_high`` (95 % Wilson interval), ``truncated``.
        Every value is a number, a string, a bool, a list of numbers or ``None``. With
        ``epsilon > 0``: ``lower_bound`` is ``None``, and ``best_arm``, ``T_star``,
        ``optimal_allocation`` are ``None`` when the best arm is tied.

    Examples
    --------
    >>> from baiuv.simulation.plan import plan_experiment
    >>> p = plan_experiment([1.0, 0.0], [1.0, 1.0], 0.05, runs=0)
    >>> round(p["T_star"], 4), p["optimal_allocation"]
    (8.9628, [0.5, 0.5])
    """
    eps = check_epsilon(epsilon)
    inst, mu, sigma2 = _instance(means, sd, eps)
    d = check_real(delta, "delta", "in (0, 1)")
    if not (0.0 < d < 1.0):
        raise ValueError(f"delta must be in (0, 1), got {delta!r}")
    rule = _sampling(sampling)
    family = _threshold(threshold, rule)
    runs = check_integer(runs, "runs", 0)
    batch = check_integer(batch, "batch", 1)
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise ValueError(f"seed must be an integer >= 0, got {seed!r}")
    settings = RunSettings(
        delta=d,
        threshold=family,
        epsilon=eps,
        **(
            {}
            if max_samples is None
            else {"max_samples": check_integer(max_samples, "max_samples", 1)}
        ),
    )
    K = mu.size
    if settings.max_samples < settings.n0 * K:
        raise ValueError(
            f"max_samples must be at least n0 * K = {settings.n0 * K} (the initial "
            f"samples), got {max_samples!r}"
        )
    T = None if inst is None else float(characteristic_time(mu, sigma2))
    out = {
        "K": K,
        "means": mu.tolist(),
        "sd": np.sqrt(sigma2).tolist(),
        "delta": d,
        "epsilon": eps,
        "batch": batch,
        "best_arm": None if inst is None else inst.best_arm,
        "T_star": T,
        # D294: Lemma 2 bounds exact identification only
        "lower_bound": lemma2_lower_bound(T, d) if eps == 0 else None,
        "optimal_allocation": (
            None if inst is None else [float(x) for x in optimal_allocation(mu, sigma2)]
        ),
        "sampling": rule,
        "threshold": family,
        "delta_correct": bool(THRESHOLD_FAMILIES[family].delta_correct),
        "runs": runs,
        "seed": int(seed),
        "max_samples": int(settings.max_samples),
    }
    out.update(_simulate(mu, sigma2, rule, settings, runs, int(seed), batch, progress))
    return out


def _simulate(mu, sigma2, rule, settings: RunSettings, runs: int, seed: int, batch, progress):
    """The simulation's entries of :func:`plan_experiment` (``None`` without runs): run
    ``r`` draws from the stream ``run_seed(seed, "plan", 0, rule, r)``, one sample at a
    time by :meth:`Runner.result` (called with the means, which may tie when
    ``epsilon > 0``), in batches by :func:`batched_run`; an error is a recommendation more
    than ``epsilon`` below the best."""
    keys = (
        "stopping_time_mean",
        "stopping_time_median",
        "stopping_time_p90",
        "samples_drawn_mean",
        "errors",
        "error_rate",
        "error_rate_low",
        "error_rate_high",
        "truncated",
    )
    if runs == 0:
        return dict.fromkeys(keys)
    runner = Runner(ALGORITHMS[rule], settings) if batch == 1 else None
    taus = np.empty(runs)
    drawn = np.empty(runs)
    errors = truncated = 0
    eps = settings.epsilon
    for r in range(runs):
        rng = generator_of(run_seed(seed, PLAN_EXPERIMENT, 0, rule, r))
        if runner is not None:
            tau, rec, _, trunc, _ = runner(mu, sigma2, rng)
            drawn[r] = tau
        else:
            tau, drawn[r], rec, trunc = batched_run(mu, sigma2, rule, settings, batch, rng)
        taus[r] = tau
        errors += not is_epsilon_good(mu, rec, eps)
        truncated += bool(trunc)
        if progress is not None:
            progress(r + 1, runs)
    lo, hi = wilson_interval(errors, runs)
    return dict(
        zip(
            keys,
            (
                float(taus.mean()),
                float(np.median(taus)),
                float(np.percentile(taus, 90)),
                float(drawn.mean()),
                errors,
                errors / runs,
                lo,
                hi,
                truncated,
            ),
            strict=True,
        )
    )


def batched_run(mu, sigma2, rule: str, settings: RunSettings, batch: int, rng) -> tuple:
    """``(tau, drawn, recommendation, truncated)`` of one run of the identifier in batches
    of ``batch``: ``next_arms(batch)`` (fewer when the budget leaves fewer), the requests
    sampled from ``rng`` (which also draws the identifier's coins) and all answered, in
    order, only then; ``tau`` is the number of observations used at the stop, ``drawn``
    the samples of the whole batches drawn."""
    idf = BestArmIdentifier(
        mu.size,
        settings.delta,
        rule,
        settings.threshold,
        max_samples=settings.max_samples,
        epsilon=settings.epsilon,
        rng=rng,
    )
    sd = np.sqrt(sigma2)
    drawn = 0
    while not idf.done:
        room = settings.max_samples - idf.n_samples - len(idf.pending_arms)
        arms = np.asarray(idf.next_arms(min(batch, room)), dtype=np.int64)
        values = mu[arms] + sd[arms] * rng.standard_normal(arms.shape[0])
        drawn += arms.shape[0]
        idf.observe_many(arms, values)
    return idf.n_samples, drawn, int(idf.recommendation), idf.stop_reason == "budget"
