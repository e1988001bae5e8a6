"""Beyond the paper: the EV remedy runs that reach ``max_samples``, and why they did not stop.

A run of the EV remedy study (:mod:`baiuv.studies.ev_remedies`) that reaches
``max_samples`` is *truncated*: its level has not stopped. :func:`truncation_evidence`
replays such a run with the identifier (:class:`baiuv.BestArmIdentifier` fed the
observations ``mu_a + sigma_a Z`` with ``Z`` and its coins from the run's generator
reproduces the simulator's run, D72) and records, at the last check (``t = max_samples``),
the least-sampled arm (the *starved* arm: its count, whether it is the best arm, its
plug-in variance against its true variance) and the pair that blocks the stop: the
challenger of the empirical best arm with the smallest margin ``Z - c`` between its
EV-GLR statistic and its threshold (D332: what a truncated run records).

:func:`truncation_summary` reports per (rule, remedy, group) the truncated runs and their
starved arms; :func:`truncation_markdown` its table.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from baiuv.model.instance import GaussianInstance

__all__ = [
    "EVIDENCE_COLUMNS",
    "replay_truncated",
    "HYPOTHESIS",
    "truncation_evidence",
    "truncation_findings",
    "truncation_markdown",
    "truncation_summary",
]

#: Columns of a truncated run's evidence (one row per run and remedy).
EVIDENCE_COLUMNS = [
    "group",
    "instance",
    "algorithm",
    "remedy",
    "threshold",
    "n0",
    "run",
    "K",
    "checked_at",
    "best_arm",
    "empirical_best",
    "starved_arm",
    "starved_count",
    "starved_is_best",
    "starved_var",
    "starved_true_var",
    "starved_mean",
    "starved_true_mean",
    "starved_z",
    "starved_z_limit",
    "starved_threshold",
    "blocking_arm",
    "blocking_z",
    "blocking_threshold",
    "blocking_has_starved",
    "forced",
]


def _identifier(instance, algorithm, threshold, *, n0, delta, max_samples, rng, strict=True):
    from baiuv.simulation.ev_advice import HeuristicEVWarning
    from baiuv.simulation.identify import BestArmIdentifier

    with warnings.catch_warnings():  # the study runs these configurations on purpose
        warnings.simplefilter("ignore", HeuristicEVWarning)
        return BestArmIdentifier(
            instance.K,
            delta,
            algorithm,
            threshold,
            n0=n0,
            rng=rng,
            max_samples=max_samples,
            strict=strict,
        )


def replay_truncated(
    instance: GaussianInstance,
    algorithm: str,
    threshold: str,
    *,
    n0: int,
    delta: float,
    max_samples: int,
    seed_sequence: np.random.SeedSequence,
) -> tuple:
    """The identifier of ``threshold`` after the run of ``seed_sequence`` replayed up to
    ``max_samples``, with the arms and observations of the run: ``(identifier, arms,
    values)``. ``RuntimeError`` if the replay stops before ``max_samples``."""
    from baiuv.simulation.rng import generator_of

    gen = generator_of(seed_sequence)
    idf = _identifier(
        instance, algorithm, threshold, n0=n0, delta=delta, max_samples=max_samples, rng=gen
    )
    mu, sd = instance.mu, np.sqrt(instance.sigma2)
    arms = np.empty(max_samples, dtype=np.int64)
    values = np.empty(max_samples)
    t = 0
    while not idf.done:
        a = idf.next_arm()
        x = mu[a] + sd[a] * gen.standard_normal()
        idf.observe(a, x)
        arms[t], values[t] = a, x
        t += 1
    if idf.stop_reason != "budget" or t != max_samples:
        raise RuntimeError(
            f"replay of {algorithm} with {threshold} on {instance.name} stopped at {t} "
            f"({idf.stop_reason}), not at max_samples = {max_samples}"
        )
    return idf, arms, values


def _state_row(idf, instance: GaussianInstance) -> dict:
    """The evidence of one identifier at its last check (see the module)."""
    counts = np.asarray(idf.counts)
    var = np.asarray(idf.variances)
    means = np.asarray(idf.means)
    best = int(instance.best_arm)
    hat = int(np.argmax(means))
    s = int(np.argmin(counts))
    z = np.asarray(idf.glr(), dtype=float)
    c = np.asarray(idf.thresholds(), dtype=float)
    with np.errstate(invalid="ignore"):
        margin = z - c
    margin[hat] = math.inf
    margin[np.isnan(margin)] = -math.inf  # a statistic not computed blocks
    b = int(np.argmin(margin))
    # the starved arm's statistic against the empirical best, and its limit as the best's
    # count grows with the starved arm's count fixed: (gap)^2 / (2 var_s / N_s)
    gap2 = (means[hat] - means[s]) ** 2
    limit = math.inf if var[s] == 0 else float(gap2 / (2.0 * var[s] / counts[s]))
    return {
        "K": instance.K,
        "checked_at": int(idf.n_samples),
        "best_arm": best,
        "empirical_best": hat,
        "starved_arm": s,
        "starved_count": int(counts[s]),
        "starved_is_best": s == best,
        "starved_var": float(var[s]),
        "starved_true_var": float(instance.sigma2[s]),
        "starved_mean": float(means[s]),
        "starved_true_mean": float(instance.mu[s]),
        "starved_z": math.nan if s == hat else float(z[s]),
        "starved_z_limit": math.nan if s == hat else limit,
        "starved_threshold": math.nan if s == hat else float(c[s]),
        "blocking_arm": b,
        "blocking_z": float(z[b]),
        "blocking_threshold": float(c[b]),
        "blocking_has_starved": s in (b, hat),
        "forced": bool(np.isnan(z[b])),
    }


def truncation_evidence(
    instance: GaussianInstance,
    algorithm: str,
    thresholds: Sequence[str],
    *,
    n0: int,
    delta: float,
    max_samples: int,
    seed_sequence: np.random.SeedSequence,
    keys: Mapping,
    counts: np.ndarray | None = None,
) -> list[dict]:
    """The evidence (:data:`EVIDENCE_COLUMNS`) of a truncated run, one row per threshold
    of ``thresholds`` truncated on it: the run is replayed once with the identifier of the
    first (:func:`replay_truncated`), and its observations are fed to one identifier per
    other threshold. ``keys``: the row's ``group``, ``instance`` and ``run``; ``counts``
    (optional): the simulator's counts at truncation, which the replay must reproduce
    (``RuntimeError`` otherwise)."""
    first, arms, values = replay_truncated(
        instance,
        algorithm,
        thresholds[0],
        n0=n0,
        delta=delta,
        max_samples=max_samples,
        seed_sequence=seed_sequence,
    )
    if counts is not None and not np.array_equal(np.asarray(first.counts), counts):
        raise RuntimeError(f"replay of {algorithm} run {keys} does not reproduce its counts")
    rows = []
    for thr in thresholds:
        if thr == thresholds[0]:
            idf = first
        else:
            idf = _identifier(
                instance,
                algorithm,
                thr,
                n0=n0,
                delta=delta,
                max_samples=max_samples,
                rng=0,
                strict=False,
            )
            idf.observe_many(arms, values)
            if idf.stop_reason != "budget":
                raise RuntimeError(f"{thr}: run {keys} stops before max_samples in its replay")
        rows.append(
            {
                "group": keys["group"],
                "instance": keys["instance"],
                "algorithm": algorithm,
                "remedy": f"{thr} n0={n0}",
                "threshold": thr,
                "n0": int(n0),
                "run": int(keys["run"]),
                **_state_row(idf, instance),
            }
        )
    return rows


def truncation_summary(runs: pd.DataFrame, evidence: pd.DataFrame) -> pd.DataFrame:
    """Per (algorithm, remedy, group) with a truncated run: runs, truncated runs, and over
    the truncated runs (``evidence``, :data:`EVIDENCE_COLUMNS`): how many starve the best
    arm, the starved arm's median count, the median ratio of its plug-in variance to its
    true variance, how many have the starved arm in the blocking pair, and the median ratio
    ``Z / c`` of the blocking pair."""
    cols = [
        "algorithm",
        "remedy",
        "group",
        "runs",
        "truncated",
        "starved_best",
        "starved_count",
        "var_ratio",
        "blocked_by_starved",
        "z_over_c",
    ]
    rows = []
    keys = ["algorithm", "remedy", "group"]
    evidence = evidence.infer_objects()  # shards without a truncated run: object columns
    ev = {k: c for k, c in evidence.groupby(keys, sort=False)} if len(evidence) else {}
    for k, c in runs.groupby(keys, sort=False):
        n_cut = int(c["truncated"].sum())
        if n_cut == 0:
            continue
        e = ev.get(k)
        row = dict(zip(keys, k, strict=True), runs=len(c), truncated=n_cut)
        if e is None or e.empty:
            rows.append(
                {
                    **row,
                    "starved_best": 0,
                    "starved_count": math.nan,
                    "var_ratio": math.nan,
                    "blocked_by_starved": 0,
                    "z_over_c": math.nan,
                }
            )
            continue
        rows.append(
            {
                **row,
                "starved_best": int(e["starved_is_best"].sum()),
                "starved_count": float(e["starved_count"].median()),
                "var_ratio": float((e["starved_var"] / e["starved_true_var"]).median()),
                "blocked_by_starved": int(e["blocking_has_starved"].sum()),
                "z_over_c": float((e["blocking_z"] / e["blocking_threshold"]).median()),
            }
        )
    return pd.DataFrame(rows, columns=cols)


def truncation_findings(evidence: pd.DataFrame) -> str:
    """What the truncated runs' evidence shows, as measured (one paragraph)."""
    if evidence.empty:
        return "No run reached max_samples."
    e = evidence.infer_objects()  # shards without a truncated run concatenate as objects
    n = len(e)
    best = int(e["starved_is_best"].sum())
    at_n0 = int((e["starved_count"] == e["n0"]).sum())
    ratio = e["starved_var"] / e["starved_true_var"]
    low = int((ratio < 0.1).sum())
    blk = int(e["blocking_has_starved"].sum())
    below = int((e["blocking_z"] <= e["blocking_threshold"]).sum())
    inf = int(np.isinf(e["starved_threshold"]).sum())
    lim = e["starved_z_limit"] / e["starved_threshold"]
    under = int((lim <= 1).sum())
    wrong = int((e["empirical_best"] != e["best_arm"]).sum())
    rules = ", ".join(
        f"{a} {r} ({k})"
        for (a, r), k in e.groupby(["algorithm", "remedy"], sort=False).size().items()
    )
    return (
        f"Measured: {n} truncated (run, remedy) pairs ({rules}). The least-sampled arm is "
        f"the best arm in {best} of them and still has its n0 initial samples in {at_n0}; "
        f"its plug-in variance is below a tenth of its true variance in {low} (median "
        f"ratio σ̂²/σ² {ratio.median():.2g}); the empirical best arm at the last check is "
        f"not the best arm in {wrong}; the pair that blocks the stop contains the starved arm "
        f"in {blk}, and its statistic is at or below its threshold in {below} (median "
        f"Z/c {(e['blocking_z'] / e['blocking_threshold']).median():.2g}). Against the "
        f"empirical best, the starved arm's threshold is infinite in {inf}, and the limit "
        f"of its statistic as the other counts grow (its own fixed) is at or below that "
        f"threshold in {under}: those levels cannot stop unless the starved arm is sampled "
        f"again."
    )


#: The hypothesis on why a starved arm's statistic stays bounded (not tested by the study).
HYPOTHESIS = (
    "Hypothesis (not tested by this study): when an arm's n0 first samples are nearly "
    "equal, its plug-in variance is tiny and its EV-GLR statistic against the empirical "
    "best, (μ̂_b − μ̂_a)² / (2(σ̂²_b/N_b + σ̂²_a/N_a)), is large; EV-TCI's challenger is the "
    "arm of smallest statistic, so this arm is not sampled again (nor as the leader, when "
    "its mean is under-estimated) while another challenger's statistic stays below it. "
    "With N_a fixed, its statistic only tends to the finite limit (μ̂_b − μ̂_a)² N_a / "
    "(2σ̂²_a) (column starved_z_limit of the evidence), and the δ-correct thresholds of "
    "the pair are infinite (EV-Box, EV-BoB) or about 10⁷ (the Student-calibrated "
    "heuristic, one degree of freedom) at N_a = 2: the level cannot stop until the arm is "
    "sampled again, which happens only once every other challenger's statistic exceeds "
    "that limit — never while two other arms are (nearly) tied."
)


def truncation_markdown(summary: pd.DataFrame, evidence: pd.DataFrame, *, max_samples: int) -> str:
    """The section of the remedy table on the truncated runs (:func:`truncation_summary`),
    with what the evidence shows (:func:`truncation_findings`) and the hypothesis on why
    (:data:`HYPOTHESIS`) when a run is truncated."""
    from baiuv.tables import markdown_table

    head = (
        f"## Truncated runs (max_samples = {max_samples:,})\n\n"
        "Per rule, remedy and group with a truncated run: runs, truncated runs; over the "
        "truncated runs, replayed to their last check: how many starve the best arm (the "
        "least-sampled arm is the best arm), the starved arm's median count, the median "
        "ratio σ̂²/σ² of its plug-in variance to its true variance, how many have the "
        "starved arm in the pair that blocks the stop (the empirical best and the challenger "
        "with the smallest Z − c), and the median Z/c of that pair.\n\n"
    )
    if summary.empty:
        return head + "_No truncated run._\n"
    t = summary.rename(
        columns={
            "starved_best": "starve the best arm",
            "starved_count": "N starved (median)",
            "var_ratio": "σ̂²/σ² starved (median)",
            "blocked_by_starved": "starved arm in the blocking pair",
            "z_over_c": "Z/c blocking (median)",
        }
    )
    return (
        head + markdown_table(t) + "\n" + truncation_findings(evidence) + "\n\n" + HYPOTHESIS + "\n"
    )
