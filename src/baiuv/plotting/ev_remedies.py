"""Figure of the EV-GLR remedies: error rate (Wilson 95 %) against the mean stopping time
relative to the paper's configuration, one panel per instance group."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from baiuv.plotting.style import algorithm_colours, setup

__all__ = ["remedies_figure"]

_MARKERS = ("o", "s", "^", "v", "D", "P", "X", "*", "h", "<", ">")


def remedies_figure(cells: pd.DataFrame, delta: float):
    """Scatter of ``error_rate`` (Wilson bars; zero plotted at ``delta/1000``, log scale)
    against ``cost_vs_paper`` (log scale) per (remedy = marker, EV rule = colour), one panel
    per group; the dashed line is ``delta``."""
    setup()
    groups = list(dict.fromkeys(cells["group"]))
    remedies = list(dict.fromkeys(cells["remedy"]))
    algs = list(dict.fromkeys(cells["algorithm"]))
    colours = algorithm_colours(algs)
    fig, axes = plt.subplots(1, len(groups), figsize=(3.6 * len(groups), 3.6), squeeze=False)
    floor = delta / 1000.0
    for ax, g in zip(axes[0], groups, strict=True):
        c = cells[cells["group"] == g]
        for r in c.itertuples(index=False):
            y = max(r.error_rate, floor)
            lo = max(r.wilson_low, floor)
            hi = max(r.wilson_high, floor)
            m = _MARKERS[remedies.index(r.remedy) % len(_MARKERS)]
            ax.errorbar(
                r.cost_vs_paper,
                y,
                yerr=np.array([[y - lo], [hi - y]]),
                fmt=m,
                color=colours[r.algorithm],
                ms=5,
                capsize=2,
                mfc="none" if not r.resolved else colours[r.algorithm],
            )
        ax.axhline(delta, ls="--", color="black", lw=0.8)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(str(g))
        ax.set_xlabel("mean τ / paper's (heuristic, n0 = 2)")
    axes[0][0].set_ylabel(f"error rate (zero shown at {floor:g})")
    handles = [
        plt.Line2D([], [], ls="", marker=_MARKERS[k % len(_MARKERS)], color="grey", label=rem)
        for k, rem in enumerate(remedies)
    ] + [plt.Line2D([], [], ls="-", color=colours[a], label=a) for a in algs]
    fig.legend(handles=handles, loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize=7)
    fig.suptitle("EV-GLR remedies: filled = resolved below δ", fontsize=9)
    fig.tight_layout()
    return fig
