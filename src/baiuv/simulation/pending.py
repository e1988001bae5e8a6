"""Batches and delayed feedback of :class:`~baiuv.simulation.identify.BestArmIdentifier`:
the requests made and not yet answered, and how the next ones are chosen.

Requests (decision D282: pending requests are counted as samples)
------------------------------------------------------------------
:meth:`~baiuv.BestArmIdentifier.next_arms` ``(n)`` appends ``n`` requests to the pending
ones. They are chosen as the sampling rule would choose them one at a time if every pending
request had already been sampled: the rule is called on the counts plus the pending
requests (``N_a + P_a``, at time ``t + P``) and the statistics of the observations that
have arrived, and each choice is counted before the next one. So a tracking rule
(Track-and-Stop, DKM, FWS, ``uniform``) tracks counts plus pending; Top Two (TCI, EV-TCI)
draws its leader coin per request, from the identifier's generator, in the order of the
requests (the same calls give the same requests), and with an indifference zone its
challenger reads the ε-statistics of the observations that have arrived
(:func:`sampling_statistics`); during the initialisation phase the
``n0`` forced pulls per arm count the pending requests too, and while the initial
observations have not all arrived every further request is the arm with the fewest
observations plus pending requests (round robin: the rule has no statistics yet,
D283: round robin until the initial observations arrive). The same holds for the forced
exploration of degenerate data (D120).
:meth:`~baiuv.BestArmIdentifier.next_arm` returns the oldest pending request, creating one
(``next_arms(1)``) only when none is pending: with one request at a time it is the
sequential protocol, bit for bit (decision D73).

Answers (decision D284: answers in any order; the stop cancels the pending requests)
----------------------------------------------------------------------------------
An observation answers the oldest pending request of its arm, in any order. With
``strict=True`` every observation must answer a pending request (the batch of
:meth:`~baiuv.BestArmIdentifier.observe_many` as a multiset), else :class:`IdentifierError`
names the arm and nothing changes; with ``strict=False`` an observation of an arm with no
pending request replaces the oldest pending request (with one request: cancels it, as
before). When the identifier stops, the pending requests are cancelled: their answers are
refused (the recommendation is final), and the requests need not be sampled.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np

from baiuv.registry import P_SAMPLING_EPSILON, RULE_CUSTOM, RULE_TCI
from baiuv.simulation import rules

__all__ = ["IdentifierError", "Pending", "choose_arms", "sampling_statistics"]


class IdentifierError(ValueError):
    """A call that violates the ask/tell protocol (the identifier is left unchanged)."""


@dataclass(eq=False)
class Pending:
    """The pending requests of an identifier with ``K`` arms: their arms, oldest first, and
    their number per arm."""

    K: int
    order: list[int] = field(default_factory=list)
    per_arm: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        self.per_arm = np.zeros(self.K, dtype=np.int64)

    @property
    def total(self) -> int:
        return len(self.order)

    @property
    def oldest(self) -> int | None:
        return self.order[0] if self.order else None

    def add(self, arms: list[int]) -> None:
        self.order.extend(arms)
        np.add.at(self.per_arm, arms, 1)

    def clear(self) -> None:
        self.order.clear()
        self.per_arm[:] = 0

    def describe(self) -> str:
        """The pending requests in words (``"arm 0 (x2), arm 3"``)."""
        arms = np.flatnonzero(self.per_arm)
        shown = [
            f"arm {a}" + (f" (x{self.per_arm[a]})" if self.per_arm[a] > 1 else "") for a in arms
        ]
        return ", ".join(shown[:8]) + (", ..." if len(shown) > 8 else "")

    def check(self, arms: np.ndarray, one: bool = False) -> None:
        """``IdentifierError`` unless every row of ``arms`` answers a pending request
        (``strict=True``); ``one``: the message of :meth:`BestArmIdentifier.observe`."""
        arms = np.asarray(arms, dtype=np.int64)
        if not (np.bincount(arms, minlength=self.K) > self.per_arm).any():
            return
        seen = np.zeros(self.K, dtype=np.int64)
        for i, a in enumerate(arms.tolist()):
            seen[a] += 1
            if seen[a] <= self.per_arm[a]:
                continue
            hint = (
                "strict=True: each observation answers a request of next_arm() or "
                "next_arms(); create the identifier with strict=False to accept any arm"
            )
            if not self.order:
                where = f"observe(arm={a})" if one else f"row {i} would be observed"
                raise IdentifierError(
                    f"{where} without a pending request: call next_arm() or next_arms() "
                    f"first ({hint})"
                )
            if one:
                raise IdentifierError(
                    f"arm {a} was observed but {self.describe()} was requested ({hint})"
                )
            more = "no pending request" if self.per_arm[a] == 0 else "fewer pending requests"
            raise IdentifierError(
                f"row {i} would be observed without a pending request: arm {a} has {more} "
                f"than this batch answers (pending: {self.describe()}; {hint})"
            )

    def answer(self, arms: list[int]) -> None:
        """Answer observations of ``arms`` in order: each removes the oldest pending request
        of its arm, or, if its arm has none (``strict=False``), the oldest pending one."""
        if not self.order:
            return
        if len(arms) == 1:
            a = arms[0] if self.per_arm[arms[0]] > 0 else self.order[0]
            self.order.remove(a)  # its first occurrence: the oldest request of arm a
            self.per_arm[a] -= 1
            return
        where: defaultdict[int, list[int]] = defaultdict(list)
        for i, a in enumerate(self.order):
            where[a].append(i)
        used: defaultdict[int, int] = defaultdict(int)
        gone = [False] * len(self.order)
        head, left = 0, len(self.order)
        for a in arms:
            if left == 0:
                break
            if used[a] >= len(where[a]):  # no request of this arm: the oldest one
                while gone[head]:
                    head += 1
                a = self.order[head]  # the oldest pending request, the oldest of its arm
            gone[where[a][used[a]]] = True
            used[a] += 1
            left -= 1
            self.per_arm[a] -= 1
        self.order = [a for a, g in zip(self.order, gone, strict=True) if not g]


def sampling_statistics(idf) -> np.ndarray:
    """The statistics the built-in sampling rule of ``idf`` reads: those of ``epsilon = 0``
    (``idf._Z``), except for the Top Two rules with a sampling epsilon ``> 0``, whose
    challenger reads the ε-statistics (D323: the Top Two rules take their challenger with
    the run's sampling epsilon), computed as the simulator's loop computes them."""
    eps = float(idf._params[P_SAMPLING_EPSILON])
    if idf._alg.rule != RULE_TCI or not eps > 0.0:
        return idf._Z
    out = np.empty(idf._K)
    rules.epsilon_stats_into(
        idf._counts, idf._means, idf._vars, idf._alg.plug_in, idf._best, eps, out
    )
    return out


def _work(idf, zc, zf) -> rules.RuleWork:
    """The work record of the sampling rule of ``idf`` (:class:`~baiuv.simulation.rules.
    RuleWork`), its Top Two challenger reading the cache ``zc, zf`` (the statistics of
    :func:`sampling_statistics`, with no indifference zone left to apply)."""
    return rules.RuleWork(idf._alg.plug_in, idf._params, idf._ws, idf._scal, idf._wfix, zc, zf, 0.0)


def choose_arms(idf, n: int) -> list[int]:
    """The next ``n`` requests of the identifier ``idf`` (a
    :class:`~baiuv.simulation.identify.BestArmIdentifier`, read, not imported here; not yet
    added to its pending requests), each chosen as the sampling rule would choose it with
    the pending requests and the choices before it counted as samples (module docstring,
    D282: pending requests are counted as samples)."""
    pend = idf._pending
    plus = idf._counts + pend.per_arm  # counts plus pending, updated by each choice
    out = np.empty(n, dtype=np.int64)
    if idf.in_initialisation or idf._forced >= 0:
        for i in range(n):  # round robin (D283: no statistics yet), or forced exploration
            if idf.in_initialisation:
                out[i] = int(np.argmin(plus))
            else:
                out[i] = rules.degenerate_arm(plus, idf._vars, idf._Z, idf._best)
            plus[out[i]] += 1
        return out.tolist()
    t = idf.n_samples + pend.total
    step = idf._alg.step_kernel()  # a registered kernel, or the built-in dispatch
    run = idf._run._replace(counts=plus, t=t)
    if step is None:
        # the statistics as a cache the selection reads (every Z_a valid)
        zc, zf = rules.exact_zcache(sampling_statistics(idf))
        work = _work(idf, zc, zf)
        rules.select_arms(idf._alg.rule, run._replace(zc=zc, zf=zf), work, idf._rng, out)
        return out.tolist()
    zc, zf = rules.exact_zcache(idf._Z)
    work = _work(idf, zc, zf)
    for i in range(n):
        out[i] = step(RULE_CUSTOM, run._replace(t=t + i, zc=zc, zf=zf), work, idf._rng)
        plus[out[i]] += 1
    return out.tolist()
