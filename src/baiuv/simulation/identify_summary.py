"""The human-readable form of :meth:`baiuv.BestArmIdentifier.summary`."""

from __future__ import annotations

import math

from baiuv.registry import THRESHOLD_FAMILIES

__all__ = [
    "data_warnings_of",
    "format_p_value",
    "format_summary",
    "guarantee_of",
    "guarantee_text",
]


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
    eps = s.get("epsilon", 0.0)
    claim = f"is more than {eps:g} below the best" if eps > 0 else "is not the best"
    return f"p-value of '{name(arm)} {claim}': {p:.3g} ({valid})"


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
        + f" | delta {s['delta']:g}"
        + (f" | epsilon {s['epsilon']:g}" if s.get("epsilon", 0.0) > 0 else ""),
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
    eps = s.get("epsilon", 0.0)
    wrong = f"more than {eps:g} below the best" if eps > 0 else "wrong"
    if not g["delta_correct"]:
        return (
            f"no guarantee: the {s['threshold']} threshold is not proved delta-correct, the "
            f"recommended arm may be {wrong} with probability above {delta}"
        )
    where = (
        f"{g['proof']} of the paper"
        if g["proof"]
        else "by its registry record, not a result of the paper"
    )
    if eps > 0:  # D292: the epsilon-GLR with a delta-correct family
        return (
            f"delta-correct ({where}, with the indifference zone of Lemma 48's argument): "
            f"the recommended arm is within {eps:g} of the best with probability >= 1 - "
            f"{delta} for Gaussian observations"
        )
    return (
        f"delta-correct ({where}): this procedure errs with probability <= {delta} for "
        "Gaussian observations"
    )


def data_warnings_of(shape, K: int, forced: bool) -> list[str]:
    """The identifier's data warnings (:meth:`baiuv.BestArmIdentifier.data_warnings`,
    decision D121) from its shape statistics ``shape`` (one
    :class:`~baiuv.simulation.data_shape.ShapeCheck` of ``K`` arms) and whether the forced
    exploration of degenerate statistics is on (``forced``)."""
    arms = [(a, shape.problems(a)) for a in range(K)]
    arms = [(a, p) for a, p in arms if p]
    if not arms:
        return []
    out = [
        "the data do not look Gaussian: "
        + "; ".join(f"arm {a}: {', '.join(p)}" for a, p in arms)
        + ". The error probability delta is guaranteed only for Gaussian observations; "
        "read the result as indicative."
    ]
    if forced:
        out.append(
            "an arm has zero variance (or two arms cannot be told apart): the rule samples "
            "the least-sampled arm and does not stop until every arm's observations vary."
        )
    return out
