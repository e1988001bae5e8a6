"""The human-readable form of :meth:`baiuv.BestArmIdentifier.summary`."""

from __future__ import annotations

import math

__all__ = ["format_p_value", "format_summary"]


def format_p_value(s: dict) -> str:
    """The p-value line of the summary: its value, the arm it refers to and whether it is
    anytime-valid (the threshold family is δ-correct)."""
    p = s["p_value"]
    arm = s["p_value_recommendation"]
    valid = (
        "anytime-valid"
        if s["p_value_valid"]
        else f"not valid: the {s['threshold']} threshold is not delta-correct"
    )
    if arm is None:
        return f"p-value: 1 (no check has come close to stopping yet; {valid})"
    return f"p-value of 'arm {arm} is not the best': {p:.3g} ({valid})"


def format_summary(s: dict) -> str:
    """Format a summary dict of :meth:`baiuv.BestArmIdentifier.summary` as the table that
    ``baiuv identify`` prints: the configuration, the status, the recommended (or
    empirically best) arm, one line per arm (samples, mean, variance, GLR statistic and
    threshold) and the data warnings."""
    lines = [
        f"sampling {s['sampling']} | stopping rule {s['stopping_rule']} | threshold "
        f"{s['threshold']}"
        + (f" (lazy, ratio {s['lazy_ratio']})" if s["lazy_ratio"] else "")
        + f" | delta {s['delta']:g}",
        f"samples: {s['n_samples']}   status: "
        + (f"stopped ({s['stop_reason']})" if s["done"] else "running"),
    ]
    if s["done"]:
        lines.append(f"recommended arm: {s['recommendation']}")
    elif s["empirical_best"] is not None:
        lines.append(f"empirical best arm: {s['empirical_best']}")
    if "p_value" in s:
        lines.append(format_p_value(s))
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
