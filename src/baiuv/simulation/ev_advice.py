"""One-line advice when an EV rule is used with the heuristic threshold and a small ``n0``.

The EV-GLR rules with the heuristic threshold ``ln((1 + ln t)/delta)`` are not δ-correct
with few initial samples: in the δ-resolving audit (``docs/audit-resolving.md``, δ = 0.01,
12 instances, 400 runs per cell) their pooled error rates were 2.2–3.9 % at ``n0 = 2`` and
0.27–0.38 % at ``n0 = 4`` (one cell flagged above δ), and 0–0.083 % without any
flagged cell at ``n0 = 10``. :func:`heuristic_ev_warning` is called by
:class:`baiuv.BestArmIdentifier`; the numbers below are tested against that published file.
"""

from __future__ import annotations

import contextlib
import numbers
import warnings

__all__ = [
    "AUDIT_POOLED_ERROR",
    "AUDIT_MAX_CELL_ERROR",
    "RECOMMENDED_N0",
    "HeuristicEVWarning",
    "heuristic_ev_message",
    "heuristic_ev_warning",
    "plain_warnings",
]

#: Smallest audited ``n0`` at which every EV rule's pooled error rate is resolved below
#: δ = 0.01 and no cell is flagged (docs/audit-resolving.md).
RECOMMENDED_N0 = 10
#: Pooled error-rate range over the EV rules, per audited ``n0`` (docs/audit-resolving.md).
AUDIT_POOLED_ERROR = {2: (0.0217, 0.0394), 4: (0.00271, 0.00375), 10: (0.0, 0.000833)}
#: Largest cell error rate over the EV rules, per audited ``n0``.
AUDIT_MAX_CELL_ERROR = {2: 0.0825, 4: 0.0225, 10: 0.005}


class HeuristicEVWarning(UserWarning):
    """An EV rule with the heuristic threshold and ``n0`` below :data:`RECOMMENDED_N0`."""


def heuristic_ev_message(n0: int) -> str:
    """The warning's text for an EV rule with the heuristic threshold and ``n0``."""
    ref = max(k for k in AUDIT_POOLED_ERROR if k <= max(n0, 2))
    lo, hi = AUDIT_POOLED_ERROR[ref]
    at = f"n0 = {n0}" if ref == n0 else f"n0 = {ref} (the largest audited n0 <= {n0})"
    return (
        f"the heuristic threshold with an EV rule is not δ-correct for small n0: at δ = 0.01 "
        f"and {at} it erred in {100 * lo:.2g}–{100 * hi:.2g} % of runs (up to "
        f"{100 * AUDIT_MAX_CELL_ERROR[ref]:.2g} % on one instance; docs/audit-resolving.md); "
        f"use n0 >= {RECOMMENDED_N0} or a δ-correct threshold (ev-box, ev-bob)"
    )


def heuristic_ev_warning(plug_in: bool, threshold: str, n0: int, stacklevel: int = 3) -> bool:
    """Emit :class:`HeuristicEVWarning` (one line) when an EV rule (``plug_in``) uses the
    heuristic threshold with ``n0 < RECOMMENDED_N0``; returns whether it did."""
    if isinstance(n0, bool) or not isinstance(n0, numbers.Integral):
        return False  # the caller's own validation reports a bad n0
    if plug_in and threshold == "heuristic" and int(n0) < RECOMMENDED_N0:
        warnings.warn(heuristic_ev_message(int(n0)), HeuristicEVWarning, stacklevel=stacklevel)
        return True
    return False


@contextlib.contextmanager
def plain_warnings(stream):
    """Inside the block, :class:`HeuristicEVWarning` is caught and written to ``stream`` as
    one plain line ``warning: <message>`` (used by ``baiuv identify`` for stderr)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", HeuristicEVWarning)
        try:
            yield
        finally:
            for w in caught:
                if issubclass(w.category, HeuristicEVWarning):
                    print(f"warning: {w.message}", file=stream, flush=True)
                else:  # anything else as the caller's filters would have it
                    warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
