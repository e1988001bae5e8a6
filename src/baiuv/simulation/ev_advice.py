"""One-line advice when an EV rule is used with the heuristic threshold and a small ``n0``.

The EV-GLR rules with the heuristic threshold ``ln((1 + ln t)/delta)`` are not δ-correct
with few initial samples. The EV remedies study at the paper's scale
(``docs/paper-scale/tables/ev_remedies.md``: δ = 0.01, the four EV rules on the standard,
easy and random instances of Figure 2 and on random instances drawn like the audit's)
measured their error rate per ``n0`` and names the cheapest setting resolved below δ on
every (instance group, rule) cell and on every instance checked: ``n0 = 10``.
:func:`heuristic_ev_warning` is called by :class:`baiuv.BestArmIdentifier`; the numbers
below are tested against that published table.
"""

from __future__ import annotations

import contextlib
import numbers
import warnings

__all__ = [
    "MEASURED_ERROR",
    "RECOMMENDED_COST",
    "RECOMMENDED_N0",
    "HeuristicEVWarning",
    "heuristic_ev_message",
    "heuristic_ev_warning",
    "plain_warnings",
]

#: The recommended ``n0``: the cheapest heuristic setting of the EV remedies study resolved
#: below δ = 0.01 on every cell and every instance checked.
RECOMMENDED_N0 = 10
#: Its mean stopping time relative to ``n0 = 2`` (the study's mean over its cells).
RECOMMENDED_COST = 1.16
#: Range of the error rate over the study's cells (4 EV rules x 4 instance groups), per
#: ``n0``, heuristic threshold, δ = 0.01, as the published table prints it.
MEASURED_ERROR = {
    2: (0.0022, 0.069),
    3: (0.0, 0.017),
    4: (0.0, 0.0062),
    6: (0.0, 0.0024),
    10: (0.0, 0.0002),
}


class HeuristicEVWarning(UserWarning):
    """An EV rule with the heuristic threshold and ``n0`` below :data:`RECOMMENDED_N0`."""


def heuristic_ev_message(n0: int) -> str:
    """The warning's text for an EV rule with the heuristic threshold and ``n0``."""
    ref = max(k for k in MEASURED_ERROR if k <= max(n0, 2))
    lo, hi = MEASURED_ERROR[ref]
    at = f"n0 = {n0}" if ref == n0 else f"n0 = {ref} (the largest measured n0 <= {n0})"
    return (
        f"the heuristic threshold with an EV rule is not δ-correct with few initial samples: "
        f"at δ = 0.01 and {at} the EV rules erred in {100 * lo:.2g}–{100 * hi:.2g} % of runs "
        f"per instance group (docs/paper-scale/tables/ev_remedies.md); n0 >= "
        f"{RECOMMENDED_N0}, the cheapest measured setting resolved below δ on every instance "
        f"checked, takes {RECOMMENDED_COST:.2f}× the samples of n0 = 2; or use a δ-correct "
        f"threshold (ev-box, ev-bob)"
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
