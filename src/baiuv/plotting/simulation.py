"""Figure ``fig:random_instances_heuristic_threshold``: empirical stopping times."""

from __future__ import annotations

import math
from collections.abc import Sequence

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.patches import Patch

from baiuv.plotting.style import algorithm_colours, family, is_plug_in, setup

PANEL_TITLES = {
    "random": "random instances, K = 10",
    "standard": "standard instance",
    "easy": "easy instance",
}


def stopping_time_figure(
    df: pd.DataFrame,
    experiments: Sequence[str] | None = None,
    algorithms: Sequence[str] | None = None,
):
    """Box plots of the stopping time, one panel per experiment, one box per algorithm.

    The two wrappers of one algorithm (adapted costs, then "EV-") are adjacent and share a
    colour (EV boxes hatched); the dashed line is the lower bound ``T*(mu, sigma^2)
    log(1/delta)`` (Lemma ``lem:lower_bound_sample_complexity``), averaged over the
    instances for the random experiment (decision D49).

    Parameters
    ----------
    df : DataFrame
        Aggregated runs (columns ``experiment, algorithm, stopping_time, lower_bound``).
    experiments, algorithms : sequences of str, optional
        Panels and box order (default: order of appearance).

    Returns
    -------
    matplotlib.figure.Figure
    """
    need = {"experiment", "algorithm", "stopping_time", "lower_bound"}
    if not need <= set(df.columns):
        raise ValueError(
            f"df must have columns {sorted(need)}, missing {sorted(need - set(df.columns))}"
        )
    if len(df) == 0:
        raise ValueError("df must not be empty")
    setup()
    exps = list(experiments) if experiments is not None else list(dict.fromkeys(df["experiment"]))
    algs = list(algorithms) if algorithms is not None else list(dict.fromkeys(df["algorithm"]))
    palette = algorithm_colours(algs)
    fig, axes = plt.subplots(
        1, len(exps), figsize=(max(4.5, 0.45 * len(algs)) * len(exps), 4.2), squeeze=False
    )
    for ax, exp in zip(axes[0], exps, strict=True):
        sub = df[df["experiment"] == exp]
        present = [a for a in algs if (sub["algorithm"] == a).any()]
        data = [sub.loc[sub["algorithm"] == a, "stopping_time"].to_numpy(float) for a in present]
        bp = ax.boxplot(
            data,
            patch_artist=True,
            showmeans=True,
            widths=0.7,
            flierprops={"markersize": 2, "alpha": 0.4},
            # black median: an orange line vanished on the orange/brown boxes
            medianprops={"color": "black", "linewidth": 1.6},
            meanprops={
                "marker": "^",
                "markerfacecolor": "white",
                "markeredgecolor": "black",
                "markersize": 4,
            },
        )
        for patch, a in zip(bp["boxes"], present, strict=True):
            patch.set_facecolor(palette[a])
            if is_plug_in(a):
                patch.set_hatch("///")
                patch.set_alpha(0.65)
        ax.set_xticks(
            range(1, len(present) + 1), present, rotation=60, ha="right", rotation_mode="anchor"
        )
        lb = float(sub["lower_bound"].mean())
        if math.isfinite(lb) and lb > 0:
            ax.axhline(
                lb, ls="--", color="black", lw=1.2, label=r"$T^\star(\mu,\sigma^2)\log(1/\delta)$"
            )
        ax.set_yscale("log")
        ax.set_title(f"{PANEL_TITLES.get(exp, exp)}: {len(sub) // max(1, len(present))} runs")
        ax.set_ylabel("stopping time")
        # separate the wrapper pairs visually
        for k in range(1, len(present)):
            if family(present[k]) != family(present[k - 1]):
                ax.axvline(k + 0.5, color="grey", lw=0.5, alpha=0.5)
    handles = [
        Patch(facecolor="white", edgecolor="black", label="adapted costs"),
        Patch(facecolor="white", edgecolor="black", hatch="///", label="EV (plug-in)"),
    ]
    handles += [
        plt.Line2D([], [], color="black", lw=1.6, label="median"),
        plt.Line2D(
            [],
            [],
            ls="none",
            marker="^",
            markerfacecolor="white",
            markeredgecolor="black",
            label="mean",
        ),
        plt.Line2D([], [], ls="--", color="black", label=r"lower bound $T^\star\log(1/\delta)$"),
    ]
    fig.legend(
        handles=handles, loc="upper center", ncol=5, bbox_to_anchor=(0.5, 1.0), frameon=False
    )
    fig.tight_layout(rect=(0, 0, 1, 0.9))
    return fig


def lower_bounds(df: pd.DataFrame) -> pd.Series:
    """Mean lower bound per experiment."""
    return df.groupby("experiment")["lower_bound"].mean()


__all__ = ["lower_bounds", "stopping_time_figure"]
