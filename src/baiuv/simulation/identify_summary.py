"""The human-readable form of :meth:`baiuv.BestArmIdentifier.summary`."""

from __future__ import annotations

import math

__all__ = ["format_p_value", "format_summary", "guarantee_of", "guarantee_text"]


def format_p_value(s: dict, name=None) -> str:
    """The p-value line of the summary: its value, the arm it refers to (``name``: its
    label) and whether it is anytime-valid (the threshold family is δ-correct)."""
    p = s["p_value"]
    arm = s["p_value_recommendation"]
    name = name or (lambda a: f"arm {a}")
    valid = (
        "anytime-valid"
        if s["p_value_valid"]
        else f"not valid: the {s['threshold']} threshold is not delta-correct"
    )
    if arm is None:
        return f"p-value: 1 (no check has come close to stopping yet; {valid})"
    return f"p-value of '{name(arm)} is not the best': {p:.3g} ({valid})"


def format_summary(s: dict, labels=None) -> str:
    """Format a summary dict of :meth:`baiuv.BestArmIdentifier.summary` as the table that
    ``baiuv identify`` prints: the configuration, the status, the recommended (or
    empirically best) arm, one line per arm (samples, mean, variance, GLR statistic and
    threshold) and the data warnings. With ``labels`` (one per arm) the arms are named by
    their labels."""

    def name(a: int) -> str:
        return f"{labels[a]} (arm {a})" if labels else str(a)

    lines = [
        f"sampling {s['sampling']} | stopping rule {s['stopping_rule']} | threshold "
        f"{s['threshold']}"
        + (f" (lazy, ratio {s['lazy_ratio']})" if s["lazy_ratio"] else "")
        + f" | delta {s['delta']:g}",
        f"samples: {s['n_samples']}   status: "
        + (f"stopped ({s['stop_reason']})" if s["done"] else "running"),
    ]
    if s["done"]:
        lines.append(f"recommended arm: {name(s['recommendation'])}")
    elif s["empirical_best"] is not None:
        lines.append(f"empirical best arm: {name(s['empirical_best'])}")
    if "p_value" in s:
        lines.append(
            format_p_value(s, lambda a: f"{labels[a]} (arm {a})" if labels else f"arm {a}")
        )
    lines.append(
        f"{'arm':>4} {'samples':>8} {'mean':>11} {'variance':>11} {'GLR':>11} {'threshold':>11}"
    )

    def fmt(v):
        if v is None:
            return "-"
        return f"{v:.4g}" if math.isfinite(v) else ("inf" if v > 0 else "-inf")

    best = s["recommendation"] if s["done"] else s["empirical_best"]
    trailer = [f"warning: {w}" for w in s["warnings"]]
    for a in range(len(s["counts"])):
        tag = "*" if a == best else " "
        g = "(best)" if a == best else fmt(s["glr"][a])
        th = "" if a == best else fmt(s["thresholds"][a])
        lines.append(
            f"{a:>3}{tag} {s['counts'][a]:>8d} {s['means'][a]:>11.5g} "
            f"{s['variances'][a]:>11.5g} {g:>11} {th:>11}"
        )
    return "\n".join(lines + trailer)


def guarantee_of(threshold: str) -> dict:
    """What the registry record of the threshold family says of the error probability:
    ``{"delta_correct": bool, "proof": str | None}``, ``proof`` the result of the paper
    that proves it ("Lemma 5", the printed numbering), ``None`` for a family the paper does
    not prove δ-correct (decision D264)."""
    from baiuv.registry import THRESHOLD_FAMILIES

    fam = THRESHOLD_FAMILIES[threshold]
    return {
        "delta_correct": bool(fam.delta_correct),
        "proof": (fam.proof or None) if fam.delta_correct else None,
    }


def guarantee_text(s: dict) -> str:
    """What a stop of the stopping rule guarantees, from the summary's ``guarantee`` (the
    threshold family's registry record, never its name): the result of the paper that
    proves the family δ-correct, or that it is not proved δ-correct."""
    g = s["guarantee"]
    delta = f"{s['delta']:g}"
    if not g["delta_correct"]:
        return (
            f"no guarantee: the {s['threshold']} threshold is not proved delta-correct, the "
            f"recommended arm may be wrong with probability above {delta}"
        )
    where = (
        f"{g['proof']} of the paper"
        if g["proof"]
        else "by its registry record, not a result of the paper"
    )
    return (
        f"delta-correct ({where}): this procedure errs with probability <= {delta} for "
        "Gaussian observations"
    )
