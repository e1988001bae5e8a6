"""Figure ``fig:random_instances_heuristic_threshold``: empirical stopping times."""

from __future__ import annotations

import math
from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib import cbook
from matplotlib.patches import Patch

from baiuv.plotting.style import algorithm_colours, family, is_plug_in, setup

#: Width of the figure in inches: a page's text width, so that 8-9 pt labels print at size.
PAGE_WIDTH = 6.5

PANEL_TITLES = {
    "random": "random instances, K = 10",
    "standard": "standard instance",
    "easy": "easy instance",
}


def log_box_stats(values: np.ndarray, label: str) -> dict:
    """Box-plot statistics of ``values`` (> 0) computed on ``log10(values)`` and mapped back:
    quartiles, median and Tukey whiskers (1.5 interquartile ranges) *in log space*, the
    scale the figure is drawn on, so the whiskers and outliers are those a reader of a
    log axis expects; the mean is the arithmetic mean of ``values``."""
    values = np.asarray(values, dtype=float)
    if values.size == 0 or np.any(values <= 0):
        raise ValueError("values must be a non-empty array of positive numbers")
    (st,) = cbook.boxplot_stats(np.log10(values), whis=1.5, labels=[label])
    for k in ("med", "q1", "q3", "whislo", "whishi", "cilo", "cihi"):
        st[k] = float(10.0 ** st[k])
    st["fliers"] = 10.0 ** np.asarray(st["fliers"])
    st["mean"] = float(values.mean())
    return st


def collapsed_box(values: np.ndarray) -> tuple[float, float] | None:
    """``(value, share)`` when the quartiles of ``values`` coincide (a box drawn as a flat
    line): the common quartile value and the share of ``values`` equal to it; ``None``
    otherwise. Quartiles as :func:`log_box_stats` computes them (linear interpolation;
    ``log10`` is increasing, so they coincide on either scale)."""
    values = np.asarray(values, dtype=float)
    if values.size == 0:
        raise ValueError("values must be non-empty")
    q1, q3 = np.percentile(values, [25.0, 75.0])
    if q1 != q3:
        return None
    return float(q1), float(np.mean(values == q1))


#: Smallest share of a box's runs stopped at the first check that the figure marks.
FIRST_CHECK_MIN_SHARE = 0.01


def first_check_share(stopping_time: np.ndarray, first_check: np.ndarray) -> float:
    """Share of the runs whose stopping time equals their first check ``n0 * K`` (the first
    time a GLR rule may stop, after its initialisation)."""
    tau = np.asarray(stopping_time, dtype=float)
    first = np.asarray(first_check, dtype=float)
    if tau.size == 0 or tau.shape != first.shape:
        raise ValueError("stopping_time and first_check must be non-empty and of one shape")
    return float(np.mean(tau == first))


def collapsed_label(value: float, share: float) -> str:
    """Annotation of a collapsed box in three short lines, narrow enough for one box, e.g.
    ``"92 % of\\nruns at\\nτ = 235"``."""
    return f"{100.0 * share:.0f} % of\nruns at\nτ = {value:g}"


def stopping_time_figure(
    df: pd.DataFrame,
    experiments: Sequence[str] | None = None,
    algorithms: Sequence[str] | None = None,
    n0: int | None = None,
):
    """Box plots of the stopping time, one panel per experiment (stacked, page width),
    one box per algorithm.

    Boxes, whiskers and outliers are computed on ``log10(tau)`` (:func:`log_box_stats`) and
    drawn on a log axis. The two wrappers of one algorithm (adapted costs, then "EV-") are
    adjacent and share a colour (EV boxes hatched). The dashed line is the line the paper's
    Figure 2 draws, ``T*(mu, sigma^2) ln(1/delta)`` (its caption calls it "lower bound"),
    the dotted one the lower bound of Lemma ``lem:lower_bound_sample_complexity`` as stated,
    ``T*(mu, sigma^2) ln(1/(2.4 delta))``; both averaged over the instances for the random
    experiment (decision D49). A box whose quartiles coincide is a flat line (e.g. FHN
    stopping at the end of its initialisation); it is annotated with the share of the runs
    at that stopping time (:func:`collapsed_box`, decision D251). Given ``n0``, every other
    box with at least :data:`FIRST_CHECK_MIN_SHARE` of its runs stopped at the first check
    ``tau = n0 * K`` gets a red diamond there labelled with that share.

    Parameters
    ----------
    df : DataFrame
        Aggregated runs (columns ``experiment, algorithm, stopping_time, lower_bound,
        reference_line``).
    experiments, algorithms : sequences of str, optional
        Panels and box order (default: order of appearance).
    n0 : int, optional
        Initial pulls per arm of the GLR rules (first check at ``n0 * K``, ``K`` read from
        a column ``K``); no first-check marker when omitted.

    Returns
    -------
    matplotlib.figure.Figure
    """
    need = {"experiment", "algorithm", "stopping_time", "lower_bound", "reference_line"}
    if not need <= set(df.columns):
        raise ValueError(
            f"df must have columns {sorted(need)}, missing {sorted(need - set(df.columns))}"
        )
    if len(df) == 0:
        raise ValueError("df must not be empty")
    if n0 is not None and (int(n0) != n0 or n0 < 1 or "K" not in df.columns):
        raise ValueError(f"n0 must be a positive integer and df must have a column K, got {n0!r}")
    setup()
    exps = list(experiments) if experiments is not None else list(dict.fromkeys(df["experiment"]))
    algs = list(algorithms) if algorithms is not None else list(dict.fromkeys(df["algorithm"]))
    palette = algorithm_colours(algs)
    fig, axes = plt.subplots(
        len(exps), 1, figsize=(PAGE_WIDTH, 2.35 * len(exps) + 0.6), squeeze=False
    )
    for ax, exp in zip(axes[:, 0], exps, strict=True):
        sub = df[df["experiment"] == exp]
        present = [a for a in algs if (sub["algorithm"] == a).any()]
        stats = [
            log_box_stats(sub.loc[sub["algorithm"] == a, "stopping_time"].to_numpy(float), a)
            for a in present
        ]
        bp = ax.bxp(
            stats,
            patch_artist=True,
            showmeans=True,
            widths=0.7,
            flierprops={"markersize": 2, "alpha": 0.4},
            boxprops={"linewidth": 1.0},
            # black median: an orange line vanished on the orange/brown boxes
            medianprops={"color": "black", "linewidth": 2.0},
            meanprops={
                "marker": "^",
                "markerfacecolor": "white",
                "markeredgecolor": "black",
                "markersize": 4,
            },
        )
        for patch, a in zip(bp["boxes"], present, strict=True):
            patch.set_facecolor(palette[a])
            patch.set_edgecolor(palette[a] if not is_plug_in(a) else "black")
            if is_plug_in(a):
                patch.set_hatch("///")
                patch.set_alpha(0.65)
        for pos, a in enumerate(present, 1):
            collapsed = collapsed_box(sub.loc[sub["algorithm"] == a, "stopping_time"])
            if collapsed is not None:  # the box is a line: say how many runs it holds
                ax.annotate(
                    collapsed_label(*collapsed),
                    (pos, collapsed[0]),
                    xytext=(0, -6),
                    textcoords="offset points",
                    ha="center",
                    va="top",
                    fontsize=6.5,
                    linespacing=1.1,
                    bbox={"boxstyle": "round,pad=0.15", "fc": "white", "ec": "none", "alpha": 0.8},
                )
        ax.set_xticks(range(1, len(present) + 1), present, fontsize=8)
        for value, style in (("reference_line", "--"), ("lower_bound", ":")):
            y = float(sub[value].mean())
            if math.isfinite(y) and y > 0:
                ax.axhline(y, ls=style, color="black", lw=1.1)
        ax.set_yscale("log")
        if n0 is not None:
            _mark_first_checks(ax, sub, present, int(n0))
        ax.tick_params(axis="y", labelsize=8)
        runs = len(sub) // max(1, len(present))
        ax.set_title(f"{PANEL_TITLES.get(exp, exp)}: {runs} runs", fontsize=9)
        ax.set_ylabel("stopping time", fontsize=9)
        # separate the wrapper pairs visually
        for k in range(1, len(present)):
            if family(present[k]) != family(present[k - 1]):
                ax.axvline(k + 0.5, color="grey", lw=0.5, alpha=0.5)
    handles = _legend_handles(n0)
    fig.legend(
        handles=handles,
        loc="upper center",
        ncol=3,
        bbox_to_anchor=(0.5, 1.0),
        frameon=False,
        fontsize=8,
    )
    legend_rows = -(-len(handles) // 3)
    fig.tight_layout(rect=(0, 0, 1, 1 - (0.18 * legend_rows + 0.05) / fig.get_figheight()))
    return fig


def _legend_handles(n0: int | None) -> list:
    """The legend of :func:`stopping_time_figure`: box styles, median, mean, the two lines,
    the first-check marker (given ``n0``) and what the whiskers are."""
    handles = [
        Patch(facecolor="white", edgecolor="black", label="adapted costs"),
        Patch(facecolor="white", edgecolor="black", hatch="///", label="EV (plug-in)"),
        plt.Line2D([], [], color="black", lw=2.0, label="median"),
        plt.Line2D(
            [],
            [],
            ls="none",
            marker="^",
            markerfacecolor="white",
            markeredgecolor="black",
            label="mean",
        ),
        plt.Line2D(
            [], [], ls="--", color="black", label=r"$T^\star(\mu,\sigma^2)\ln(1/\delta)$ (Fig. 2)"
        ),
        plt.Line2D(
            [],
            [],
            ls=":",
            color="black",
            label=r"$T^\star(\mu,\sigma^2)\ln(1/(2.4\delta))$ (Lemma 2)",
        ),
    ]
    if n0 is not None:
        handles.append(
            plt.Line2D(
                [],
                [],
                ls="none",
                marker="D",
                markerfacecolor="white",
                markeredgecolor="red",
                label=f"runs stopped at τ = n0·K (share, if ≥ {100 * FIRST_CHECK_MIN_SHARE:g} %)",
            )
        )
    handles.append(
        Patch(facecolor="none", edgecolor="none", label="whiskers: 1.5 IQR fences on log τ")
    )
    return handles


def _mark_first_checks(ax, sub: pd.DataFrame, present: list[str], n0: int) -> None:
    """Red diamond at ``tau = n0 * K`` with the share of the box's runs stopped there, for
    the boxes not already annotated as collapsed at that value."""
    lowest = float("inf")
    for pos, a in enumerate(present, 1):
        rows = sub[sub["algorithm"] == a]
        first = n0 * rows["K"].to_numpy(float)
        share = first_check_share(rows["stopping_time"].to_numpy(float), first)
        collapsed = collapsed_box(rows["stopping_time"])
        if share < FIRST_CHECK_MIN_SHARE or (collapsed is not None and collapsed[1] == share):
            continue
        y = float(np.median(first))
        ax.plot(pos, y, "D", ms=4, mfc="white", mec="red", mew=1.2, zorder=5)
        ax.annotate(
            f"{100.0 * share:.0f} %",
            (pos, y),
            xytext=(0, -4),
            textcoords="offset points",
            ha="center",
            va="top",
            fontsize=6.5,
            color="red",
            bbox={"boxstyle": "round,pad=0.1", "fc": "white", "ec": "none", "alpha": 0.85},
        )
        lowest = min(lowest, y)
    if lowest < float("inf"):  # room under the lowest diamond for its label
        bottom, top = ax.get_ylim()
        ax.set_ylim(min(bottom, lowest / 2.2), top)


def lower_bounds(df: pd.DataFrame) -> pd.Series:
    """Mean lower bound per experiment."""
    return df.groupby("experiment")["lower_bound"].mean()


__all__ = [
    "PAGE_WIDTH",
    "collapsed_box",
    "collapsed_label",
    "FIRST_CHECK_MIN_SHARE",
    "first_check_share",
    "log_box_stats",
    "lower_bounds",
    "stopping_time_figure",
]
