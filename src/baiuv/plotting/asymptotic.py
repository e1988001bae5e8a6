"""Figures of the asymptotic regime and of the delta-correctness audit."""

from __future__ import annotations

import math
from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

from baiuv.plotting.style import algorithm_colours, setup, threshold_order
from baiuv.registry import ALGORITHMS, label

#: Display names of instances (file names use the config's names).
INSTANCE_LABELS = {"standard": "standard instance", "easy": "easy instance", "two_arm": "two arms"}

_CONST_TEX = {
    "T_star": r"$T^\star(\mu,\sigma^2)$",
    "T_star_beta": r"$T^\star_{1/2}(\mu,\sigma^2)$",
    "T_star_known": r"$T^\star_{\sigma^2}(\mu)$",
    "T_star_known_beta": r"$T^\star_{\sigma^2,1/2}(\mu)$",
}


def _instance_label(name: str) -> str:
    return INSTANCE_LABELS.get(name, str(name).replace("_", " "))


def _registry_order(cells) -> list[tuple[str, str]]:
    """Distinct (algorithm, threshold) cells, algorithms in registry order (unregistered
    ones last, in order of appearance), thresholds as in
    :func:`baiuv.plotting.style.threshold_order`."""
    cells = list(dict.fromkeys(tuple(c) for c in cells))
    algs = list(ALGORITHMS)
    seen = list(dict.fromkeys(a for a, _ in cells))
    thr = threshold_order(t for _, t in cells)
    return sorted(
        cells,
        key=lambda c: (
            algs.index(c[0]) if c[0] in algs else len(algs) + seen.index(c[0]),
            thr.index(c[1]),
        ),
    )


def asymptotic_figure(
    summary: pd.DataFrame,
    cells: Sequence[tuple[str, str]] | None = None,
    instances: Sequence[str] | None = None,
):
    """``E[tau_delta]/ln(1/delta)`` against ``ln(1/delta)`` (log x axis): one row per
    instance, one column per (algorithm, threshold) cell, each panel with its own y range.

    In each panel: the ratio with its 95 % band, the cell's limit (black line: ``T*``,
    ``T*_{1/2}``, ``T*_{sigma^2}`` or ``T*_{sigma^2,1/2}``, Theorem
    ``thm:upper_bound_sample_complexity_algorithm`` and Appendix
    ``app:expected_sample_complexity``), ``T*(mu, sigma^2)`` (dashed) where the limit differs
    from it, and the lower bound ``T*(mu, sigma^2) ln(1/(2.4 delta))/ln(1/delta)`` of Lemma
    ``lem:lower_bound_sample_complexity`` (grey) that every delta-correct algorithm respects.

    Parameters
    ----------
    summary : DataFrame
        Output of :func:`baiuv.studies.asymptotic.summarize_asymptotic`.
    cells : sequence of (algorithm, threshold), optional
        Columns, in order (default: every cell of ``summary``, algorithms in registry
        order). Each algorithm has its colour (:func:`baiuv.plotting.style.algorithm_colours`:
        one per family of the registry, as in the stopping-time figure).
    instances : sequence of str, optional
        Rows, in order (default: order of appearance).
    """
    need = {
        "instance",
        "algorithm",
        "threshold",
        "log_inv_delta",
        "ratio",
        "ratio_low",
        "ratio_high",
        "theory",
        "constant",
        "T_star",
    }
    if missing := need - set(summary.columns):
        raise ValueError(f"summary is missing columns {sorted(missing)}")
    if summary.empty:
        raise ValueError("summary must not be empty")
    setup()
    if cells is None:
        cells = _registry_order(zip(summary["algorithm"], summary["threshold"], strict=True))
    cells = [tuple(c) for c in cells]
    instances = list(instances or pd.unique(summary["instance"]))
    palette = algorithm_colours([alg for alg, _ in cells])
    colours = [palette[alg] for alg, _ in cells]
    nr, nc = len(instances), len(cells)
    fig, axes = plt.subplots(nr, nc, figsize=(3.6 * nc, 2.9 * nr + 0.9), squeeze=False)
    xmin, xmax = summary["log_inv_delta"].min(), summary["log_inv_delta"].max()
    x = np.geomspace(max(xmin, math.log(2.4) * 1.05), xmax, 200)
    for i, inst in enumerate(instances):
        si = summary[summary["instance"] == inst]
        for j, (alg, thr) in enumerate(cells):
            ax = axes[i, j]
            g = si[(si["algorithm"] == alg) & (si["threshold"] == thr)].sort_values("log_inv_delta")
            ax.set_xscale("log")
            if i == 0:
                ax.set_title(
                    f"{label(alg)}, {label(thr)} threshold",
                    fontsize=10,
                )
            if j == 0:
                ax.set_ylabel(
                    f"{_instance_label(inst)}\n" + r"$\mathbb{E}[\tau_\delta]/\ln(1/\delta)$"
                )
            if i == nr - 1:
                ax.set_xlabel(r"$\ln(1/\delta)$")
            if g.empty:
                ax.text(0.5, 0.5, "not simulated", ha="center", va="center", transform=ax.transAxes)
                continue
            ax.fill_between(
                g["log_inv_delta"],
                g["ratio_low"],
                g["ratio_high"],
                color=colours[j],
                alpha=0.25,
                lw=0,
            )
            ax.plot(
                g["log_inv_delta"],
                g["ratio"],
                "-o",
                ms=3,
                color=colours[j],
                label="simulated (95% CI)",
            )
            T = float(g["T_star"].iloc[0])
            key = str(g["constant"].iloc[0])
            C = float(g["theory"].iloc[0])
            ax.axhline(C, color="k", lw=1.1, label="limit of the theorem")
            text = f"limit {_CONST_TEX.get(key, key)} = {C:.4g}"
            if key != "T_star":
                ax.axhline(T, color="k", ls="--", lw=0.9, label=r"$T^\star(\mu,\sigma^2)$")
                text += f"\n{_CONST_TEX['T_star']} = {T:.4g}"
            ax.text(
                0.97,
                0.95,
                text,
                transform=ax.transAxes,
                ha="right",
                va="top",
                fontsize=8,
                bbox={"boxstyle": "round,pad=0.25", "fc": "white", "ec": "0.8", "alpha": 0.9},
            )
            ax.plot(
                x,
                T * (x - math.log(2.4)) / x,
                color="0.55",
                lw=1.2,
                label=r"lower bound $T^\star\ln(1/(2.4\delta))/\ln(1/\delta)$",
            )
            lo = min(g["ratio_low"].min(), C, T * 0.9)
            hi = max(g["ratio_high"].max(), C, T)
            pad = 0.08 * (hi - lo)
            ax.set_ylim(lo - pad, hi + 2 * pad)
    handles, labels = {}, {}
    for ax in axes.flat:
        for h, lab in zip(*ax.get_legend_handles_labels(), strict=True):
            if lab not in labels:
                labels[lab] = h
    handles = [h for lab, h in labels.items() if lab != "simulated (95% CI)"]
    names = [lab for lab in labels if lab != "simulated (95% CI)"]
    sim = plt.Line2D([], [], color="0.3", marker="o", ms=3, label="simulated mean (band: 95% CI)")
    fig.tight_layout(rect=(0, 0.06 if nr > 1 else 0.12, 1, 1))
    fig.legend(
        [sim, *handles],
        [sim.get_label(), *names],
        loc="lower center",
        ncol=4,
        frameon=False,
        bbox_to_anchor=(0.5, 0.0),
        fontsize=9,
    )
    return fig


def audit_figure(summary: pd.DataFrame, delta: float, algorithms: Sequence[str] | None = None):
    """Pooled error rate per algorithm and ``n0`` with its Wilson interval (bars), the
    largest cell error rate (crosses) and the level ``delta`` (dashed line); symmetric-log
    y axis so that zero error rates stay visible.

    ``summary`` is :func:`baiuv.studies.audit_report.audit_summary`.
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


def figure_of(tables, params):
    """The asymptotic study's figure of its summary (``tables["summary"]``), with the rule's
    ``cells`` and ``instances`` (the record's ``figure`` step)."""
    cells = [tuple(c) for c in params.cells]
    return asymptotic_figure(tables["summary"], cells, params.instances)


def audit_figure_of(tables, params):
    """The audit's figure of its summary (``tables["summary"]``), with the rule's ``delta``
    and ``algorithms`` (the record's ``figure`` step)."""
    return audit_figure(tables["summary"], params.delta, params.algorithms)
