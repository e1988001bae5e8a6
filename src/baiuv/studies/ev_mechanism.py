"""Why the EV-GLR rules err with the heuristic threshold and a small ``n0``: a tested model.

Right after the initialisation (``n0`` samples of every arm, ``t = n0 K``) the EV-GLR
statistic of arm ``a`` against the empirical best ``j`` is ``Z_a = (mu_j - mu_a)^2 /
(2 (s_j^2 + s_a^2)/n0)`` with the plug-in (``1/N``) variances ``s^2 = sigma^2 X / n0``,
``X ~ chi^2_{n0 - 1}`` (Gaussian data; means and variances independent). The run stops at
``tau = n0 K`` recommending ``j`` iff ``mu_j - mu_a > r_a = sqrt(2 c (s_j^2 + s_a^2)/n0)``
for every ``a != j`` with ``c = ln((1 + ln(n0 K))/delta)``. Given ``s_j^2`` and the mean
``x`` of arm ``j`` these events are independent, hence

``P(tau = n0 K, rec = j) = E_{X_j} E_x prod_{a != j} E_{X_a} Phi((x - r_a - mu_a) sqrt(n0) / sigma_a)``

computed by Gauss quadrature (generalised Gauss-Laguerre for the chi-square variables,
Gauss-Hermite for the mean): :func:`init_stop_probabilities`. It does not depend on the
sampling rule (the initialisation is round robin for every rule). With ``n0 = 2`` the
plug-in variance ``sigma^2 chi^2_1 / 2`` is below ``sigma^2 / 100`` with probability
``P(chi^2_1 < 0.02) = 0.11``: a tiny variance of the arm on top (and of the arms it must
beat) makes ``Z`` large although the gap is small.

:func:`final_state` reruns a run in the simulator (its kernel's final statistics, as the
study's runs end) to read the plug-in variances and means at its stopping time;
:func:`replay_state` replays it through :class:`baiuv.BestArmIdentifier` instead (same numba
steps, decision D72), the independent check of the tests.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from baiuv.model.instance import GaussianInstance
from baiuv.model.validate import check_delta
from baiuv.registry import get_algorithm
from baiuv.simulation.ev_advice import HeuristicEVWarning
from baiuv.simulation.rng import generator_of, run_seed
from baiuv.tables import markdown_table

__all__ = [
    "erring_runs",
    "init_comparison",
    "init_stop_probabilities",
    "init_threshold",
    "mechanism_markdown",
    "monte_carlo_init",
    "final_state",
    "replay_state",
]


def init_threshold(n0: int, K: int, delta: float) -> float:
    """The heuristic threshold at the first check, ``ln((1 + ln(n0 K))/delta)``."""
    return math.log1p(math.log(n0 * K)) + math.log(1.0 / check_delta(delta))


def _chi2_nodes(k: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Nodes and weights of ``E f(X)``, ``X ~ chi^2_k`` (generalised Gauss-Laguerre)."""
    # scipy.special: not loaded by the importers of this module (D383)
    from scipy.special import gammaln, roots_genlaguerre

    y, w = roots_genlaguerre(n, 0.5 * k - 1.0)
    return 2.0 * y, w * math.exp(-gammaln(0.5 * k))


def init_stop_probabilities(
    instance: GaussianInstance, n0: int, delta: float, *, nodes: int = 128
) -> np.ndarray:
    """``P(tau = n0 K and the recommendation is j)`` for every arm ``j`` (EV-GLR stopping
    rule, heuristic threshold, Gaussian data): see the module docstring.

    Entry ``a*`` (the best arm) is the probability of a correct stop at the initialisation;
    the sum of the others is the probability of an error at the initialisation.
    """
    # scipy.special: not loaded by the importers of this module (D383)
    from scipy.special import ndtr, roots_hermitenorm

    if not isinstance(instance, GaussianInstance):
        raise ValueError("instance must be a GaussianInstance")
    if int(n0) != n0 or n0 < 2:
        raise ValueError(f"n0 must be an integer >= 2, got {n0!r}")
    if int(nodes) != nodes or nodes < 8:
        raise ValueError(f"nodes must be an integer >= 8, got {nodes!r}")
    n0 = int(n0)
    mu, s2 = instance.mu, instance.sigma2
    K = instance.K
    c = init_threshold(n0, K, delta)
    xq, wq = _chi2_nodes(n0 - 1, int(nodes))  # X ~ chi^2_{n0-1}
    zq, wz = roots_hermitenorm(int(nodes))
    wz = wz / math.sqrt(2.0 * math.pi)
    out = np.zeros(K)
    for j in range(K):
        x = mu[j] + math.sqrt(s2[j] / n0) * zq  # mean of arm j (nodes)
        vj = s2[j] * xq / n0  # plug-in variance of arm j (nodes)
        # prod over a of E_{X_a} Phi(...) for every (X_j node, x node)
        prod = np.ones((xq.size, zq.size))
        for a in range(K):
            if a == j:
                continue
            va = s2[a] * xq / n0
            r = np.sqrt(2.0 * c * (vj[:, None] + va[None, :]) / n0)  # (Xj, Xa)
            arg = (x[None, None, :] - r[:, :, None] - mu[a]) * math.sqrt(n0 / s2[a])
            prod *= np.einsum("b,ibz->iz", wq, ndtr(arg))
        out[j] = float(wq @ prod @ wz)
    return out


def replay_state(
    instance: GaussianInstance,
    algorithm: str,
    *,
    n0: int,
    delta: float,
    seed_sequence: np.random.SeedSequence,
    max_samples: int,
) -> dict:
    """Replay one heuristic-threshold EV run of the simulator with the identifier.

    Feeding :class:`baiuv.BestArmIdentifier` the observations ``mu_a + sigma_a Z`` with
    ``Z`` and its coins from one generator of ``seed_sequence`` reproduces the simulator's
    run. Returns ``tau``, ``recommendation``, ``counts``, ``means`` and the
    plug-in ``variances`` at the stopping time.
    """
    # numba and the kernels, loaded by the first replay (D383)
    from baiuv.simulation.identify import BestArmIdentifier

    gen = generator_of(seed_sequence)
    with warnings.catch_warnings():  # the replay uses that configuration on purpose
        warnings.simplefilter("ignore", HeuristicEVWarning)
        idf = BestArmIdentifier(
            instance.K, delta, algorithm, "heuristic", n0=n0, rng=gen, max_samples=max_samples
        )
    sd = np.sqrt(instance.sigma2)
    mu = instance.mu
    while not idf.done:
        a = idf.next_arm()
        idf.observe(a, mu[a] + sd[a] * gen.standard_normal())
    return {
        "tau": int(idf.n_samples),
        "recommendation": int(idf.recommendation),
        "counts": np.asarray(idf.counts).copy(),
        "means": np.asarray(idf.means).copy(),
        "variances": np.asarray(idf.variances).copy(),
    }


def final_state(
    runner,
    instance: GaussianInstance,
    seed_sequence: np.random.SeedSequence,
) -> dict:
    """Rerun one run of the simulator: ``runner`` (a
    :class:`baiuv.simulation.engine.Runner` of the run's algorithm and settings) on
    ``instance`` with the generator of ``seed_sequence``. Returns what :func:`replay_state`
    returns, from the kernel's final statistics (equal to the identifier's, D350: one run
    state, one step)."""
    taus, recs, counts, _, means, variances, _, _ = runner.final_outcomes(
        instance.mu, instance.sigma2, generator_of(seed_sequence)
    )
    return {
        "tau": int(taus[0]),
        "recommendation": int(recs[0]),
        "counts": counts[0].copy(),
        "means": means[0].copy(),
        "variances": variances[0].copy(),
    }


def monte_carlo_init(
    instance: GaussianInstance, n0: int, delta: float, n: int, rng: np.random.Generator
) -> np.ndarray:
    """Monte Carlo frequencies of ``(tau = n0 K, rec = j)`` by direct simulation of the
    initialisation (``n`` replicates); a reference for :func:`init_stop_probabilities`."""
    K = instance.K
    c = init_threshold(n0, K, delta)
    x = instance.mu[None, :, None] + np.sqrt(instance.sigma2)[None, :, None] * rng.standard_normal(
        (n, K, n0)
    )
    m = x.mean(axis=2)
    v = x.var(axis=2)  # 1/N plug-in variance, as the simulator
    best = np.argmax(m, axis=1)
    rows = np.arange(n)
    mb, vb = m[rows, best], v[rows, best]
    z = (mb[:, None] - m) ** 2 / (2.0 * (vb[:, None] + v) / n0)
    z[rows, best] = np.inf
    stop = np.all(z > c, axis=1)
    return np.bincount(best[stop], minlength=K) / n


def erring_runs(runs, instances: dict, *, seed: int, delta: float, max_samples: int):
    """One row per erring run of the authors' code's configuration (heuristic, ``n0 = 2`` rows of
    ``runs``): stopping time, whether it stopped at the first check (``tau = n0 K``) or by
    ``2 n0 K``, and, from :func:`final_state`, the count, plug-in variance and empirical
    mean of the wrongly-beaten (best) and the wrongly-chosen (recommended) arms, with their
    variance ratios ``sigma_hat^2 / sigma^2``. ``instances`` maps instance ids to
    :class:`GaussianInstance`. A run is replayed from its stream (columns ``stream`` and
    ``stream_instance``: the study's or the main experiment's, D400); the rerun must
    reproduce the run's ``tau`` and recommendation (else ``RuntimeError``)."""
    # pandas: an import of this module (the first check's model) does not load it (D383)
    import pandas as pd

    # numba and the kernels: the first check's model does not load them (D383)
    from baiuv.simulation.engine import Runner, RunSettings

    base = runs[(runs["threshold"] == "heuristic") & (runs["n0"] == 2) & ~runs["correct"]]
    settings = RunSettings(delta=delta, threshold="heuristic", n0=2, max_samples=max_samples)
    runners: dict = {}
    rows = []
    for r in base.itertuples(index=False):
        inst = instances[r.instance]
        ss = run_seed(seed, r.stream, r.stream_instance, r.algorithm, int(r.run))
        if r.algorithm not in runners:
            runners[r.algorithm] = Runner(get_algorithm(r.algorithm), settings)
        st = final_state(runners[r.algorithm], inst, ss)
        if st["tau"] != r.stopping_time or st["recommendation"] != r.recommendation:
            raise RuntimeError(
                f"rerun of {r.algorithm} run {r.run} on {r.instance} does not reproduce it"
            )
        b, w = int(r.best_arm), int(r.recommendation)
        t0 = 2 * inst.K
        rows.append(
            {
                "group": r.group,
                "instance": r.instance,
                "algorithm": r.algorithm,
                "run": int(r.run),
                "K": inst.K,
                "stopping_time": int(r.stopping_time),
                "at_init": bool(r.stopping_time == t0),
                "by_2init": bool(r.stopping_time <= 2 * t0),
                "count_best": int(st["counts"][b]),
                "count_rec": int(st["counts"][w]),
                "var_ratio_best": float(st["variances"][b] / inst.sigma2[b]),
                "var_ratio_rec": float(st["variances"][w] / inst.sigma2[w]),
                "mean_best": float(st["means"][b]),
                "mean_rec": float(st["means"][w]),
                "true_gap": float(inst.mu[b] - inst.mu[w]),
            }
        )
    cols = [
        "group", "instance", "algorithm", "run", "K", "stopping_time", "at_init", "by_2init",
        "count_best", "count_rec", "var_ratio_best", "var_ratio_rec", "mean_best", "mean_rec",
        "true_gap",
    ]  # fmt: skip
    return pd.DataFrame(rows, columns=cols)


def init_comparison(runs, instances: dict, *, delta: float, level: float = 0.95):
    """Per named group (one instance): the model of :func:`init_stop_probabilities` at
    ``n0 = 2`` against the measured frequencies, pooled over the EV rules of the authors'
    code's configuration: errors and correct stops at ``tau = n0 K`` with their Wilson intervals,
    and whether the model lies inside."""
    # pandas and the stopping-time experiment: an import of this module loads neither (D383)
    import pandas as pd

    from baiuv.experiments.stopping_times import wilson_interval

    base = runs[(runs["threshold"] == "heuristic") & (runs["n0"] == 2)]
    rows = []
    for g, c in base.groupby("group", sort=False):
        ids = c["instance"].unique()
        if len(ids) != 1:
            continue
        inst = instances[ids[0]]
        p = init_stop_probabilities(inst, 2, delta)
        best = inst.best_arm
        at0 = c["stopping_time"] == 2 * inst.K
        n = len(c)
        for what, mask, model in (
            ("error at τ = n0 K", at0 & ~c["correct"], float(p.sum() - p[best])),
            ("correct stop at τ = n0 K", at0 & c["correct"], float(p[best])),
        ):
            k = int(mask.sum())
            lo, hi = wilson_interval(k, n, level)
            rows.append(
                {
                    "group": g,
                    "event": what,
                    "runs": n,
                    "count": k,
                    "rate": k / n,
                    "wilson_low": lo,
                    "wilson_high": hi,
                    "model": model,
                    "model_inside": bool(lo <= model <= hi),
                    "errors_total": int((~c["correct"]).sum()),
                }
            )
    return pd.DataFrame(rows)


def mechanism_markdown(err, comp) -> str:
    """Markdown of the mechanism: the model against the measured frequencies at the first
    check, and per (group, rule) the erring runs' timing, counts and plug-in variances."""
    # pandas: an import of this module (the first check's model) does not load it (D383)
    import pandas as pd

    lines = [
        "# Why the EV-GLR rules err (heuristic threshold, n0 = 2)\n",
        "Model: probability that the EV-GLR statistic of every challenger exceeds the "
        "heuristic threshold at the first check (τ = n0 K), with the plug-in variances "
        "σ²χ²_{n0−1}/n0 of Gaussian data (exact quadrature), against the runs of every EV "
        "rule pooled (Wilson 95 %).\n",
    ]
    if len(comp):
        t = comp.assign(
            measured=[
                f"{k}/{n} = {r:.3g} [{lo:.3g}, {hi:.3g}]"
                for k, n, r, lo, hi in zip(
                    comp["count"],
                    comp["runs"],
                    comp["rate"],
                    comp["wilson_low"],
                    comp["wilson_high"],
                    strict=True,
                )
            ],
            model=[f"{m:.3g}" for m in comp["model"]],
        )
        lines.append(markdown_table(t[["group", "event", "measured", "model", "model_inside"]]))
    lines.append(
        "\n## Erring runs\n\nPer group and rule: erring runs, share stopped at the first check "
        "and by 2 n0 K, median count and median plug-in variance ratio σ̂²/σ² of the "
        "wrongly-beaten (best) arm and of the wrongly-chosen arm at the stopping time.\n"
    )
    rows = []
    for (g, a), c in err.groupby(["group", "algorithm"], sort=False):
        rows.append(
            {
                "group": g,
                "algorithm": a,
                "errors": len(c),
                "at τ = n0K": f"{c['at_init'].mean():.0%}",
                "τ ≤ 2n0K": f"{c['by_2init'].mean():.0%}",
                "N best": float(c["count_best"].median()),
                "N chosen": float(c["count_rec"].median()),
                "σ̂²/σ² best": float(c["var_ratio_best"].median()),
                "σ̂²/σ² chosen": float(c["var_ratio_rec"].median()),
            }
        )
    if rows:
        lines.append(markdown_table(pd.DataFrame(rows)))
        lines.append(
            f"\nAll erring runs: {len(err)}; stopped at the first check: "
            f"{err['at_init'].mean():.0%}; by 2 n0 K: {err['by_2init'].mean():.0%}; "
            f"best arm's plug-in variance below its true variance in "
            f"{(err['var_ratio_best'] < 1).mean():.0%} of them (median ratio "
            f"{err['var_ratio_best'].median():.2g}).\n"
        )
    else:
        lines.append("_No erring run._\n")
    return "\n".join(lines)
