"""Figure of the EV-GLR remedies: error rate (Wilson 95 %) against the mean stopping time
relative to the authors' code's configuration, one panel per instance group."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd

from baiuv.plotting.style import algorithm_colours, setup

__all__ = ["remedies_figure"]

_MARKERS = ("o", "s", "^", "v", "D", "P", "X", "*", "h", "<", ">")


def remedies_figure(cells: pd.DataFrame, delta: float):
    """Upper end of the 95 % Wilson interval of ``error_rate`` (log scale; the quantity that
    decides "resolved below δ", never zero) against ``cost_vs_paper`` (log scale), per
    (remedy = marker, EV rule = colour), one panel per group on a 2-column grid at page
    width; a filled marker is resolved below δ (the dashed line), and a thin segment runs
    down to the point estimate when it is positive."""
    setup()
    groups = list(dict.fromkeys(cells["group"]))
    remedies = list(dict.fromkeys(cells["remedy"]))
    algs = list(dict.fromkeys(cells["algorithm"]))
    colours = algorithm_colours(algs)
    ncol = min(2, len(groups))
    nrow = -(-len(groups) // ncol)
    fig, axes = plt.subplots(
        nrow, ncol, figsize=(6.5, 2.5 * nrow + 1.2), squeeze=False, sharey=True
    )
    for ax, g in zip(axes.flat, groups, strict=False):
        c = cells[cells["group"] == g]
        for r in c.itertuples(index=False):
            colour = colours[r.algorithm]
            if r.error_rate > 0:
                ax.plot([r.cost_vs_paper] * 2, [r.error_rate, r.wilson_high], color=colour, lw=0.8)
            ax.plot(
                r.cost_vs_paper,
                r.wilson_high,
                _MARKERS[remedies.index(r.remedy) % len(_MARKERS)],
                color=colour,
                ms=5,
                mfc=colour if r.resolved else "white",
            )
        ax.axhline(delta, ls="--", color="black", lw=0.8)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(str(g), fontsize=9)
        ax.tick_params(labelsize=8)
    for ax in axes.flat[len(groups) :]:
        ax.set_visible(False)
    for ax in axes[-1]:
        ax.set_xlabel("mean τ / authors' code's (heuristic, n0 = 2)", fontsize=8)
    for row in axes:
        row[0].set_ylabel("error rate, Wilson 95 % upper end", fontsize=8)
    handles = [
        plt.Line2D([], [], ls="", marker=_MARKERS[k % len(_MARKERS)], color="grey", label=rem)
        for k, rem in enumerate(remedies)
    ] + [plt.Line2D([], [], ls="-", color=colours[a], label=a) for a in algs]
    handles.append(plt.Line2D([], [], ls="--", color="black", lw=0.8, label="δ"))
    fig.legend(handles=handles, loc="lower center", ncol=4, fontsize=7, frameon=False)
    fig.suptitle("EV-GLR remedies: filled marker = resolved below δ", fontsize=9)
    fig.tight_layout(rect=(0, 0.16, 1, 1))
    return fig
