"""Stopping-time experiment (Section ``ssec:experiments``): summaries of the simulated runs
(error rates with Wilson intervals, mean stopping times) and their Markdown tables.

The runs themselves come from :func:`baiuv.simulation.engine.run_shard`."""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np
import pandas as pd

from baiuv.report.tables import markdown_table


def wilson_interval(errors: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion ``errors / n``.

    ``(p + z^2/(2n) -+ z sqrt(p(1-p)/n + z^2/(4n^2))) / (1 + z^2/n)`` with ``z`` the
    ``(1 + level)/2`` normal quantile (Wilson, 1927).
    """
    if int(n) != n or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}")
    if int(errors) != errors or not (0 <= errors <= n):
        raise ValueError(f"errors must be an integer in [0, n], got {errors!r}")
    if not (0.0 < level < 1.0):
        raise ValueError(f"level must be in (0, 1), got {level!r}")
    z = NormalDist().inv_cdf(0.5 + 0.5 * level)  # stdlib: no scipy.stats import
    p = errors / n
    den = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    # The interval contains p in exact arithmetic; rounding can put a bound a few ulps on
    # the wrong side of p (e.g. a lower bound of 3e-17 for 0 errors), so clamp to [0, p]
    # and [p, 1]: 0 errors give exactly 0 as lower bound, n errors exactly 1 as upper.
    return min(max(0.0, centre - half), p), max(min(1.0, centre + half), p)


def error_rates(df: pd.DataFrame, level: float = 0.95) -> pd.DataFrame:
    """Per (experiment, algorithm): runs, errors, error rate and its Wilson interval."""
    rows = []
    for (exp, alg), g in df.groupby(["experiment", "algorithm"], sort=False):
        n = len(g)
        err = int((~g["correct"].astype(bool)).sum())
        lo, hi = wilson_interval(err, n, level)
        rows.append(
            {
                "experiment": exp,
                "algorithm": alg,
                "runs": n,
                "errors": err,
                "error_rate": err / n,
                "wilson_low": lo,
                "wilson_high": hi,
                "truncated": int(g["truncated"].sum()),
            }
        )
    return pd.DataFrame(rows)


def stopping_time_summary(df: pd.DataFrame) -> pd.DataFrame:
    """Per (experiment, algorithm): mean stopping time, its standard error, median, and the
    mean lower bound ``T*(mu, sigma^2) log(1/delta)`` of Lemma
    ``lem:lower_bound_sample_complexity`` (averaged over instances for random ones)."""
    rows = []
    for (exp, alg), g in df.groupby(["experiment", "algorithm"], sort=False):
        tau = g["stopping_time"].to_numpy(float)
        n = tau.size
        se = float(np.std(tau, ddof=1) / math.sqrt(n)) if n > 1 else math.nan
        rows.append(
            {
                "experiment": exp,
                "algorithm": alg,
                "runs": n,
                "mean": float(tau.mean()),
                "se": se,
                "median": float(np.median(tau)),
                "lower_bound": float(g["lower_bound"].mean()),
                "ratio_to_bound": float(tau.mean() / g["lower_bound"].mean()),
            }
        )
    return pd.DataFrame(rows)


def error_rates_markdown(df: pd.DataFrame, delta: float) -> str:
    """Markdown table of :func:`error_rates` with the 95% Wilson interval, under a title."""
    er = error_rates(df)
    er["error rate [95% Wilson]"] = [
        f"{r:.4f} [{lo:.4f}, {hi:.4f}]"
        for r, lo, hi in zip(er["error_rate"], er["wilson_low"], er["wilson_high"], strict=True)
    ]
    er_md = markdown_table(
        er[["experiment", "algorithm", "runs", "errors", "error rate [95% Wilson]", "truncated"]]
    )
    return (
        f"# Empirical error rates (δ = {delta})\n\n"
        "Proportion of runs whose recommendation is not the best arm, with the 95% Wilson score "
        "interval (Section 4.3: the error stays below δ).\n\n" + er_md
    )


def stopping_times_markdown(df: pd.DataFrame, delta: float) -> str:
    """Markdown table of :func:`stopping_time_summary` (mean ± s.e.), under a title."""
    st = stopping_time_summary(df)
    st["mean ± s.e."] = [f"{m:.1f} ± {s:.1f}" for m, s in zip(st["mean"], st["se"], strict=True)]
    st_md = markdown_table(
        st[
            [
                "experiment",
                "algorithm",
                "runs",
                "mean ± s.e.",
                "median",
                "lower_bound",
                "ratio_to_bound",
            ]
        ],
        floatfmt=".1f",
    )
    return (
        f"# Stopping times (δ = {delta}, Figure 2)\n\n"
        "Mean ± standard error of the stopping time; `lower_bound` is "
        "T⋆(μ, σ²) log(1/δ) of Lemma 2 (mean over instances for random instances).\n\n" + st_md
    )
