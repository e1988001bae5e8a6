"""Beyond the paper: the EV remedy runs that reach ``max_samples``, and why they did not stop.

A run of the EV remedy study (:mod:`baiuv.studies.ev_remedies`) that reaches
``max_samples`` is *truncated*: its level has not stopped. :func:`truncation_evidence`
reads the simulator's final statistics of such a level (its counts, means, variances and
threshold states at ``max_samples``, :meth:`baiuv.simulation.engine.Runner.final_outcomes`)
and records, at the last check (``t = max_samples``), the least-sampled arm (the
*starved* arm: its count, whether it is the best arm, its plug-in variance against its
true variance) and the pair that blocks the stop: the challenger of the empirical best arm
with the smallest margin ``Z - c`` between its EV-GLR statistic and its threshold (D332:
what a truncated run records).

:func:`truncation_summary` reports per (rule, remedy, group) the truncated runs and their
starved arms; :func:`truncation_markdown` its table.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import pandas as pd

from baiuv.model.instance import GaussianInstance
from baiuv.registry import get_algorithm
from baiuv.tables import markdown_table

__all__ = [
    "EVIDENCE_COLUMNS",
    "HYPOTHESIS",
    "evidence_row",
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


def evidence_row(
    instance: GaussianInstance,
    threshold: str,
    final: tuple,
    *,
    t: int,
    delta: float,
    plug_in: bool = True,
) -> dict:
    """The evidence of one truncated level (the columns of :data:`EVIDENCE_COLUMNS` after
    ``n0`` and ``run``) from its final statistics ``final = (counts, means, variances,
    states)`` at ``t = max_samples`` (:meth:`baiuv.simulation.engine.Runner.final_outcomes`):
    the statistics of every arm against the empirical best
    (:func:`baiuv.model.glr.glr_statistics`, EV-GLR when ``plug_in``) and the pair
    thresholds ``c_{hat a, a}(N_t, delta)`` (:func:`baiuv.thresholds.pair_threshold` with
    the level's per-arm states), as the stopping check at ``t`` compares them (D332: what a
    truncated run records)."""
    # numba and the kernels, loaded by the first evidence row (D383)
    from baiuv.model.glr import glr_statistics
    from baiuv.thresholds import pair_threshold

    counts, means, variances, states = (np.asarray(x) for x in final)
    K = instance.K
    best = int(instance.best_arm)
    hat = int(np.argmax(means))
    s = int(np.argmin(counts))
    z = glr_statistics(counts, means, variances, known_variance=plug_in)
    c = np.full(K, math.nan)
    for a in range(K):
        if a != hat:
            pair = {"n_a": int(counts[hat]), "n_b": int(counts[a]), "t": float(t), "K": K}
            c[a] = pair_threshold(
                threshold, **pair, delta=delta, state_a=states[hat], state_b=states[a]
            )
    with np.errstate(invalid="ignore"):
        margin = z - c
    margin[hat] = math.inf
    margin[np.isnan(margin)] = -math.inf  # a statistic not computed blocks
    b = int(np.argmin(margin))
    # the starved arm's statistic against the empirical best, and its limit as the best's
    # count grows with the starved arm's count fixed: (gap)^2 / (2 var_s / N_s)
    gap2 = (means[hat] - means[s]) ** 2
    limit = math.inf if variances[s] == 0 else float(gap2 / (2.0 * variances[s] / counts[s]))
    return {
        "K": K,
        "checked_at": int(t),
        "best_arm": best,
        "empirical_best": hat,
        "starved_arm": s,
        "starved_count": int(counts[s]),
        "starved_is_best": s == best,
        "starved_var": float(variances[s]),
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
    levels: Mapping[str, tuple],
    *,
    n0: int,
    delta: float,
    max_samples: int,
    keys: Mapping,
) -> list[dict]:
    """The evidence (:data:`EVIDENCE_COLUMNS`) of a truncated run, one row per truncated
    level: ``levels`` maps each truncated threshold to its final statistics ``(counts,
    means, variances, states)`` at ``max_samples`` (:func:`evidence_row`; no replay of
    the run). ``keys``: the row's ``group``, ``instance`` and ``run``."""
    plug_in = get_algorithm(algorithm).plug_in
    return [
        {
            "group": keys["group"],
            "instance": keys["instance"],
            "algorithm": algorithm,
            "remedy": f"{thr} n0={n0}",
            "threshold": thr,
            "n0": int(n0),
            "run": int(keys["run"]),
            **evidence_row(instance, thr, final, t=max_samples, delta=delta, plug_in=plug_in),
        }
        for thr, final in levels.items()
    ]


def truncation_summary(runs: pd.DataFrame, evidence: pd.DataFrame) -> pd.DataFrame:
    """Per (algorithm, remedy, group) with a truncated run: runs, truncated runs, and over
    the truncated runs (``evidence``, :data:`EVIDENCE_COLUMNS`): how many starve the best
    arm, the starved arm's median count, the median ratio of its plug-in variance to its
    true variance, how many have the starved arm in the blocking pair, the median ratio
    ``Z / c`` of the blocking pair, and how many cannot stop unless the starved arm is
    sampled again (``bounded``: the limit of its statistic as the other counts grow is at or
    below its threshold)."""
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
        "bounded",
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
                    "bounded": 0,
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
                "bounded": int((e["starved_z_limit"] <= e["starved_threshold"]).sum()),
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
    "that limit, which can take millions of samples when the other challengers' "
    "statistics grow slowly."
)


def truncation_markdown(summary: pd.DataFrame, evidence: pd.DataFrame, *, max_samples: int) -> str:
    """The section of the remedy table on the truncated runs (:func:`truncation_summary`),
    with what the evidence shows (:func:`truncation_findings`) and the hypothesis on why
    (:data:`HYPOTHESIS`) when a run is truncated."""
    head = (
        f"## Truncated runs (max_samples = {max_samples:,})\n\n"
        "Per rule, remedy and group with a truncated run: runs, truncated runs; over the "
        "truncated runs, read at their last check from the simulator's final statistics: "
        "how many starve the best arm (the "
        "least-sampled arm is the best arm), the starved arm's median count, the median "
        "ratio σ̂²/σ² of its plug-in variance to its true variance, how many have the "
        "starved arm in the pair that blocks the stop (the empirical best and the challenger "
        "with the smallest Z − c), the median Z/c of that pair, and how many cannot stop "
        "unless the starved arm is sampled again (the limit of its statistic as the other "
        "counts grow, its own fixed, is at or below its threshold).\n\n"
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
            "bounded": "bounded below the threshold",
        }
    )
    return (
        head + markdown_table(t) + "\n" + truncation_findings(evidence) + "\n\n" + HYPOTHESIS + "\n"
    )
