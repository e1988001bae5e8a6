"""Figure of the "δ-correct stopping" experiment."""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from baiuv.plotting.style import setup, threshold_base, threshold_colours, threshold_order
from baiuv.registry import LAZY_SUFFIX
from baiuv.studies.delta_correct_report import summarize_delta_correct


def delta_correct_figure(
    summary: pd.DataFrame, instances: Sequence[str], algorithms: Sequence[str], delta: float
):
    """Two rows, one column per instance: mean stopping time (± s.e., log scale, dashed line
    ``T* ln(1/delta)``) and empirical error rate (95% Wilson interval, dashed line
    ``delta``) for every algorithm (x axis) and threshold variant (colour; EV versions of a
    family share its colour; squares mark the lazy variants). Order and colours come from
    the registry (:func:`baiuv.plotting.style.threshold_order`, :func:`threshold_colours`):
    the heuristic first, in black."""
    setup()
    variants = threshold_order(summary["threshold"])
    palette = threshold_colours(variants)
    # one legend entry per base family and laziness: "box / ev-box", "bob-lazy / ev-bob-lazy"
    groups: dict[tuple[str, bool], list[str]] = {}
    for v in variants:
        groups.setdefault((threshold_base(v), v.endswith(LAZY_SUFFIX)), []).append(v)
    fig, axes = plt.subplots(
        2,
        len(instances),
        figsize=(5.5 * len(instances), 6.5),
        squeeze=False,
        sharex="col",
        gridspec_kw={"height_ratios": [2, 1]},
    )
    width = 0.8
    for j, inst in enumerate(instances):
        ax_t, ax_e = axes[0, j], axes[1, j]
        si = summary[summary["instance"] == inst]
        for i, alg in enumerate(algorithms):
            sa = si[si["algorithm"] == alg]
            vs = [v for v in variants if v in set(sa["threshold"])]
            for k, v in enumerate(vs):
                row = sa[sa["threshold"] == v].iloc[0]
                x = i - width / 2 + width * (k + 0.5) / max(len(vs), 1)
                c = palette[v]
                mk = "s" if v.endswith(LAZY_SUFFIX) else "o"
                ax_t.errorbar(
                    x,
                    row["mean"],
                    yerr=row["se"] if np.isfinite(row["se"]) else None,
                    fmt=mk,
                    color=c,
                    ms=5,
                    capsize=2,
                )
                ax_e.errorbar(
                    x,
                    row["error_rate"],
                    yerr=[
                        [row["error_rate"] - row["wilson_low"]],
                        [row["wilson_high"] - row["error_rate"]],
                    ],
                    fmt=mk,
                    color=c,
                    ms=4,
                    capsize=2,
                )
        if len(si):
            ax_t.axhline(si["lower_bound"].mean(), ls="--", color="0.3", lw=1)
        ax_e.axhline(delta, ls="--", color="0.3", lw=1)
        ax_t.set_yscale("log")
        ax_t.set_title(f"{inst} instance")
        ax_t.set_ylabel("stopping time (mean ± s.e.)" if j == 0 else "")
        ax_e.set_ylabel("error rate (95% Wilson)" if j == 0 else "")
        ax_e.set_xticks(range(len(algorithms)), list(algorithms))
        ax_e.set_ylim(bottom=-0.002)
    handles = [
        plt.Line2D(
            [], [], color=palette[vs[0]], marker="s" if lazy else "o", ls="", label=" / ".join(vs)
        )
        for (_, lazy), vs in groups.items()
    ]
    handles.append(plt.Line2D([], [], color="0.3", ls="--", label="T* ln(1/δ) (top), δ (bottom)"))
    fig.legend(
        handles=handles,
        loc="lower center",
        ncol=min(len(handles), 4),
        bbox_to_anchor=(0.5, -0.08),
        frameon=False,
    )
    fig.suptitle(f"δ-correct vs heuristic stopping, δ = {delta:g}")
    fig.tight_layout()
    return fig


def figure_of(tables, params):
    """The figure of the study's runs (``tables["runs"]``) with the rule's ``instances``,
    ``algorithms`` and ``delta`` (the record's ``figure`` step)."""
    summary = summarize_delta_correct(tables["runs"])
    return delta_correct_figure(summary, params.instances, params.algorithms, params.delta)
