"""Claims of Appendix ``app:ss_implementation_details`` on the thresholds' hyper-parameters
``(η0, η1)``, ``s`` and ``γ`` (D340): the rows of the reproduction report built from the
table of :func:`baiuv.experiments.threshold_params.parameter_effects`, each statement's
measure compared between neighbouring values of the parameter's grid, and the order of the
thresholds kept over the grids; :mod:`.threshold_claims` puts them in the report."""

from __future__ import annotations

import pandas as pd

from baiuv.claims import Band, Claim, combine, judge
from baiuv.experiments.threshold_params import PAPER_VALUES, RANK_GROUPS
from baiuv.registry import label

__all__ = [
    "ORDER_WORDS",
    "PARAMS_WHERE",
    "PARAM_STATEMENTS",
    "order_claim",
    "parameter_band",
    "parameter_claims",
]

PARAMS_WHERE = "App. app:ss_implementation_details (Stopping thresholds)"
#: Appendix J.1's statements: (parameter, measure of
#: :mod:`baiuv.experiments.threshold_params`, direction, the paper's words). Direction
#: ``"up"``: a smaller parameter gives a larger measure; ``"ideal"``: a measure nearer the
#: heuristic's (the asymptotically tight threshold's) dependency (D340).
PARAM_STATEMENTS = (
    (
        "eta",
        "delta_slope",
        "ideal",
        '"Smaller values of (η0, η1) yield close to ideal dependency in δ"',
    ),
    (
        "eta",
        "time_slope",
        "up",
        '"[smaller (η0, η1)] at the cost of increasing the dependency in t"',
    ),
    ("s", "time_slope", "ideal", '"Smaller values of s yield close to ideal dependency in t"'),
    ("s", "constant", "up", '"[smaller s] at the cost of increasing the constant term"'),
    (
        "gamma",
        "updates",
        "up",
        '"Smaller values of γ yield more frequent update of the approximation term error '
        '(i.e. the ratio of eigenvalues)"',
    ),
    ("gamma", "time_slope", "up", '"[smaller γ] at the cost of increasing the dependency in t"'),
)
_PARAM_NAMES = {"eta": "η0 = η1", "s": "s", "gamma": "γ"}
_MEASURES = {
    "delta_slope": "least-squares slope of the threshold in ln(1/δ) over ln(1/δ) = 1, 2, …, 20 "
    "at t = 5000 (η held fixed)",
    "time_slope": "least-squares slope of the threshold in ln t over 21 t from 10^4 to 10^5 at "
    "δ = 0.01",
    "constant": "constant term (the family's log term minus ln(1/δ), depending on neither t "
    "nor δ: Box, EV-Box, Student, EV-Student ln(4(K−1)ζ(s)); KL ln(2ζ(s)²); BoB, EV-BoB "
    "ln(2ζ(s)²) + ln 2; K = 2)",
    "updates": "new peeling levels (updates of R) of an arm over its counts 1 … 50 000",
}
#: a measure described beside a judged one (not judged): the judged measure's name ->
#: (the described measure, its text)
_DESCRIBED = {
    "constant": (
        "low_delta_value",
        "the threshold at ln(1/δ) = 1, t = 5000, where the s-weighted t term dominates",
    ),
}


def parameter_band(words: str) -> Band:
    """The one-sided band of Appendix J.1's statements: the difference of the measure
    between the smaller and the larger parameter, oriented as the paper's words, > 0."""
    return Band(lo=0.0, strict_lo=True, words=words, where=PARAMS_WHERE)


def _param_value_text(parameter: str, v: float) -> str:
    """``0.5/ln(100)`` (η: a multiple of the paper's 1/ln(1/δ) at δ = 0.01, held fixed),
    ``1.5`` (s, γ)."""
    return f"{v:g}/ln(100)" if parameter == "eta" else f"{v:g}"


def _family_text(name: str) -> str:
    """The registry's label of a family, or of each of ``"kl, bob, ev-bob"``."""
    return ", ".join(label(n) for n in name.split(", "))


ORDER_WORDS = (
    '"For reasonable choices of the parameters, the relative performance of the thresholds '
    'are not changed"'
)


def _order(values: pd.Series) -> tuple[str, ...]:
    """The families from the lowest threshold (the best) to the highest."""
    return tuple(values.sort_values(kind="stable").index)


def order_claim(effects: pd.DataFrame) -> Claim | None:
    """ "the relative performance of the thresholds are not changed" (D340): at each point
    of :data:`baiuv.experiments.threshold_params.RANK_POINTS` and for each stopping rule's
    families (:data:`~baiuv.experiments.threshold_params.RANK_GROUPS`), the order of the
    thresholds (lowest first) at each value of each parameter's grid against the order at
    the paper's value; the count of changed orders judged against the band ≤ 0 (exact)."""
    sub = effects[effects["measure"].str.startswith("value at ")]
    if sub.empty:
        return None
    changed, texts = [], []
    for (parameter, point), g in sub.groupby(["parameter", "measure"], sort=False):
        by = {v: gg.set_index("family")["statistic"] for v, gg in g.groupby("value")}
        for rule, fams in RANK_GROUPS.items():
            ref = _order(by[PAPER_VALUES[parameter]][list(fams)])
            for v, x in by.items():
                o = _order(x[list(fams)])
                if o != ref:
                    changed.append(
                        f"{_PARAM_NAMES[parameter]} = {_param_value_text(parameter, v)}, "
                        f"{point[9:]}: " + " < ".join(label(f) for f in o)
                    )
            if parameter == "s":  # s = 2 with η = 1/ln(1/δ), γ = 1.2: the paper's values
                texts.append(f"{rule}, {point[9:]}: " + " < ".join(label(f) for f in ref))
    b = Band(hi=0.0, words=ORDER_WORDS, where=PARAMS_WHERE)
    n = float(len(changed))
    grids = "; ".join(
        f"{_PARAM_NAMES[p]} ∈ {{{', '.join(_param_value_text(p, v) for v in sorted(g['value'].unique()))}}}"
        for p, g in sub.groupby("parameter", sort=False)
    )
    return Claim(
        topic="threshold hyper-parameters",
        claim=ORDER_WORDS,
        where=f"{PARAMS_WHERE}, D340",
        paper=f"orders changed {b.text()}",
        ours="order of each rule's thresholds (lowest first) at the paper's values: "
        + "; ".join(texts)
        + f"; over {grids}, changed orders: {len(changed)}",
        verdict=judge(n, (n, n), b),
        reason="changed: " + "; ".join(changed) if changed else "",
    )


def _described(effects: pd.DataFrame, parameter: str, measure: str, grid) -> str:
    """``"; described, not judged: …"``: the measure :data:`_DESCRIBED` sets beside
    ``measure``, per family on ``grid`` ("" when none or absent from the table)."""
    if measure not in _DESCRIBED:
        return ""
    other, words = _DESCRIBED[measure]
    sub = effects[(effects["parameter"] == parameter) & (effects["measure"] == other)]
    if sub.empty:
        return ""
    texts = []
    for fam, g in sub.groupby("family", sort=False):
        m = g.set_index("value")["statistic"]
        texts.append(f"{_family_text(fam)} " + " / ".join(f"{m[x]:.4g}" for x in grid))
    return f"; described, not judged: {words}: " + "; ".join(texts)


def parameter_claims(effects: pd.DataFrame, *, band=parameter_band) -> list[Claim]:
    """Rows of Appendix J.1's statements on ``(η0, η1)``, ``s`` and ``γ`` from the table of
    :func:`baiuv.experiments.threshold_params.parameter_effects` (D340): for every family
    reading the parameter and every two neighbours ``v < v'`` of its grid, the difference
    ``m(v) − m(v')`` ("up") or ``|m(v') − ideal| − |m(v) − ideal|`` ("ideal", the heuristic's
    measure) judged against ``band(words)`` (> 0) by :func:`baiuv.claims.judge`; the
    numbers are exact (deterministic formulas), so the interval is the point."""
    ideal = effects[effects["parameter"] == "none"].set_index("measure")["statistic"]
    out = []
    for parameter, measure, direction, words in PARAM_STATEMENTS:
        sub = effects[(effects["parameter"] == parameter) & (effects["measure"] == measure)]
        if sub.empty:
            continue
        b = band(words)
        grid = sorted(sub["value"].unique())
        verdicts, texts, failed = [], [], []
        for fam, g in sub.groupby("family", sort=False):
            m = g.set_index("value")["statistic"]
            for lo, hi in zip(grid, grid[1:], strict=False):
                if direction == "up":
                    stat = float(m[lo] - m[hi])
                else:
                    stat = float(abs(m[hi] - ideal[measure]) - abs(m[lo] - ideal[measure]))
                v = judge(stat, (stat, stat), b)
                verdicts.append(v)
                if v != "reproduced":
                    failed.append(
                        f"{_family_text(fam)}: {_param_value_text(parameter, lo)} gives {m[lo]:.4g}, "
                        f"{_param_value_text(parameter, hi)} gives {m[hi]:.4g}"
                    )
            texts.append(f"{_family_text(fam)} " + " / ".join(f"{m[x]:.4g}" for x in grid))
        name = _PARAM_NAMES[parameter]
        at = ", ".join(_param_value_text(parameter, x) for x in grid)
        ours = f"{_MEASURES[measure]} at {name} = {at}: " + "; ".join(texts)
        if direction == "ideal":
            ours += f"; ideal (heuristic threshold) {ideal[measure]:.4g}"
        ours += _described(effects, parameter, measure, grid)
        side = (
            "smaller parameter nearer the ideal"
            if direction == "ideal"
            else "smaller parameter larger"
        )
        out.append(
            Claim(
                topic="threshold hyper-parameters",
                claim=words,
                where=f"{PARAMS_WHERE}, D340",
                paper=f"{side}: every neighbouring pair of the grid, difference {b.text()} "
                "(one-sided, exact)",
                ours=ours,
                verdict=combine(verdicts),
                reason="opposite direction at: " + "; ".join(failed) if failed else "",
            )
        )
    row = order_claim(effects)
    return out if row is None else [*out, row]
