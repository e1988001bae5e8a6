"""Beyond the paper: the EV remedies' costs as paired ratios on common trajectories.

Every remedy of the study (:mod:`baiuv.studies.ev_remedies`) runs on the same random
streams: the remedies of one ``n0`` are stopping levels of one trajectory, and different
``n0`` use the same seeds (common random numbers), but for the ``n0 = 2`` trajectories on
the instances of Figure 2, which are the main experiment's runs (D400) and so are paired
with the other ``n0`` by run only. So the cost of a remedy against a reference is a paired
statistic (valid whether or not the two runs of a pair share a stream): ``mean τ(remedy)
/ mean τ(reference)`` over the runs both have, with a percentile bootstrap that resamples
the runs with both their stopping times (the random group has one run per instance: the
instances are resampled), and the ratio of medians beside (D331: paired ratios of the remedies' costs).

References: the authors' code's configuration (:data:`~baiuv.studies.ev_remedy_runs.BASELINE`)
and the cheapest remedy resolved below δ on every group (of the rule, and over every
rule; :func:`~baiuv.studies.ev_remedies.cheapest_resolved`).

:func:`truncation_check` judges the study's remedy rows again with the runs that reach
``max_samples`` counted as correct instead of as errors (D333).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from baiuv.claims import NOT_CHECKABLE, Band, bootstrap_ratio
from baiuv.studies.ev_remedies import (
    BASELINE,
    SIDE_OF_VERDICT,
    TRUNCATED_AS,
    cheapest_resolved,
    ev_claims,
    instance_cells,
    ratio_text,
    recommended,
    remedy_cells,
)
from baiuv.tables import markdown_table

__all__ = [
    "COSTLIER",
    "PAIRED_COLUMNS",
    "paired_costs",
    "paired_markdown",
    "paired_references",
    "truncation_check",
    "truncation_check_markdown",
]

#: The band "costlier than the reference" (a ratio above 1) of the paired comparisons.
COSTLIER = Band(lo=1.0, strict_lo=True, words="costlier than the reference", where="this study")

PAIRED_COLUMNS = [
    "group",
    "algorithm",
    "remedy",
    "reference",
    "pairs",
    "ratio",
    "ratio_low",
    "ratio_high",
    "median_ratio",
    "median_low",
    "median_high",
    "side",
    "resampled",
]


def paired_references(
    cells: pd.DataFrame, instances: pd.DataFrame | None = None
) -> dict[str, list[str]]:
    """Per algorithm, the references of its paired costs: the baseline, the cheapest remedy
    resolved on every group of that rule, the cheapest resolved on every cell of every
    rule and, with ``instances``, the recommended one
    (:func:`~baiuv.studies.ev_remedies.recommended`), when there are, without
    repetition."""

    def first(c):
        rank = cheapest_resolved(c)
        ok = rank[rank["all_resolved"]]
        return None if ok.empty else str(ok.iloc[0]["remedy"])

    overall = first(cells)
    rec = None
    if instances is not None:
        r = recommended(cheapest_resolved(cells, instances))
        rec = None if r is None else str(r["remedy"])
    out = {}
    for alg, c in cells.groupby("algorithm", sort=False):
        refs = [BASELINE, first(c), overall, rec]
        out[alg] = list(dict.fromkeys(r for r in refs if r is not None))
    return out


def _pairs(a: pd.DataFrame, b: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Stopping times of the runs both ``a`` and ``b`` have (keys instance and run)."""
    m = a[["instance", "run", "stopping_time"]].merge(
        b[["instance", "run", "stopping_time"]], on=["instance", "run"], suffixes=("_a", "_b")
    )
    return m["stopping_time_a"].to_numpy(float), m["stopping_time_b"].to_numpy(float)


def paired_costs(
    runs: pd.DataFrame,
    cells: pd.DataFrame,
    *,
    instances: pd.DataFrame | None = None,
    level: float = 0.95,
    n_boot: int | None = None,
) -> pd.DataFrame:
    """Per (group, algorithm, remedy, reference of :func:`paired_references`): the runs
    both have (``pairs``), ``mean τ(remedy) / mean τ(reference)`` with its paired bootstrap
    interval, the ratio of medians with its own, and the side of 1 the interval lies on
    (``above 1``, ``below 1``, ``straddles 1``; :data:`COSTLIER` by
    :func:`baiuv.claims.judge`). ``resampled``: ``runs``, or ``instances`` where every
    instance of the group has one run (:data:`PAIRED_COLUMNS`). ``instances``: the
    cells per instance (:func:`~baiuv.studies.ev_remedies.instance_cells`), for the
    recommended remedy as a reference."""
    refs = paired_references(cells, instances)
    rows = []
    for (g, alg), c in runs.groupby(["group", "algorithm"], sort=False):
        by = dict(tuple(c.groupby("remedy", sort=False)))
        unit = "instances" if c.groupby(["remedy", "instance"]).size().max() == 1 else "runs"
        for ref in refs.get(alg, []):
            if ref not in by:
                continue
            for rem, x in by.items():
                if rem == ref:
                    continue
                num, den = _pairs(x, by[ref])
                if num.size == 0:
                    continue
                j = bootstrap_ratio(
                    num,
                    den,
                    COSTLIER,
                    identity=("ev_remedies", g, alg, rem, ref),
                    paired=True,
                    level=level,
                    n_boot=n_boot,
                )
                rows.append(
                    {
                        "group": g,
                        "algorithm": alg,
                        "remedy": rem,
                        "reference": ref,
                        "pairs": int(num.size),
                        "ratio": j.statistic,
                        "ratio_low": j.interval[0],
                        "ratio_high": j.interval[1],
                        "median_ratio": j.median,
                        "median_low": j.median_interval[0],
                        "median_high": j.median_interval[1],
                        "side": SIDE_OF_VERDICT[j.verdict],
                        "resampled": unit,
                    }
                )
    return pd.DataFrame(rows, columns=PAIRED_COLUMNS)


def paired_markdown(paired: pd.DataFrame, *, level: float = 0.95) -> str:
    """The section of the remedy table on the paired costs: one table per reference, a row
    per (remedy, algorithm), a column per group."""
    head = (
        "## Paired costs\n\n"
        "Mean stopping time of the remedy over that of the reference on the same runs (the "
        "remedies of one n0 are stopping levels of one trajectory; other n0 share the "
        f"seeds), with its {level:.0%} percentile bootstrap interval over runs (over "
        "instances for the random group: one run each), and the ratio of medians with its "
        "interval beside; `n` runs paired. ↑ / ↓: the interval of the means' ratio lies "
        "above / below 1.\n\n"
    )
    if paired.empty:
        return head + "_No paired comparison._\n"
    out = [head]
    mark = {"above 1": " ↑", "below 1": " ↓", "straddles 1": ""}
    groups = list(dict.fromkeys(paired["group"]))
    for ref, p in paired.groupby("reference", sort=False):
        rows = []
        for (rem, alg), c in p.groupby(["remedy", "algorithm"], sort=False):
            row = {"remedy": rem, "algorithm": alg}
            for g in groups:
                x = c[c["group"] == g]
                row[g] = (
                    ""
                    if x.empty
                    else f"{ratio_text(x.iloc[0])} n={x.iloc[0]['pairs']}{mark[x.iloc[0]['side']]}"
                )
            rows.append(row)
        out.append(f"### Against {ref}\n\n" + markdown_table(pd.DataFrame(rows)))
    return "\n".join(out)


def truncation_check(
    runs: pd.DataFrame, *, delta: float, level: float = 0.95, n_boot: int | None = None
) -> pd.DataFrame:
    """The study's verdicts (the remedy rows of :func:`~baiuv.studies.ev_remedies.ev_claims`: per rule and over every
    rule, with the check per instance) with a truncated run counted as an error and as
    correct (:data:`TRUNCATED_AS`, the cells, instances and paired costs of each): per
    claim, the remedy it names and its verdict each way, and ``flips`` when they differ
    (D333: the verdicts may not depend on the truncated runs)."""
    got = {}
    for how in TRUNCATED_AS:
        cells = remedy_cells(runs, delta=delta, level=level, truncated_as=how)
        inst = instance_cells(runs, delta=delta, level=level, truncated_as=how)
        paired = paired_costs(runs, cells, instances=inst, level=level, n_boot=n_boot)
        init = pd.DataFrame(columns=["group"])  # the model rows read no truncated run
        got[how] = {
            c.claim: (c.ours.split(":")[0] if c.verdict != NOT_CHECKABLE else "", c.verdict)
            for c in ev_claims(cells, init, delta=delta, paired=paired, instances=inst)
        }
    rows = []
    for claim in dict.fromkeys([*got["error"], *got["correct"]]):
        e = got["error"].get(claim, ("", "absent"))
        c = got["correct"].get(claim, ("", "absent"))
        rows.append(
            {
                "claim": claim,
                "remedy_truncated_error": e[0],
                "verdict_truncated_error": e[1],
                "remedy_truncated_correct": c[0],
                "verdict_truncated_correct": c[1],
                "flips": e != c,
            }
        )
    return pd.DataFrame(rows)


def truncation_check_markdown(check: pd.DataFrame, *, max_samples: int) -> str:
    """The section of the remedy table on :func:`truncation_check`."""
    n = int(check["flips"].sum())
    head = (
        f"## Do the truncated runs decide a verdict? (max_samples = {max_samples:,})\n\n"
        "Each remedy row of the report, with a run that reaches max_samples counted as an "
        "error and as correct: "
        + ("the same remedy and verdict either way.\n\n" if n == 0 else f"{n} differ.\n\n")
    )
    return head + markdown_table(check)
