"""Claims of the stopping-time experiment on its error rates (Section ``ssec:experiments``
and Section ``ssec:upper_bound_sample_complexity``): every rule stopped with the heuristic
threshold errs several orders of magnitude less than δ (D232), and the EV-GLR rules err
less than δ (D280). Each row judges the error rates' 95% Wilson intervals against a
one-sided band by :func:`baiuv.claims.judge`; :func:`.stopping_claims.experiment_claims`
puts the rows in the report.
"""

from __future__ import annotations

import pandas as pd

from baiuv.claims import DIFFERS, NOT_RESOLVED, REPRODUCED, Band, Claim, combine, judge
from baiuv.registry import ALGORITHMS

__all__ = [
    "BELOW_DELTA_WHERE",
    "BELOW_DELTA_WORDS",
    "ORDERS_FACTOR",
    "below_delta_claims",
    "error_claims",
    "is_ev",
    "uses_threshold",
]

#: "several orders of magnitude lower than δ": the 95% Wilson interval of the error rate lies
#: entirely below δ / ORDERS_FACTOR (two orders; decision D232).
ORDERS_FACTOR = 100.0


def is_ev(name) -> bool:
    """An algorithm of the registry with the EV wrapper (unregistered names: by the
    ``EV-`` prefix)."""
    alg = ALGORITHMS.get(str(name))
    return alg.wrapper == "EV" if alg is not None else str(name).startswith("EV-")


def uses_threshold(name) -> bool:
    """The rule stops with the GLR or EV-GLR statistic against the threshold (FHN1/FHN2
    eliminate with their own boundary; unregistered names are taken to use it)."""
    alg = ALGORITHMS.get(str(name))
    return alg is None or alg.stopping != "elimination"


def error_claims(errors: pd.DataFrame, delta: float) -> list[Claim]:
    """ "an empirical error which is several order of magnitude lower than δ", said of the
    heuristic threshold: for every rule stopped with it (FHN1/FHN2, which eliminate with
    their own boundary, are printed apart), the error rate's 95% Wilson interval against the
    one-sided band ≤ δ/100 (D232), by :func:`baiuv.claims.judge`; one row per experiment."""
    target = delta / ORDERS_FACTOR
    bnd = Band(hi=target, words="several order of magnitude lower than δ")
    out = []
    for exp, g_all in errors.groupby("experiment", sort=False):
        uses = g_all["algorithm"].map(uses_threshold)
        g, apart = g_all[uses], g_all[~uses]
        if g.empty:
            continue
        v = {
            r.algorithm: judge(r.error_rate, (r.wilson_low, r.wilson_high), bnd)
            for r in g.itertuples()
        }
        below = [a for a, x in v.items() if x == REPRODUCED]
        above = g[g["algorithm"].isin([a for a, x in v.items() if x == DIFFERS])]
        above_delta = g[g["wilson_low"] > delta]
        open_ = [a for a, x in v.items() if x == NOT_RESOLVED]
        ours = (
            f"{len(g)} rules stopped with the threshold; interval below δ/{ORDERS_FACTOR:g} = "
            f"{target:g}: {len(below)}; entirely above it: {len(above)}; containing it: "
            f"{len(open_)}; entirely above δ: {len(above_delta)}. Error rate [95% Wilson]: "
            + ", ".join(
                f"{r.algorithm} {r.errors}/{r.runs} [{r.wilson_low:.2g}, {r.wilson_high:.2g}]"
                for r in g.itertuples()
            )
        )
        if len(apart):
            ours += "; not stopped with the threshold (elimination): " + ", ".join(
                f"{r.algorithm} {r.errors}/{r.runs}" for r in apart.itertuples()
            )
        reason = ""
        if len(above):
            reason = (
                f"error rate resolved above δ/{ORDERS_FACTOR:g}: "
                + ", ".join(f"{r.algorithm} {r.error_rate:.3g}" for r in above.itertuples())
                + (
                    f"; above δ itself: {', '.join(above_delta['algorithm'])}"
                    if len(above_delta)
                    else ""
                )
            )
        elif open_:
            reason = (
                f"{len(open_)} rules have too few runs to resolve δ/{ORDERS_FACTOR:g} (0 errors "
                f"in n runs bound the rate by about 3.8/n only)"
            )
        out.append(
            Claim(
                topic="experiments",
                claim=f'"yields an empirical error which is several order of magnitude lower than δ" '
                f"({exp})",
                where="Sec. ssec:experiments",
                paper=f"every rule's error ≪ δ = {delta:g} (read as: 95% Wilson interval below "
                f"δ/{ORDERS_FACTOR:g}, D232)",
                ours=ours,
                verdict=combine(v.values()),
                reason=reason,
            )
        )
    return out


#: Section 4.2's words on the EV-GLR rule with the heuristic threshold (decision D280).
BELOW_DELTA_WORDS = (
    '"Still, in our experiments the empirical proportion of error is lower than δ even when '
    'using a heuristic, asymptotically tight threshold"'
)
BELOW_DELTA_WHERE = "Sec. ssec:upper_bound_sample_complexity"


def below_delta_claims(errors: pd.DataFrame, delta: float) -> list[Claim]:
    """Section 4.2's "the empirical proportion of error is lower than δ even when using a
    heuristic, asymptotically tight threshold", said of the EV-GLR stopping rule (D280): one
    row per experiment, each EV rule's error rate with its 95% Wilson interval against the
    one-sided band ``< δ`` by :func:`baiuv.claims.judge`; the adapted rules (GLR stopping,
    same threshold) are printed beside, not judged."""
    bnd = Band(hi=delta, words=BELOW_DELTA_WORDS, where=BELOW_DELTA_WHERE, strict_hi=True)
    out = []
    for exp, g_all in errors.groupby("experiment", sort=False):
        uses = g_all["algorithm"].map(uses_threshold)
        ev = g_all["algorithm"].map(is_ev)
        g, beside = g_all[uses & ev], g_all[uses & ~ev]
        if g.empty:
            continue
        v = {
            r.algorithm: judge(r.error_rate, (r.wilson_low, r.wilson_high), bnd)
            for r in g.itertuples()
        }
        ours = "EV rules, errors/runs [95% Wilson]: " + ", ".join(
            f"{r.algorithm} {r.errors}/{r.runs} [{r.wilson_low:.2g}, {r.wilson_high:.2g}]"
            for r in g.itertuples()
        )
        if len(beside):
            ours += "; beside (GLR stopping, not judged): " + ", ".join(
                f"{r.algorithm} {r.errors}/{r.runs}" for r in beside.itertuples()
            )
        above = [r for r in g.itertuples() if v[r.algorithm] == DIFFERS]
        open_ = [r for r in g.itertuples() if v[r.algorithm] == NOT_RESOLVED]
        reasons = []
        if above:
            reasons.append(
                f"error rate resolved at or above δ = {delta:g}: "
                + ", ".join(
                    f"{r.algorithm} {r.error_rate:.3g} [{r.wilson_low:.2g}, {r.wilson_high:.2g}]"
                    for r in above
                )
            )
        if open_:
            reasons.append(
                "Wilson interval contains δ (too few runs, or a rate near δ): "
                + ", ".join(f"{r.algorithm} {r.errors}/{r.runs}" for r in open_)
            )
        out.append(
            Claim(
                topic="experiments",
                claim=f"{BELOW_DELTA_WORDS} (EV-GLR rules, heuristic threshold, {exp})",
                where=BELOW_DELTA_WHERE,
                paper=f"every EV rule's error rate < δ = {delta:g}: its 95% Wilson interval "
                "entirely below δ (one-sided, D280)",
                ours=ours,
                verdict=combine(v.values()),
                reason="; ".join(reasons),
            )
        )
    return out
