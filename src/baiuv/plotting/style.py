"""Shared figure style."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import seaborn as sns  # noqa: E402

from baiuv.registry import ALGORITHMS, THRESHOLD_FAMILIES  # noqa: E402


def setup() -> None:
    """Apply the project's figure style (paper-like, colour-blind palette)."""
    sns.set_theme(context="paper", style="whitegrid", palette="colorblind", font_scale=1.1)
    plt.rcParams.update({"figure.dpi": 100, "savefig.dpi": 200, "savefig.bbox": "tight"})


def _family(name: str) -> str:
    alg = ALGORITHMS.get(name)
    return alg.family if alg is not None else name.removeprefix("EV-")


def algorithm_colours(algorithms) -> dict[str, tuple]:
    """Colour of each algorithm: one per family of the registry (an EV wrapper shares the
    adapted one's), families ordered as in the registry, unregistered names last."""
    order = list(dict.fromkeys(a.family for a in ALGORITHMS.values()))
    fams = sorted(
        dict.fromkeys(_family(a) for a in algorithms),
        key=lambda f: order.index(f) if f in order else len(order),
    )
    colours = dict(zip(fams, sns.color_palette("colorblind", len(fams)), strict=True))
    return {a: colours[_family(a)] for a in algorithms}


def threshold_colours() -> dict[str, tuple]:
    """Colour of each δ-correct threshold family of the registry, by base family (``ev-box``
    shares ``box``'s), in registry order; the heuristic is drawn in black by the figures."""
    bases = list(dict.fromkeys(f.base for f in THRESHOLD_FAMILIES.values() if f.delta_correct))
    colours = dict(zip(bases, sns.color_palette("colorblind", max(len(bases), 8)), strict=False))
    return {name: colours[f.base] for name, f in THRESHOLD_FAMILIES.items() if f.delta_correct}
