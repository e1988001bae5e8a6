"""Figure of Appendix ``app:sss_exp_characteristic_times`` (ratio T*/T*_{s2} and bound)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from baiuv.plotting.style import setup

__all__ = ["excess_floor", "ratio_figure"]

_RATIO = r"$T^\star(\mu,\sigma^2)/T^\star_{\sigma^2}(\mu)$"


def excess_floor(excess: np.ndarray) -> float:
    """Bottom of the log axis of ``ratio - 1``: a decade below the smallest positive excess,
    where the points whose ratio is not above 1 (``excess <= 0``) are drawn as crosses."""
    pos = np.asarray(excess, dtype=float)
    pos = pos[pos > 0]
    if pos.size == 0:
        return 1e-12
    return float(10.0 ** (np.floor(np.log10(pos.min())) - 1.0))


def ratio_figure(gap_df: pd.DataFrame, var_df: pd.DataFrame, r_fixed: float, gap_fixed: float):
    """Two columns, (a) against the gap at fixed ``r`` and (b) against ``r`` at fixed gap.

    Top row: the ratio T*/T*_{s2} and its bound d/ln(1+d) on log axes (the paper's
    Figure 3). Bottom row: ``ratio - 1`` on a log axis, the only scale on which "the ratio
    is above 1" can be read where the ratio is 1.00-1.02; a point whose ratio is not above 1
    is drawn as a red cross at the bottom of that axis (:func:`excess_floor`), never
    dropped."""
    setup()
    fig, axes = plt.subplots(
        2, 2, figsize=(6.5, 5.0), sharex="col", gridspec_kw={"height_ratios": (3, 2)}
    )
    for col, (df, x, label, title) in enumerate(
        (
            (gap_df, "gap", r"gap $\Delta$", rf"(a) $r = {r_fixed:g}$"),
            (var_df, "r", r"variance ratio $r$", rf"(b) $\Delta = {gap_fixed:g}$"),
        )
    ):
        ax, low = axes[0, col], axes[1, col]
        ax.plot(df[x], df["ratio"], lw=2, label=_RATIO)
        ax.plot(df[x], df["bound"], lw=1.5, ls="--", label=r"bound $d/\ln(1+d)$")
        ax.axhline(1.0, color="grey", lw=0.8, ls=":")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(title, fontsize=9)
        ax.set_ylabel(r"$T^\star/T^\star_{\sigma^2}$ and bound", fontsize=8)
        xs = df[x].to_numpy(float)
        excess = df["ratio"].to_numpy(float) - 1.0
        floor = excess_floor(excess)
        above = excess > 0
        low.plot(xs[above], excess[above], lw=2, label=_RATIO + r"$\,-\,1$")
        if not above.all():
            low.plot(
                xs[~above],
                np.full((~above).sum(), floor),
                "x",
                color="red",
                ms=5,
                label=r"ratio $\leq 1$",
            )
        low.set_yscale("log")
        low.set_ylim(bottom=floor / 1.5)
        low.set_xlabel(label, fontsize=9)
        low.set_ylabel(r"ratio $-\,1$ (log)", fontsize=8)
        for a in (ax, low):
            a.tick_params(labelsize=8)
    axes[0, 0].legend(loc="upper left", fontsize=8)
    axes[1, 0].legend(loc="lower right", fontsize=8)
    fig.suptitle(
        r"$\mu=(0,-\Delta)$, $\sigma^2=(1,r)$; bottom row: the ratio's excess over 1",
        fontsize=9,
    )
    fig.tight_layout()
    return fig
