"""Shared figure style."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import seaborn as sns  # noqa: E402

from baiuv.registry import ALGORITHMS, LAZY_SUFFIX, THRESHOLD_FAMILIES  # noqa: E402


def setup() -> None:
    """Apply the project's figure style (paper-like, colour-blind palette)."""
    sns.set_theme(context="paper", style="whitegrid", palette="colorblind", font_scale=1.1)
    plt.rcParams.update({"figure.dpi": 100, "savefig.dpi": 200, "savefig.bbox": "tight"})


def family(name: str) -> str:
    """Family of an algorithm in the registry (``"TaS"`` for TaS and EV-TaS); unregistered
    names lose an ``EV-`` prefix."""
    alg = ALGORITHMS.get(name)
    return alg.family if alg is not None else name.removeprefix("EV-")


def is_plug_in(name: str) -> bool:
    """The algorithm uses the EV wrapper (registry); unregistered names: ``EV-`` prefix."""
    alg = ALGORITHMS.get(name)
    return alg.plug_in if alg is not None else name.startswith("EV-")


def algorithm_colours(algorithms) -> dict[str, tuple]:
    """Colour of each algorithm: one per family of the registry (an EV wrapper shares the
    adapted one's), families ordered as in the registry, unregistered names last."""
    order = list(dict.fromkeys(a.family for a in ALGORITHMS.values()))
    fams = sorted(
        dict.fromkeys(family(a) for a in algorithms),
        key=lambda f: order.index(f) if f in order else len(order),
    )
    colours = dict(zip(fams, sns.color_palette("colorblind", len(fams)), strict=True))
    return {a: colours[family(a)] for a in algorithms}


#: Markers of the threshold families, by base family in registry order (they tell the
#: curves apart where they overlap, e.g. Box and BoB at large t).
THRESHOLD_MARKERS = ("x", "s", "^", "o", "D", "v", "P", "*", "X", "h")

#: Colour of the heuristic thresholds (not δ-correct): the reference, in black.
REFERENCE_COLOUR = (0.0, 0.0, 0.0)


def _threshold_palette(n: int) -> list[tuple]:
    """``n`` colours of the colour-blind palette without its vermilion (index 3), which is
    hard to tell from the orange (index 1) where two curves overlap."""
    pal = sns.color_palette("colorblind", 10)
    pal = pal[:3] + pal[4:]
    return [pal[i % len(pal)] for i in range(n)]


def threshold_base(name: str) -> str:
    """Base family of a threshold variant: ``"box"`` for ``box``, ``ev-box`` and
    ``box-lazy``; unregistered names lose ``ev-`` and ``-lazy``."""
    fam = THRESHOLD_FAMILIES.get(name.removesuffix(LAZY_SUFFIX))
    if fam is not None:
        return fam.base
    return name.removesuffix(LAZY_SUFFIX).removeprefix("ev-")


def _bases() -> list[str]:
    """Base families of the registry's δ-correct thresholds, in registry order."""
    return list(dict.fromkeys(f.base for f in THRESHOLD_FAMILIES.values() if f.delta_correct))


def _is_reference(name: str) -> bool:
    """The heuristic's base (``heuristic``, ``ev-heuristic-student``): the black dashed
    reference. Another family that is not δ-correct gets its own colour and marker and is
    drawn dash-dotted (:func:`not_delta_correct`)."""
    fam = THRESHOLD_FAMILIES.get(name.removesuffix(LAZY_SUFFIX))
    return fam is not None and not fam.delta_correct and fam.base == "heuristic"


def not_delta_correct(name: str) -> bool:
    """A registered threshold family (or its lazy variant) that is not δ-correct."""
    fam = THRESHOLD_FAMILIES.get(name.removesuffix(LAZY_SUFFIX))
    return fam is not None and not fam.delta_correct


def threshold_colours(variants=None) -> dict[str, tuple]:
    """Colour of each threshold variant (default: every family of the registry): one per
    base family of the δ-correct families, in registry order (``ev-box`` and ``box-lazy``
    share ``box``'s colour); the heuristic's base in black; other bases (a registered
    family that is not δ-correct, unregistered names) after them."""
    variants = list(THRESHOLD_FAMILIES) if variants is None else list(variants)
    bases = _bases()
    extra = [b for b in dict.fromkeys(map(threshold_base, variants)) if b not in bases]
    pal = dict(zip(bases + extra, _threshold_palette(len(bases) + len(extra)), strict=True))
    return {v: REFERENCE_COLOUR if _is_reference(v) else pal[threshold_base(v)] for v in variants}


def threshold_markers(variants=None) -> dict[str, str | None]:
    """Marker of each threshold variant, by base family like :func:`threshold_colours`
    (``None`` for the heuristic, drawn as a dashed line)."""
    variants = list(THRESHOLD_FAMILIES) if variants is None else list(variants)
    bases = _bases()
    bases += [b for b in dict.fromkeys(map(threshold_base, variants)) if b not in bases]
    return {
        v: None
        if _is_reference(v)
        else THRESHOLD_MARKERS[bases.index(threshold_base(v)) % len(THRESHOLD_MARKERS)]
        for v in variants
    }


def threshold_order(variants) -> list[str]:
    """Threshold variants sorted for a legend: the families that are not δ-correct
    first, then each base family in registry order with its EV version right after it,
    lazy variants last; unregistered names after the registered ones."""
    variants = list(dict.fromkeys(variants))
    names = list(THRESHOLD_FAMILIES)
    bases = _bases()

    def key(v: str):
        plain = v.removesuffix(LAZY_SUFFIX)
        ref = not_delta_correct(v)
        base = threshold_base(v)
        return (
            v.endswith(LAZY_SUFFIX),
            not ref,
            bases.index(base) if base in bases else len(bases),
            names.index(plain) if plain in names else len(names),
            variants.index(v),
        )

    return sorted(variants, key=key)
