"""Figure of Appendix ``app:sss_exp_characteristic_times`` (ratio T*/T*_{s2} and bound)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd

from baiuv.plotting.style import setup


def ratio_figure(gap_df: pd.DataFrame, var_df: pd.DataFrame, r_fixed: float, gap_fixed: float):
    """Two panels: (a) ratio and bound against the gap at fixed ``r``; (b) against ``r``."""
    setup()
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8), sharey=False)
    for ax, df, x, label, title in (
        (axes[0], gap_df, "gap", r"gap $\Delta$", rf"(a) $r = {r_fixed:g}$"),
        (axes[1], var_df, "r", r"variance ratio $r$", rf"(b) $\Delta = {gap_fixed:g}$"),
    ):
        ax.plot(df[x], df["ratio"], lw=2, label=r"$T^\star(\mu,\sigma^2)/T^\star_{\sigma^2}(\mu)$")
        ax.plot(df[x], df["bound"], lw=1.5, ls="--", label=r"$d/\ln(1+d)$")
        ax.axhline(1.0, color="grey", lw=0.8, ls=":")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel(label)
        ax.set_title(title)
    for ax in axes:
        ax.set_ylabel(r"$T^\star/T^\star_{\sigma^2}$ and bound")
    axes[0].legend(loc="upper left")
    fig.suptitle(r"$\mu=(0,-\Delta)$, $\sigma^2=(1,r)$", y=1.02)
    fig.tight_layout()
    return fig
