"""Checked claims of the paper: the rows of the reproduction report.

A leaf of the package (no import from it): every experiment builds its own
:class:`Claim` rows, and :mod:`baiuv.report.reproduction` assembles them.

Each row names what the paper says and where, the paper's value, our value with its
uncertainty, a verdict (``reproduced`` / ``differs`` / ``not checkable``) and the reason
when it is not ``reproduced``.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["DIFFERS", "NOT_CHECKABLE", "REPRODUCED", "VERDICTS", "Claim", "verdict"]

REPRODUCED = "reproduced"
DIFFERS = "differs"
NOT_CHECKABLE = "not checkable"
VERDICTS = (REPRODUCED, DIFFERS, NOT_CHECKABLE)


@dataclass(kw_only=True)
class Claim:
    """One checked claim of the paper (built with keywords).

    Attributes
    ----------
    topic : str
        Section of the report the row belongs to.
    claim : str
        What the paper says (quoted or paraphrased).
    where : str
        Where the paper says it (LaTeX labels; printed numbers in the report).
    paper : str
        The paper's value.
    ours : str
        Our value with its uncertainty.
    verdict : str
        One of :data:`VERDICTS`.
    reason : str
        Why the verdict is not ``reproduced`` (required then).
    """

    topic: str
    claim: str
    where: str
    paper: str
    ours: str
    verdict: str
    reason: str = ""

    def __post_init__(self):
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {VERDICTS}, got {self.verdict!r}")
        if self.verdict != REPRODUCED and not self.reason:
            raise ValueError(f"claim {self.claim!r}: a reason is required for {self.verdict!r}")


def verdict(ok: bool) -> str:
    """``reproduced`` if ``ok`` else ``differs``."""
    return REPRODUCED if ok else DIFFERS
