"""Figure of the EV-GLR remedies: per instance group, the error rate (95 % Wilson interval)
and the mean stopping time relative to the authors' code's configuration of every
(remedy, EV rule) cell, remedies on rows and the EV rules dodged within a row."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd

from baiuv.plotting.style import algorithm_colours, setup

__all__ = ["RULE_MARKERS", "ZERO_MARKER", "figure_of", "remedies_figure"]

#: One marker shape per EV rule (distinct at page width; the colours repeat the palette).
RULE_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "h")
#: Marker of a cell with no error: drawn at its Wilson upper end, pointing down the axis
#: ("at most"), since its point estimate 0 has no place on a log axis.
ZERO_MARKER = "<"

_NEED = {"group", "algorithm", "remedy", "errors", "error_rate", "wilson_low", "wilson_high"}


def remedies_figure(cells: pd.DataFrame, delta: float):
    """One row of two panels per group: left, the error rate (log axis) of every cell with
    its 95 % Wilson interval, the dashed line at δ; right, ``cost_vs_paper`` (log axis).
    Remedies are the rows of each panel, the EV rules dodged within a row (colour and
    marker shape). A filled marker is resolved below δ (Wilson upper end under δ). A cell
    with no error is drawn as :data:`ZERO_MARKER` at its Wilson upper end, the only
    finite bound the runs give, never as a measured rate."""
    if not _NEED | {"cost_vs_paper", "resolved"} <= set(cells.columns):
        missing = sorted(_NEED | {"cost_vs_paper", "resolved"} - set(cells.columns))
        raise ValueError(f"cells must have columns {missing}")
    if len(cells) == 0:
        raise ValueError("cells must not be empty")
    setup()
    groups = list(dict.fromkeys(cells["group"]))
    remedies = list(dict.fromkeys(cells["remedy"]))
    algs = list(dict.fromkeys(cells["algorithm"]))
    colours = algorithm_colours(algs)
    markers = {a: RULE_MARKERS[k % len(RULE_MARKERS)] for k, a in enumerate(algs)}
    step = 0.8 / max(1, len(algs))
    offset = {a: (k - (len(algs) - 1) / 2) * step for k, a in enumerate(algs)}
    row_h = 0.18 * len(remedies) + 0.35
    fig, axes = plt.subplots(
        len(groups),
        2,
        figsize=(6.5, row_h * len(groups) + 0.9),
        squeeze=False,
        sharex="col",
        sharey=True,
    )
    for (ax_err, ax_cost), g in zip(axes, groups, strict=True):
        c = cells[cells["group"] == g]
        for r in c.itertuples(index=False):
            y = remedies.index(r.remedy) + offset[r.algorithm]
            colour = colours[r.algorithm]
            face = colour if r.resolved else "white"
            if r.errors == 0:
                ax_err.plot(r.wilson_high, y, ZERO_MARKER, color=colour, ms=4.5, mfc=face)
            else:
                ax_err.plot([r.wilson_low, r.wilson_high], [y, y], color=colour, lw=0.8)
                ax_err.plot(r.error_rate, y, markers[r.algorithm], color=colour, ms=3.5, mfc=face)
            ax_cost.plot(r.cost_vs_paper, y, markers[r.algorithm], color=colour, ms=3.5, mfc=face)
        ax_err.axvline(delta, ls="--", color="black", lw=0.8)
        ax_cost.axvline(1.0, ls=":", color="grey", lw=0.8)
        for ax in (ax_err, ax_cost):
            ax.set_xscale("log")
            ax.tick_params(labelsize=7)
            for k in range(1, len(remedies)):
                ax.axhline(k - 0.5, color="grey", lw=0.3, alpha=0.5)
            ax.grid(axis="y", visible=False)
        ax_err.set_title(f"{g}: error rate", fontsize=8, loc="left")
        ax_cost.set_title(f"{g}: cost", fontsize=8, loc="left")
    axes[0, 0].set_yticks(range(len(remedies)), remedies, fontsize=7)
    axes[0, 0].set_ylim(len(remedies) - 0.5, -0.5)
    axes[-1, 0].set_xlabel("error rate, 95 % Wilson interval", fontsize=8)
    axes[-1, 1].set_xlabel("mean τ / authors' code's (heuristic, n0 = 2)", fontsize=8)
    handles = [
        plt.Line2D([], [], ls="-", lw=0.8, marker=markers[a], color=colours[a], label=a)
        for a in algs
    ] + [
        plt.Line2D([], [], ls="", marker="o", color="grey", label="resolved below δ"),
        plt.Line2D([], [], ls="", marker="o", color="grey", mfc="white", label="not resolved"),
        plt.Line2D(
            [],
            [],
            ls="",
            marker=ZERO_MARKER,
            color="grey",
            mfc="white",
            label="0 errors: at Wilson upper end",
        ),
        plt.Line2D([], [], ls="--", color="black", lw=0.8, label="δ"),
    ]
    fig.legend(handles=handles, loc="lower center", ncol=4, fontsize=7, frameon=False)
    fig.tight_layout(rect=(0, 0.45 / fig.get_figheight(), 1, 1))
    return fig


def figure_of(tables, params):
    """The figure of the remedies' cells (``tables["cells"]``) with the rule's ``delta``
    (the record's ``figure`` step)."""
    return remedies_figure(tables["cells"], params.delta)
