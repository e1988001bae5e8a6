"""The output of ``baiuv identify``: its text summary, its JSON summary (numbers or
``null``, decision D263) and a writer that a closed pipe does not break (D262)."""

from __future__ import annotations

import json
import math
import os
from typing import TextIO

from baiuv.simulation.identify import BestArmIdentifier
from baiuv.simulation.identify_summary import guarantee_text

__all__ = ["json_safe", "json_summary", "text_summary", "write"]


def text_summary(idf: BestArmIdentifier, extra: dict) -> str:
    """The summary that ``baiuv identify`` prints: the identifier's table (arms named by
    their labels), the rows used, the next arm when undecided, the stop and what it
    guarantees (the threshold family's record, :func:`guarantee_text`)."""
    labels = extra.get("arm_labels")
    lines = [f"source: {extra['source']}", idf.format_summary(labels)]
    if labels:
        lines.append("arms: " + ", ".join(f"{i} = {lab}" for i, lab in enumerate(labels)))
    if "rows_used" in extra:
        unused = extra["rows_unused"]
        after = ""
        if idf.done:
            after = ", unused after the stop: " + (
                "not read (stream)" if unused is None else str(unused)
            )
        bad_after = extra["rows_malformed_after_stop"]
        lines.append(
            f"rows used: {extra['rows_used']}"
            + after
            + (f" ({bad_after} malformed)" if bad_after else "")
            + (f", skipped: {extra['rows_skipped']}" if extra["rows_skipped"] else "")
        )
        if not idf.done:
            nxt = extra["next_arm"]
            name = f"{labels[nxt]} (arm {nxt})" if labels else str(nxt)
            lines.append(
                f"the data ran out before the stopping rule fired; next arm to sample: {name}"
            )
            if "next_allocation" in extra:
                alloc = extra["next_allocation"]
                lines.append(
                    f"next {sum(alloc)} samples: "
                    + ", ".join(
                        f"{labels[a] if labels else f'arm {a}'}: {c}"
                        for a, c in enumerate(alloc)
                        if c
                    )
                )
    if "true_best_arm" in extra:
        verdict = "correct" if extra["correct"] else "WRONG"
        if idf.epsilon > 0:
            verdict += f": {'within' if extra['correct'] else 'more than'} {idf.epsilon:g} "
            verdict += "of the best" if extra["correct"] else "below the best"
        lines.append(f"true best arm: {extra['true_best_arm']} ({verdict})")
    if idf.stop_reason == "glr":
        lines.append(
            f"stopped: every challenger's GLR statistic exceeds its {idf.threshold} threshold"
            f" ({guarantee_text(idf.summary())})"
        )
    elif idf.stop_reason == "budget":
        lines.append("stopped: max-samples budget reached (no confidence guarantee)")
    return "\n".join(lines)


def json_summary(idf: BestArmIdentifier, extra: dict) -> str:
    """The identifier's summary with the command's ``extra`` keys as JSON (with labels,
    ``recommendation_label``)."""
    s = idf.summary()
    s.update(extra)
    labels = extra.get("arm_labels")
    if labels:
        rec = s["recommendation"]
        s["recommendation_label"] = labels[rec] if rec is not None else None
    return json.dumps(json_safe(s), indent=2, allow_nan=False)


def json_safe(obj):
    """Numbers or ``null``: a value that is not a finite number (the best arm's own GLR
    statistic, a threshold before its initial time) is ``null``."""
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    if isinstance(obj, dict):
        return {k: json_safe(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [json_safe(v) for v in obj]
    return obj


def write(out: TextIO, text: str) -> None:
    """Print ``text`` to ``out``; a reader that went away (``| head``) is not an error: the
    rest of the output is discarded."""
    try:
        print(text, file=out, flush=True)
    except BrokenPipeError:
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, out.fileno())  # the interpreter's final flush goes nowhere
        except (OSError, AttributeError, ValueError):  # pragma: no cover - not a file
            pass
