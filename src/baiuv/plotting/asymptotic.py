"""Figures of the asymptotic regime and the delta-correctness audit."""

from __future__ import annotations

import math
from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

from baiuv.plotting.style import setup

_LINES = (
    ("T_star", "T*(μ,σ²)", "-"),
    ("T_star_beta", "T*₁/₂(μ,σ²)", "--"),
    ("T_star_known", "T*_σ²(μ)", ":"),
)


def asymptotic_figure(
    summary: pd.DataFrame,
    algorithms: Sequence[str] | None = None,
    thresholds: Sequence[str] | None = None,
    instances: Sequence[str] | None = None,
):
    """``E[tau_delta]/log(1/delta)`` against ``log(1/delta)``, one panel per (instance,
    threshold), one line per algorithm with its normal 95 % band.

    Horizontal lines: ``T*(mu, sigma^2)``, ``T*_{1/2}(mu, sigma^2)`` and ``T*_{sigma^2}(mu)``
    (the limits of Theorem ``thm:upper_bound_sample_complexity_algorithm`` and Appendix
    ``app:expected_sample_complexity``); grey curve: the lower bound ``T*(mu, sigma^2)
    log(1/(2.4 delta))/log(1/delta)`` of Lemma ``lem:lower_bound_sample_complexity``.

    Parameters
    ----------
    summary : DataFrame
        Output of :func:`baiuv.experiments.asymptotic.summarize_asymptotic`.
    algorithms, thresholds, instances : sequences of str, optional
        Order of lines, columns and rows (default: order of appearance).
    """
    need = {"instance", "algorithm", "threshold", "log_inv_delta", "ratio", "ratio_low"}
    if missing := need - set(summary.columns):
        raise ValueError(f"summary is missing columns {sorted(missing)}")
    if summary.empty:
        raise ValueError("summary must not be empty")
    setup()
    algorithms = list(algorithms or pd.unique(summary["algorithm"]))
    thresholds = list(thresholds or pd.unique(summary["threshold"]))
    instances = list(instances or pd.unique(summary["instance"]))
    colours = dict(zip(algorithms, sns.color_palette("colorblind", len(algorithms)), strict=True))
    nr, nc = len(instances), len(thresholds)
    fig, axes = plt.subplots(
        nr, nc, figsize=(4.2 * nc, 3.4 * nr), squeeze=False, sharex=True, sharey="row"
    )
    for i, inst in enumerate(instances):
        si = summary[summary["instance"] == inst]
        for j, thr in enumerate(thresholds):
            ax = axes[i, j]
            s = si[si["threshold"] == thr]
            for alg in algorithms:
                g = s[s["algorithm"] == alg].sort_values("log_inv_delta")
                if g.empty:
                    continue
                style = "--" if str(alg).startswith("EV-") else "-"
                ax.plot(
                    g["log_inv_delta"],
                    g["ratio"],
                    style,
                    marker="o",
                    ms=3,
                    color=colours[alg],
                    label=alg,
                )
                ax.fill_between(
                    g["log_inv_delta"],
                    g["ratio_low"],
                    g["ratio_high"],
                    color=colours[alg],
                    alpha=0.2,
                    lw=0,
                )
            if not si.empty:
                x = np.linspace(si["log_inv_delta"].min(), si["log_inv_delta"].max(), 200)
                for key, label, ls in _LINES:
                    if key in si:
                        ax.axhline(float(si[key].iloc[0]), color="k", ls=ls, lw=0.9, label=label)
                T = float(si["T_star"].iloc[0])
                lb = T * np.maximum(0.0, x - math.log(2.4)) / x
                ax.plot(x, lb, color="0.5", lw=1.2, label="T* log(1/(2.4δ))/log(1/δ)")
            ax.set_title(f"{inst}, {thr} threshold", fontsize=10)
            if i == nr - 1:
                ax.set_xlabel("log(1/δ)")
            if j == 0:
                ax.set_ylabel("E[τ_δ] / log(1/δ)")
    handles, labels = axes[0, 0].get_legend_handles_labels()
    uniq = dict(zip(labels, handles, strict=True))
    fig.legend(
        uniq.values(),
        uniq.keys(),
        loc="lower center",
        ncol=min(5, len(uniq)),
        bbox_to_anchor=(0.5, -0.02 - 0.03 * math.ceil(len(uniq) / 5)),
        frameon=False,
    )
    fig.tight_layout()
    return fig


def audit_figure(summary: pd.DataFrame, delta: float, algorithms: Sequence[str] | None = None):
    """Pooled error rate per algorithm and ``n0`` with its Wilson interval (bars), the
    largest cell error rate (crosses) and the level ``delta`` (dashed line); symmetric-log
    y axis so that zero error rates stay visible.

    ``summary`` is :func:`baiuv.experiments.audit.audit_summary`.
    """
    need = {"algorithm", "n0", "error_rate", "wilson_low", "wilson_high", "max_cell_error_rate"}
    if missing := need - set(summary.columns):
        raise ValueError(f"summary is missing columns {sorted(missing)}")
    if summary.empty:
        raise ValueError("summary must not be empty")
    if not (0.0 < delta < 1.0):
        raise ValueError(f"delta must be in (0, 1), got {delta!r}")
    setup()
    algorithms = list(algorithms or pd.unique(summary["algorithm"]))
    n0s = sorted(pd.unique(summary["n0"]))
    glr_n0 = [n for n in n0s if n in set(summary.loc[summary["stopping"] != "elimination", "n0"])]
    pal = dict(zip(n0s, sns.color_palette("viridis", len(n0s)), strict=True))
    fig, ax = plt.subplots(figsize=(max(6.0, 0.75 * len(algorithms) + 2), 3.8))
    width = 0.8 / max(1, len(glr_n0))
    seen = set()
    for k, alg in enumerate(algorithms):
        g = summary[summary["algorithm"] == alg].sort_values("n0")
        offs = glr_n0 if len(g) > 1 else [g["n0"].iloc[0]] if len(g) else []
        for m, r in enumerate(g.itertuples(index=False)):
            x = k + (m - (len(offs) - 1) / 2) * width
            lab = f"n0 = {r.n0}" if r.n0 not in seen else None
            seen.add(r.n0)
            ax.errorbar(
                x,
                r.error_rate,
                yerr=[
                    [max(0.0, r.error_rate - r.wilson_low)],
                    [max(0.0, r.wilson_high - r.error_rate)],
                ],
                fmt="o",
                color=pal[r.n0],
                capsize=3,
                ms=4,
                label=lab,
            )
            ax.plot(x, r.max_cell_error_rate, "x", color=pal[r.n0], ms=5)
    ax.axhline(delta, color="k", ls="--", lw=1, label=f"δ = {delta:g}")
    ax.plot([], [], "x", color="0.3", label="max cell error rate")
    ax.set_yscale("symlog", linthresh=delta / 10)
    ax.set_ylim(bottom=0.0)
    # rotation_mode="anchor": the label's end sits under its tick (not beside it)
    ax.set_xticks(
        range(len(algorithms)), algorithms, rotation=45, ha="right", rotation_mode="anchor"
    )
    ax.set_ylabel("error rate (pooled, 95% Wilson)")
    ax.set_title(
        "δ-correctness audit of the heuristic threshold: error rate per algorithm and n0",
        fontsize=10,
    )
    # outside the axes, on the right: inside it hid the highest points (EV rules, n0 = 2)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)
    fig.tight_layout()
    return fig
