"""Threshold figures (fig:stopping_thresholds_evolutions_glrt, _evglrt, _glrt_evglrt)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from .style import setup

METHOD_COLORS = {"student": 0, "box": 1, "kl": 2, "bob": 4}  # colorblind palette indices
#: markers tell the families apart where their curves overlap (Box and BoB at large t)
METHOD_MARKERS = {"student": "x", "box": "s", "kl": "^", "bob": "o"}
LABELS = {
    "heuristic": "heuristic ln((1+ln t)/δ)",
    "student": "Student",
    "box": "Box",
    "kl": "KL",
    "bob": "BoB",
    "ev-student": "EV-Student",
    "ev-box": "EV-Box",
    "ev-bob": "EV-BoB",
}


def _summary(df: pd.DataFrame) -> pd.DataFrame:
    """Mean and min/max band over streams, per family and x (inf kept as nan)."""
    d = df.copy()
    d["value"] = d["value"].replace([np.inf, -np.inf], np.nan)
    return d.groupby(["family", "x"])["value"].agg(["mean", "min", "max"]).reset_index()


def threshold_figure(
    df_delta: pd.DataFrame,
    df_time: pd.DataFrame,
    families: Sequence[str],
    *,
    t_fixed: int,
    delta_fixed: float,
    title: str | None = None,
):
    """Two panels: (a) thresholds against ln(1/delta) at ``t_fixed``, (b) against t at
    ``delta_fixed``. Data-dependent families are the mean over streams with a min-max band;
    the heuristic is dashed. Returns the matplotlib figure."""
    import matplotlib.pyplot as plt
    import seaborn as sns

    setup()
    palette = sns.color_palette("colorblind", 8)
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for ax, df, xlabel in (
        (axes[0], df_delta, "ln(1/δ)"),
        (axes[1], df_time, "t"),
    ):
        summ = _summary(df[df.family.isin(families)])
        for fam in families:
            s = summ[summ.family == fam].sort_values("x")
            if s.empty:
                continue
            base = fam.removeprefix("ev-")
            if fam == "heuristic":
                color, ls, marker = "black", "--", None
            else:
                color, marker = palette[METHOD_COLORS[base]], METHOD_MARKERS[base]
                ls = (
                    ":"
                    if fam.startswith("ev-")
                    and any(not f.startswith("ev-") and f != "heuristic" for f in families)
                    else "-"
                )
            ax.plot(
                s["x"],
                s["mean"],
                ls=ls,
                color=color,
                label=LABELS[fam],
                marker=marker,
                markevery=max(1, len(s) // 8),
                markersize=5,
                mfc="none" if fam.startswith("ev-") else color,
            )
            if (s["max"] - s["min"]).abs().max() > 0:
                ax.fill_between(s["x"], s["min"], s["max"], color=color, alpha=0.25, lw=0)
        ax.set_xlabel(xlabel)
        ax.set_ylabel("threshold")
    axes[0].set_title(f"(a) t = {t_fixed}")
    axes[1].set_title(f"(b) δ = {delta_fixed:g}")
    axes[1].set_xscale("log")
    # the thresholds start very high near their initial times: a log y-axis keeps the
    # large-t part readable (a linear axis squashed it into a few percent of the height)
    axes[1].set_yscale("log")
    axes[1].set_ylabel("threshold (log scale)")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(
        handles,
        labels,
        loc="lower center",
        ncol=min(len(labels), 4),
        fontsize=9,
        frameon=False,
        bbox_to_anchor=(0.5, -0.02),
    )
    if title:
        fig.suptitle(title)
    fig.tight_layout(rect=(0, 0.1 if len(labels) > 4 else 0.06, 1, 1))
    return fig


def bob_slope_figure(curves: pd.DataFrame, summary: pd.DataFrame):
    """Figure of the BoB slope study (decision D171): (a) BoB, KL, Box and the bound
    min(Box(δ/2), KL(δ/2)) against ln(1/δ) at the smallest t; (b) local slopes in ln(1/δ)
    of BoB (solid) and KL (dashed) for every t, with where BoB joins KL. Returns the
    matplotlib figure."""
    import matplotlib.pyplot as plt
    import seaborn as sns

    from baiuv.experiments.bob_slope import local_slopes

    setup()
    palette = sns.color_palette("colorblind", 8)
    fig, axes = plt.subplots(1, 2, figsize=(10, 4.2))
    t0 = int(curves["t"].min())
    w = curves[curves["t"] == t0].pivot(index="x", columns="family", values="value")
    w = w.replace([np.inf, -np.inf], np.nan).sort_index()
    ax = axes[0]
    for fam in ("box", "kl", "bob"):
        ax.plot(
            w.index,
            w[fam],
            color=palette[METHOD_COLORS[fam]],
            marker=METHOD_MARKERS[fam],
            markevery=max(1, len(w) // 10),
            markersize=4,
            label=LABELS[fam],
            ls="-" if fam == "bob" else "--",
        )
    ax.plot(
        w.index,
        np.minimum(w["box(δ/2)"], w["kl(δ/2)"]),
        color="black",
        ls=":",
        label="min(Box(δ/2), KL(δ/2))",
    )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("ln(1/δ)")
    ax.set_ylabel("threshold")
    ax.set_title(f"(a) thresholds at t = {t0}")
    ax.legend(fontsize=8, loc="upper left")
    ax = axes[1]
    ls_ = local_slopes(curves)
    colors = sns.color_palette("rocket", len(summary) + 1)
    for i, r in enumerate(summary.sort_values("t").itertuples()):
        g = ls_[ls_["t"] == r.t]
        for fam, style in (("bob", "-"), ("kl", "--")):
            h = g[g["family"] == fam].sort_values("x")
            ax.plot(
                h["x"],
                h["slope"],
                ls=style,
                color=colors[i],
                label=f"{LABELS[fam]}, t = {int(r.t)}",
            )
        if np.isfinite(r.join_log_inv_delta):
            ax.axvline(r.join_log_inv_delta, color=colors[i], lw=0.8, alpha=0.6)
    ax.axhline(1.0, color="grey", lw=0.8)
    ax.axvspan(curves["x"].min(), 20, color="grey", alpha=0.12, lw=0)
    ax.text(1.1, 0.05, "range of Fig. 1(a)", transform=ax.get_xaxis_transform(), fontsize=8)
    ax.set_xscale("log")
    ax.set_xlabel("ln(1/δ)")
    ax.set_ylabel("local slope d threshold / d ln(1/δ)")
    ax.set_title("(b) slopes; vertical lines: BoB joins KL")
    ax.legend(fontsize=7, ncol=1, loc="upper right")
    fig.tight_layout()
    return fig
