"""Threshold figures (fig:stopping_thresholds_evolutions_glrt, _evglrt, _glrt_evglrt)."""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

from baiuv.experiments.bob_slope import local_slopes
from baiuv.experiments.threshold_claims import FIGURE_RANGE
from baiuv.registry import THRESHOLD_FAMILIES, label

from .style import not_delta_correct, setup, threshold_colours, threshold_markers

#: The heuristic's label in the threshold figures names its formula.
HEURISTIC_LABEL = "heuristic ln((1+ln t)/δ)"


def figure_families(which: str) -> list[str]:
    """The paper's families drawn in the threshold figure ``which``, from the registry: ``"glr"`` the
    δ-correct families of the GLR stopping rule, ``"evglr"`` those of the EV-GLR rule,
    ``"all"`` both; each followed by the families that are not δ-correct (the heuristic,
    drawn as the dashed reference), in registry order."""
    fams = [f for f in THRESHOLD_FAMILIES.values() if f.paper]
    rules = {"glr": ("GLR",), "evglr": ("EV-GLR",), "all": ("GLR", "EV-GLR")}
    if which not in rules:
        raise ValueError(f"which must be one of {sorted(rules)}, got {which!r}")
    want = rules[which]
    dc = [f.name for f in fams if f.delta_correct and any(r in f.rules for r in want)]
    if which == "all":  # GLR families first, then the EV ones
        dc.sort(key=lambda n: "GLR" not in THRESHOLD_FAMILIES[n].rules)
    return dc + [f.name for f in fams if not f.delta_correct]


def _label(fam: str) -> str:
    return HEURISTIC_LABEL if fam == "heuristic" else label(fam)


def _ev(fam: str) -> bool:
    """Served by the EV-GLR stopping rule only."""
    f = THRESHOLD_FAMILIES.get(fam)
    return f.rules == ("EV-GLR",) if f is not None else fam.startswith("ev-")


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
    the heuristic is dashed, another family that is not δ-correct dash-dotted. When both an EV-GLR family and its GLR counterpart are drawn
    (:func:`ratio_pairs`), a second row shows their ratio EV/GLR of the mean curves (the
    curves of the first row nearly coincide, the ratio shows which is above). Returns the
    matplotlib figure."""
    setup()
    colours, markers = threshold_colours(families), threshold_markers(families)
    all_ev = all(_ev(f) for f in families if markers[f] is not None)
    pairs = ratio_pairs(families)
    rows = 2 if pairs else 1
    fig, grid = plt.subplots(
        rows, 2, figsize=(10, 4 if rows == 1 else 6.6), squeeze=False, sharex="col"
    )
    axes = grid[0]
    for ax, df, xlabel in (
        (axes[0], df_delta, "ln(1/δ)"),
        (axes[1], df_time, "t"),
    ):
        summ = _summary(df[df.family.isin(families)])
        for fam in families:
            s = summ[summ.family == fam].sort_values("x")
            if s.empty:
                continue
            color, marker = colours[fam], markers[fam]
            if marker is None:  # the heuristic: the reference, dashed
                ls = "--"
            elif not_delta_correct(fam):  # another family that is not δ-correct
                ls = "-."
            else:  # EV families dotted when GLR ones are drawn too
                ls = ":" if _ev(fam) and not all_ev else "-"
            ax.plot(
                s["x"],
                s["mean"],
                ls=ls,
                color=color,
                label=_label(fam),
                marker=marker,
                markevery=max(1, len(s) // 8),
                markersize=5,
                mfc="none" if _ev(fam) else color,
            )
            if (s["max"] - s["min"]).abs().max() > 0:
                ax.fill_between(s["x"], s["min"], s["max"], color=color, alpha=0.25, lw=0)
        ax.set_xlabel(xlabel)
        ax.set_ylabel("threshold")
    if pairs:
        for ax, df, xlabel in ((grid[1, 0], df_delta, "ln(1/δ)"), (grid[1, 1], df_time, "t")):
            summ = _summary(df)
            for glr, ev in pairs:
                a = summ[summ.family == glr].set_index("x")["mean"]
                b = summ[summ.family == ev].set_index("x")["mean"]
                r = (b / a).dropna().sort_index()
                ax.plot(
                    r.index,
                    r.values,
                    color=colours[ev],
                    marker=markers[ev],
                    mfc="none",
                    markevery=max(1, len(r) // 8),
                    markersize=5,
                    label=f"{_label(ev)} / {_label(glr)}",
                )
            ax.axhline(1.0, color="black", lw=0.8)
            ax.set_xlabel(xlabel)
            ax.set_ylabel("ratio EV-GLR / GLR")
            ax.legend(fontsize=8, frameon=False)
        axes[0].set_xlabel("")
        axes[1].set_xlabel("")
        grid[1, 0].set_title("(c) EV-GLR threshold / GLR threshold, t = " + str(t_fixed))
        grid[1, 1].set_title(f"(d) same ratio, δ = {delta_fixed:g} (log scale)")
        grid[1, 1].set_yscale("log")
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


def ratio_pairs(families: Sequence[str]) -> list[tuple[str, str]]:
    """``(GLR family, EV-GLR family)`` pairs sharing a base family, both in ``families``."""
    fams = THRESHOLD_FAMILIES.values()
    glr = {f.base: f.name for f in fams if f.rules == ("GLR",) and f.name in families}
    return [
        (glr[f.base], f.name)
        for f in fams
        if f.rules == ("EV-GLR",) and f.base in glr and f.name in families
    ]


def bob_slope_figure(curves: pd.DataFrame, summary: pd.DataFrame):
    """Figure of the BoB slope study (decision D171): (a) BoB, KL, Box and the bound
    min(Box(δ/2), KL(δ/2)) against ln(1/δ) at the smallest t; (b) local slopes in ln(1/δ)
    of BoB (solid) and KL (dashed) for every t, with where BoB joins KL. Returns the
    matplotlib figure."""
    setup()
    colours, markers = threshold_colours(), threshold_markers()
    # printed at page width (6.5 in) with 9 pt text
    fig, axes = plt.subplots(1, 2, figsize=(6.5, 3.6))
    t0 = int(curves["t"].min())
    w = curves[curves["t"] == t0].pivot(index="x", columns="family", values="value")
    w = w.replace([np.inf, -np.inf], np.nan).sort_index()
    ax = axes[0]
    for fam in ("box", "kl", "bob"):
        ax.plot(
            w.index,
            w[fam],
            color=colours[fam],
            marker=markers[fam],
            markevery=max(1, len(w) // 10),
            markersize=4,
            label=_label(fam),
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
    ax.set_title(f"(a) thresholds at t = {t0}", fontsize=9)
    ax.legend(fontsize=8, loc="upper left", frameon=False)
    ax = axes[1]
    ls_ = local_slopes(curves)
    # one qualitative colour per t (a sequential palette made the t's indistinguishable)
    colors = sns.color_palette("colorblind", len(summary))
    for i, r in enumerate(summary.sort_values("t").itertuples()):
        g = ls_[ls_["t"] == r.t]
        for fam, style in (("bob", "-"), ("kl", "--")):
            h = g[g["family"] == fam].sort_values("x")
            ax.plot(
                h["x"],
                h["slope"],
                ls=style,
                color=colors[i],
                label=f"{_label(fam)}, t = {int(r.t)}",
            )
        if np.isfinite(r.join_log_inv_delta):
            ax.axvline(r.join_log_inv_delta, color=colors[i], lw=0.8, alpha=0.6)
    ax.axhline(1.0, color="grey", lw=0.8)
    ax.axvspan(FIGURE_RANGE[0], FIGURE_RANGE[1], color="grey", alpha=0.15, lw=0)
    ax.text(1.1, 0.04, "Fig. 1(a)", transform=ax.get_xaxis_transform(), fontsize=8)
    ax.set_xscale("log")
    ax.set_xlabel("ln(1/δ)")
    ax.set_ylabel("local slope in ln(1/δ)")
    ax.set_title("(b) slopes (BoB solid, KL dashed)", fontsize=9)
    ax.legend(
        [plt.Line2D([], [], color=c) for c in colors],
        [f"t = {int(t)}" for t in summary.sort_values("t")["t"]],
        fontsize=8,
        loc="upper right",
        frameon=False,
    )
    for a in axes:
        a.tick_params(labelsize=8)
        a.xaxis.label.set_size(9)
        a.yaxis.label.set_size(9)
    fig.tight_layout()
    return fig
