"""Threshold figures (fig:stopping_thresholds_evolutions_glrt, _evglrt, _glrt_evglrt)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from .style import setup, threshold_colours

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

    setup()
    palette = threshold_colours()
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
            if fam == "heuristic":
                color, ls = "black", "--"
            else:
                color = palette[fam]
                ls = (
                    ":"
                    if fam.startswith("ev-")
                    and any(not f.startswith("ev-") and f != "heuristic" for f in families)
                    else "-"
                )
            ax.plot(s["x"], s["mean"], ls=ls, color=color, label=LABELS[fam])
            if (s["max"] - s["min"]).abs().max() > 0:
                ax.fill_between(s["x"], s["min"], s["max"], color=color, alpha=0.25, lw=0)
        ax.set_xlabel(xlabel)
        ax.set_ylabel("threshold")
    axes[0].set_title(f"(a) t = {t_fixed}")
    axes[1].set_title(f"(b) δ = {delta_fixed:g}")
    axes[1].set_xscale("log")
    axes[1].legend(fontsize=8, loc="upper right")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig
