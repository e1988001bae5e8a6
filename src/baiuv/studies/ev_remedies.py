"""Beyond the paper: remedies for the EV-GLR rules' errors, and what they cost.

With the heuristic threshold ``ln((1 + ln t)/delta)`` and ``n0 = 2`` the EV-GLR rules
(EV-TaS, EV-TCI, EV-DKM, EV-FWS) err more often than ``delta`` (docs/audit-resolving.md).
This experiment runs every EV rule with each *remedy* on the instances of Figure
``fig:random_instances_heuristic_threshold`` (standard, easy, random) and on random
instances drawn like the audit's, and reports the error rate (Wilson interval) against the
mean stopping time relative to the authors' code's configuration (heuristic, ``n0 = 2``) and to
``T*(mu, sigma^2) ln(1/delta)``.

Remedies (:data:`THRESHOLD_KINDS`):

* ``heuristic`` with a larger ``n0``: fewer tiny plug-in variances at the first checks;
* ``ev-box`` / ``ev-bob``: the paper's δ-correct EV thresholds (Lemma
  ``lem:delta_correct_box_thresholds_ev``, Corollary ``cor:delta_correct_Kinf_thresholds_ev``);
* ``ev-heuristic-student``: the heuristic's Gaussian level recalibrated for the
  studentised gap (the registry's family of that name,
  :func:`baiuv.thresholds.kernels.ev_heuristic_student`): the EV-GLR
  statistic must be so large that the Student tail with ``min(N_a, N_b) - 1`` degrees of
  freedom (the conservative end of Welch-Satterthwaite) is below the Gaussian tail the
  heuristic accepts. No constant is fitted: it is the heuristic itself with Student tails.

The runs (:mod:`baiuv.studies.ev_remedy_runs`): the remedies of one ``n0`` are stopping
levels of one trajectory (D330: one trajectory for every threshold of an n0), with common
random numbers ``run_seed(seed, "ev_remedies", i, A, r)``; the trajectories of the
authors' code's configuration on the instances of Figure 2 are the main experiment's runs
(D400: the authors' code's configuration is the main experiment's runs), checked row by row when
the runs are aggregated. This module summarises the runs (cells per group and per
instance, Wilson intervals), ranks the remedies, writes the trade-off table and the report
rows. The costs are compared as paired ratios (:mod:`baiuv.studies.ev_paired`), and the
runs that reach ``max_samples`` are explained from their final statistics
(:mod:`baiuv.studies.ev_truncation`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import pandas as pd

from baiuv.claims import (
    DIFFERS,
    NOT_CHECKABLE,
    NOT_RESOLVED,
    REPRODUCED,
    Band,
    Claim,
    combine,
    judge,
)
from baiuv.experiments.spec import ExperimentSpec, ReportEntry, figure_files, instances_of
from baiuv.experiments.stopping_times import wilson_interval
from baiuv.model.validate import check_delta
from baiuv.studies.audit_report import runs_to_resolve
from baiuv.studies.ev_remedy_runs import (
    BASELINE,
    EXPERIMENT,
    RUN_COLUMNS,
    SECTION_SCHEMA,
    check_ev_remedies_config,
)
from baiuv.tables import markdown_table

__all__ = [
    "SPEC",
    "TOPIC",
    "TRUNCATED_AS",
    "cheapest_resolved",
    "ev_claims",
    "instance_cells",
    "main_markdown",
    "recommended",
    "remedy_cells",
    "remedy_markdown",
]


#: How a truncated run counts in a cell's errors (D333): ``"error"``, the verdicts'
#: convention (a cell is resolved below δ even if every truncated run erred), or
#: ``"correct"``, the other end, against which
#: :func:`baiuv.studies.ev_paired.truncation_check` compares them.
TRUNCATED_AS = ("error", "correct")


def _errors(c: pd.DataFrame, delta: float, level: float, truncated_as: str = "error") -> dict:
    """Runs, errors, error rate, Wilson interval, ``resolved`` (upper bound below
    ``delta``) and truncated runs of the runs ``c``, a truncated run counting as an error or
    as correct (``truncated_as``, :data:`TRUNCATED_AS`), and ``truncation_decides``: whether
    the verdict of the error rate against ``< delta`` (:func:`resolved_below`) differs
    between the two."""
    if truncated_as not in TRUNCATED_AS:
        raise ValueError(f"truncated_as must be one of {TRUNCATED_AS}, got {truncated_as!r}")
    n = len(c)
    cut = c["truncated"].astype(bool)
    trunc = int(cut.sum())
    wrong = int((~c["correct"].astype(bool) & ~cut).sum())  # errors of the runs that stopped
    verdicts = {}
    for how, err in (("error", wrong + trunc), ("correct", wrong)):
        lo, hi = wilson_interval(err, n, level)
        cell = {"errors": err, "error_rate": err / n, "wilson_low": lo, "wilson_high": hi}
        verdicts[how] = (cell, resolved_below(cell, delta))
    cell, _ = verdicts[truncated_as]
    return {
        "runs": n,
        **cell,
        "resolved": bool(cell["wilson_high"] < delta),
        "truncated": trunc,
        "truncation_decides": verdicts["error"][1] != verdicts["correct"][1],
    }


def _main_experiment(c: pd.DataFrame) -> str:
    """The experiment of the main experiment whose runs are the runs ``c`` of a cell (D400:
    every run drawn from its streams), ``""`` for the study's own."""
    streams = set(c["stream"])
    return streams.pop() if len(streams) == 1 and EXPERIMENT not in streams else ""


def remedy_cells(
    runs: pd.DataFrame, *, delta: float, level: float = 0.95, truncated_as: str = "error"
) -> pd.DataFrame:
    """Per ``(group, algorithm, remedy)``: runs, errors (a truncated run counting as
    ``truncated_as``, :func:`_errors`), error rate and Wilson interval, ``resolved`` (upper
    bound below ``delta``), truncated runs, whether they decide the cell's verdict, mean
    stopping time, its ratio to the baseline's mean in the same group and algorithm
    (``cost_vs_paper``), the mean of ``tau / (T* ln(1/delta))`` (``cost_vs_lb``), the
    runs whose recommendation is not the best arm, truncated or not (``wrong``: the main
    experiment's count of errors), and ``main_experiment``: the experiment of Figure 2
    whose runs the cell's runs are (D400: the authors' code's configuration is the main
    experiment's runs), else ``""``."""
    d = check_delta(delta)
    need = set(RUN_COLUMNS)
    if missing := need - set(runs.columns):
        raise ValueError(f"runs is missing columns {sorted(missing)}")
    if len(runs) == 0:
        raise ValueError("runs must not be empty")
    rows = []
    for (g, alg, rem), c in runs.groupby(["group", "algorithm", "remedy"], sort=False):
        rows.append(
            {
                "group": g,
                "algorithm": alg,
                "remedy": rem,
                "threshold": c["threshold"].iloc[0],
                "n0": int(c["n0"].iloc[0]),
                **_errors(c, d, level, truncated_as),
                "wrong": int((~c["correct"].astype(bool)).sum()),
                "mean_tau": float(c["stopping_time"].mean()),
                "cost_vs_lb": float((c["stopping_time"] / c["lower_bound"]).mean()),
            }
        )
    cells = pd.DataFrame(rows)
    cells["main_experiment"] = [
        _main_experiment(c) for _, c in runs.groupby(["group", "algorithm", "remedy"], sort=False)
    ]
    base = cells[cells["remedy"] == BASELINE].set_index(["group", "algorithm"])["mean_tau"]
    cells["cost_vs_paper"] = [
        m / base.get((g, a), math.nan)
        for g, a, m in zip(cells["group"], cells["algorithm"], cells["mean_tau"], strict=True)
    ]
    return cells


def instance_cells(
    runs: pd.DataFrame, *, delta: float, level: float = 0.95, truncated_as: str = "error"
) -> pd.DataFrame:
    """Per ``(remedy, instance)``, the EV rules pooled, for the instances on which the remedy
    has at least :func:`~baiuv.studies.audit_report.runs_to_resolve` runs (enough for a
    cell without error to be resolved below ``delta``): runs, errors, error rate, Wilson
    interval and ``resolved``. A group's cell pools its instances and can hide one that
    errs above ``delta``; this is the check per instance (the random instances of Figure
    2, one run each, are never in it)."""
    d = check_delta(delta)
    if missing := {"remedy", "instance", "group", "correct", "truncated"} - set(runs.columns):
        raise ValueError(f"runs is missing columns {sorted(missing)}")
    need = runs_to_resolve(d, level)
    rows = []
    for (rem, inst), c in runs.groupby(["remedy", "instance"], sort=False):
        n = len(c)
        if n < need:
            continue
        rows.append(
            {
                "remedy": rem,
                "instance": inst,
                "group": c["group"].iloc[0],
                **_errors(c, d, level, truncated_as),
            }
        )
    cols = ["remedy", "instance", "group", "runs", "errors", "error_rate", "wilson_low",
            "wilson_high", "resolved", "truncated", "truncation_decides"]  # fmt: skip
    return pd.DataFrame(rows, columns=cols)


def cheapest_resolved(cells: pd.DataFrame, instances: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per remedy: cells, resolved cells, ``all_resolved``, and its cost (mean over its
    cells of ``cost_vs_paper`` and of ``cost_vs_lb``), cheapest first among the remedies
    whose every cell is resolved, then the others.

    With ``instances`` (:func:`instance_cells`), also the instances checked, whether every
    one is resolved (``instances_resolved``, false when none is checked) and the worst one
    (largest Wilson upper bound)."""
    rows = []
    for rem, c in cells.groupby("remedy", sort=False):
        row = {
            "remedy": rem,
            "cells": len(c),
            "resolved_cells": int(c["resolved"].sum()),
            "all_resolved": bool(c["resolved"].all()),
            "max_error_rate": float(c["error_rate"].max()),
            "max_wilson_high": float(c["wilson_high"].max()),
            "cost_vs_paper": float(c["cost_vs_paper"].mean()),
            "cost_vs_lb": float(c["cost_vs_lb"].mean()),
        }
        if instances is not None:
            i = instances[instances["remedy"] == rem]
            row["instances_checked"] = len(i)
            row["instances_resolved"] = bool(len(i) > 0 and i["resolved"].all())
            if len(i):
                w = i.loc[i["wilson_high"].idxmax()]
                row["worst_instance"] = (
                    f"{w['instance']}: {_rate(w['error_rate'], w['wilson_low'], w['wilson_high'])}"
                    f" (n={w['runs']})"
                )
            else:
                row["worst_instance"] = ""
        rows.append(row)
    out = pd.DataFrame(rows)
    return out.sort_values(
        ["all_resolved", "cost_vs_paper"], ascending=[False, True], kind="stable"
    ).reset_index(drop=True)


def recommended(rank: pd.DataFrame) -> pd.Series | None:
    """The cheapest remedy of the ranking (:func:`cheapest_resolved` with ``instances``)
    resolved below ``delta`` on every cell and on every instance checked; ``None`` if none."""
    if "instances_resolved" not in rank.columns:
        raise ValueError("rank must come from cheapest_resolved(cells, instances)")
    ok = rank[rank["all_resolved"] & rank["instances_resolved"]]
    return None if ok.empty else ok.iloc[0]


def _rate(r, lo, hi) -> str:
    return f"{r:.2g} [{lo:.2g}, {hi:.2g}]" if r > 0 else f"0 [0, {hi:.2g}]"


def remedy_markdown(
    cells: pd.DataFrame,
    *,
    delta: float,
    level: float = 0.95,
    instances: pd.DataFrame | None = None,
) -> str:
    """The trade-off table: one row per (remedy, algorithm), one column pair per group
    (error rate [Wilson], cost vs the authors' code's configuration / vs ``T* ln(1/delta)``), and
    the ranking of :func:`cheapest_resolved` (with the check per instance when
    ``instances``, :func:`instance_cells`, is given)."""
    d = check_delta(delta)
    groups = list(dict.fromkeys(cells["group"]))
    rows = []
    for (rem, alg), c in cells.groupby(["remedy", "algorithm"], sort=False):
        row = {"remedy": rem, "algorithm": alg}
        for g in groups:
            x = c[c["group"] == g]
            if x.empty:
                row[f"{g}: error [Wilson]"] = ""
                row[f"{g}: τ/n0=2, τ/T*ln"] = ""
                continue
            r = x.iloc[0]
            mark = " ✓" if r["resolved"] else ""
            cut = f", {r['truncated']} truncated" if r["truncated"] else ""
            row[f"{g}: error [Wilson]"] = (
                _rate(r["error_rate"], r["wilson_low"], r["wilson_high"])
                + f" (n={r['runs']}{cut}){mark}"
            )
            row[f"{g}: τ/n0=2, τ/T*ln"] = f"{r['cost_vs_paper']:.2f}, {r['cost_vs_lb']:.2f}"
        rows.append(row)
    rank = cheapest_resolved(cells, instances)
    best = rank[rank["all_resolved"]]
    if best.empty:
        verdict = "No remedy has every cell resolved below δ with these runs."
    else:
        b = best.iloc[0]
        verdict = (
            f"Cheapest remedy with every cell resolved below δ: **{b['remedy']}**, mean "
            f"stopping time {b['cost_vs_paper']:.2f}× the authors' code's configuration and "
            f"{b['cost_vs_lb']:.2f}× T*(μ,σ²) ln(1/δ) (averaged over its cells)."
        )
    if instances is not None:
        need = runs_to_resolve(d, level)
        rec = recommended(rank)
        verdict += (
            f"\n\nA cell pools the instances of its group. Checked per instance (the EV rules "
            f"pooled, instances with at least {need} runs of the remedy): "
        )
        if rec is None:
            verdict += "no remedy is resolved below δ on every cell and every instance."
        else:
            verdict += (
                f"the cheapest remedy resolved below δ on every cell and every instance, the "
                f"**recommended** one, is **{rec['remedy']}**: mean stopping time "
                f"{rec['cost_vs_paper']:.2f}× the authors' code's configuration and "
                f"{rec['cost_vs_lb']:.2f}× T*(μ,σ²) ln(1/δ); its worst instance "
                f"{rec['worst_instance']}."
            )
        if not best.empty and (rec is None or rec["remedy"] != best.iloc[0]["remedy"]):
            verdict += (
                f" The worst instance of {best.iloc[0]['remedy']}: "
                f"{best.iloc[0]['worst_instance']}."
            )
    head = (
        f"# EV-GLR remedies: error rate against cost (δ = {d:g})\n\n"
        f"Error rate with its {level:.0%} Wilson interval, number of runs and truncated runs "
        "(runs that reach max_samples, counted as errors); ✓ = resolved below δ (upper bound "
        "< δ). Costs: mean stopping time relative to "
        f"the authors' code's configuration ({BASELINE}, same group and rule) and mean of "
        "τ / (T*(μ,σ²) ln(1/δ)). Groups: named instances of Figure 2, `random` = Figure 2's "
        "random instances, `audit` = random instances drawn like the audit's.\n\n"
        + verdict
        + "\n\n"
    )
    decided = cells[cells["truncation_decides"]]
    if decided.empty:
        after = "No cell's verdict depends on how its truncated runs count.\n"
    else:
        after = (
            "Cells whose verdict against δ depends on how their truncated runs count (an "
            "error or correct): "
            + "; ".join(
                f"{r.algorithm} {r.remedy} {r.group} ({r.truncated} of {r.runs})"
                for r in decided.itertuples(index=False)
            )
            + ".\n"
        )
    return (
        head
        + markdown_table(pd.DataFrame(rows))
        + "\n"
        + after
        + "\n## Ranking\n\n"
        + markdown_table(rank)
    )


def main_markdown(cells: pd.DataFrame) -> str:
    """The section of the baseline's cells whose runs are the main experiment's (column
    ``main_experiment`` of :func:`remedy_cells`; the other levels of those trajectories
    have no cell there): per cell the experiment, runs, wrong
    recommendations (the main experiment's errors), truncated runs and mean stopping time,
    the numbers of that experiment's tables (D400: those cells are its runs)."""
    c = cells[(cells["main_experiment"] != "") & (cells["remedy"] == BASELINE)]
    head = "## The authors' code's configuration: the main experiment's runs\n\n"
    if c.empty:
        return head + "No cell of this study is a cell of the main experiment.\n"
    t = pd.DataFrame(
        {
            "group": c["group"],
            "algorithm": c["algorithm"],
            "remedy": c["remedy"],
            "experiment": c["main_experiment"],
            "runs": c["runs"],
            "errors": c["wrong"],
            "truncated": c["truncated"],
            "mean τ": [f"{m:.1f}" for m in c["mean_tau"]],
        }
    )
    return (
        head + "These cells are the runs of the stopping-time experiment (Figure 2, "
        "`results/tables/error_rates.md` and `stopping_times.md`): the same random streams "
        "and settings, checked run by run when the runs are aggregated (stopping time, "
        "recommendation, counts). `errors` counts the wrong recommendations as that "
        "experiment does; the table above counts a truncated run as an error.\n\n"
        + markdown_table(t.reset_index(drop=True))
    )


#: Topic of the report rows of this experiment (not claims of the paper).
TOPIC = "Beyond the paper (the artifact's own results): EV-GLR remedies"


def _cheapness(
    cells: pd.DataFrame, paired: pd.DataFrame, candidate: str, rivals: Sequence[str], delta
) -> tuple[str, list[str]]:
    """The verdict of "``candidate`` is resolved below ``delta`` on every cell of
    ``cells`` and no remedy of ``rivals`` costs less on a (group, rule)": per cell,
    :func:`baiuv.claims.judge` of its error rate against ``< delta`` (a truncated run
    counts as an error, D333), and per rival, group and rule the paired ratio
    ``τ(rival)/τ(candidate)`` judged above 1 (:mod:`baiuv.studies.ev_paired`);
    :func:`baiuv.claims.combine` of them, with the reasons of the parts that are not
    reproduced."""
    parts, why = [], []
    for r in cells[cells["remedy"] == candidate].itertuples(index=False):
        v = resolved_below(r._asdict(), delta)
        if v != REPRODUCED:
            why.append(
                f"{r.algorithm} {r.group}: error {r.errors}/{r.runs}, {r.truncated} truncated"
            )
        parts.append(v)
    for rival in rivals:
        for (g, a), _ in cells[cells["remedy"] == candidate].groupby(["group", "algorithm"]):
            row = lookup(paired, g, a, rival, candidate)
            v = side_verdict(row)
            if v != REPRODUCED:
                txt = "no paired runs" if row is None else ratio_text(row)
                why.append(f"{rival}/{candidate} on {a} {g}: {txt}")
            parts.append(v)
    return combine(parts), why


def _cost_text(paired: pd.DataFrame, cells: pd.DataFrame, remedy: str) -> str:
    """The paired ratios of ``remedy`` to the baseline over its cells: the one ratio of a
    single cell, else their range."""

    p = paired[(paired["remedy"] == remedy) & (paired["reference"] == BASELINE)]
    p = p.merge(cells[cells["remedy"] == remedy][["group", "algorithm"]], on=["group", "algorithm"])
    if p.empty:
        return "no run paired with the authors' code's configuration"
    if len(p) == 1:
        return f"mean τ / mean τ(n0=2), paired: {ratio_text(p.iloc[0])}"
    return (
        f"mean τ / mean τ(n0=2), paired over {len(p)} cells: {p['ratio'].min():.3g}–"
        f"{p['ratio'].max():.3g} (intervals {p['ratio_low'].min():.3g}–"
        f"{p['ratio_high'].max():.3g}; medians' ratios {p['median_ratio'].min():.3g}–"
        f"{p['median_ratio'].max():.3g})"
    )


def _remedy_row(cells, paired, candidate, rivals, *, delta, claim, where, extra=""):
    v, why = _cheapness(cells, paired, candidate, rivals, delta)
    c = cells[cells["remedy"] == candidate]
    return Claim(
        topic=TOPIC,
        claim=claim,
        where=where,
        paper=f"error < δ = {delta:g}; no resolved remedy cheaper (paired ratio > 1)",
        ours=f"{candidate}: max error {c['error_rate'].max():.2g} (Wilson upper ≤ "
        f"{c['wilson_high'].max():.2g}); {_cost_text(paired, cells, candidate)}{extra}",
        verdict=v,
        reason="; ".join(why),
    )


def ev_claims(
    cells: pd.DataFrame,
    init: pd.DataFrame,
    *,
    delta: float,
    paired: pd.DataFrame,
    instances: pd.DataFrame | None = None,
) -> list:
    """Report rows "beyond the paper" (:class:`baiuv.report.reproduction.Claim`).

    1. The model of the first check (:func:`baiuv.studies.ev_mechanism.init_stop_probabilities`)
       lies inside the Wilson interval of the measured frequency, per named instance and
       event (error / correct stop at ``tau = n0 K``).
    2. Per EV rule: the cheapest remedy whose every group is resolved below ``delta``, with
       its paired cost; ``not checkable`` when no remedy is.
    3. The cheapest remedy resolved below ``delta`` for every rule and group.
    4. With ``instances`` (:func:`instance_cells`): the recommended remedy
       (:func:`recommended`), resolved on every cell and every instance checked.

    Rows 2–4 are judged by :func:`baiuv.claims.judge` (:func:`_cheapness`): every cell's
    error rate below ``delta``, and every other resolved remedy costlier by its paired
    ratio (``paired``, :func:`baiuv.studies.ev_paired.paired_costs`).
    """
    d = check_delta(delta)
    out = []
    for r in init.itertuples(index=False):
        inside = bool(r.model_inside)
        out.append(
            Claim(
                topic=TOPIC,
                claim=f"{r.group}: the plug-in-variance model predicts the rate of "
                f"{r.event} (heuristic, n0 = 2)",
                where="Sec. ssec:GLR_stopping_rule (EV-GLR statistic), Gaussian χ² variances",
                paper=f"model {r.model:.3g}",
                ours=f"{r.count}/{r.runs} = {r.rate:.3g} [{r.wilson_low:.3g}, {r.wilson_high:.3g}]",
                verdict=REPRODUCED if inside else DIFFERS,
                reason="" if inside else "the model lies outside the measured Wilson interval",
            )
        )

    def none_row(claim, where, ours="none"):
        return Claim(
            topic=TOPIC,
            claim=claim,
            where=where,
            paper=f"error < δ = {d:g}",
            ours=ours,
            verdict=NOT_CHECKABLE,
            reason="too few runs, or every remedy errs above δ somewhere",
        )

    for alg, c in cells.groupby("algorithm", sort=False):
        rank = cheapest_resolved(c)
        ok = rank[rank["all_resolved"]]
        what = f"{alg}: cheapest remedy resolved below δ on every instance group"
        where = "δ-resolving audit; this experiment"
        if ok.empty:
            base = c[c["remedy"] == BASELINE]
            base_txt = ", ".join(
                f"{g} {e:.2g}" for g, e in zip(base["group"], base["error_rate"], strict=True)
            )
            out.append(
                none_row(
                    f"{alg}: a remedy is resolved below δ on every instance group",
                    where,
                    f"authors' code's configuration (n0 = 2): {base_txt}; no remedy resolved "
                    "everywhere",
                )
            )
            continue
        out.append(
            _remedy_row(
                c,
                paired,
                ok.iloc[0]["remedy"],
                list(ok["remedy"].iloc[1:]),
                delta=d,
                claim=what,
                where=where,
            )
        )
    rank = cheapest_resolved(cells, instances)
    ok = rank[rank["all_resolved"]]
    what = "cheapest remedy resolved below δ for every EV rule and instance group"
    if ok.empty:
        what = "a remedy is resolved below δ for every EV rule and instance group"
        out.append(none_row(what, "this experiment"))
    else:
        out.append(
            _remedy_row(
                cells,
                paired,
                ok.iloc[0]["remedy"],
                list(ok["remedy"].iloc[1:]),
                delta=d,
                claim=what,
                where="this experiment",
                extra=f" ({ok.iloc[0]['cells']} cells)",
            )
        )
    if instances is not None:
        rec = recommended(rank)
        what = "cheapest remedy resolved below δ on every cell and every instance checked"
        if rec is None:
            out.append(none_row(what, "this experiment"))
        else:
            rivals = rank[rank["all_resolved"] & rank["instances_resolved"]]["remedy"]
            out.append(
                _remedy_row(
                    cells,
                    paired,
                    rec["remedy"],
                    list(rivals.iloc[1:]),
                    delta=d,
                    claim=what,
                    where="this experiment",
                    extra=f"; {rec['instances_checked']} instances, worst {rec['worst_instance']}",
                )
            )
    for c in out:  # the artifact's own study: counted apart from the paper's statements
        c.beyond_paper = True
    return out


#: The side of 1 a paired ratio's interval lies on, by the verdict of "costlier".
SIDE_OF_VERDICT = {REPRODUCED: "above 1", DIFFERS: "below 1", NOT_RESOLVED: "straddles 1"}


def resolved_below(cell, delta: float) -> str:
    """The verdict of :func:`baiuv.claims.judge` on a cell's error rate and its Wilson
    interval against the one-sided band ``< delta``."""
    band = Band(hi=float(delta), strict_hi=True, words="error below δ", where="Sec. 2")
    return judge(float(cell["error_rate"]), (cell["wilson_low"], cell["wilson_high"]), band)


def ratio_text(r) -> str:
    """``"1.52 [1.45, 1.60] (medians 1.50 [1.40, 1.62])"`` of a row of :func:`~baiuv.studies.ev_paired.paired_costs`."""
    return (
        f"{r['ratio']:.3g} [{r['ratio_low']:.3g}, {r['ratio_high']:.3g}] (medians "
        f"{r['median_ratio']:.3g} [{r['median_low']:.3g}, {r['median_high']:.3g}])"
    )


def lookup(paired: pd.DataFrame, group: str, algorithm: str, remedy: str, reference: str):
    """The row of :func:`~baiuv.studies.ev_paired.paired_costs` for these keys, ``None`` if absent."""
    x = paired[
        (paired["group"] == group)
        & (paired["algorithm"] == algorithm)
        & (paired["remedy"] == remedy)
        & (paired["reference"] == reference)
    ]
    return None if x.empty else x.iloc[0]


def side_verdict(row) -> str:
    """The verdict of "the remedy is costlier than the reference" of a paired row (the
    judgement of :func:`~baiuv.studies.ev_paired.paired_costs`), ``not resolved`` when the row is absent."""
    if row is None or (isinstance(row["ratio"], float) and math.isnan(row["ratio"])):
        return NOT_RESOLVED
    return {v: k for k, v in SIDE_OF_VERDICT.items()}[row["side"]]


SPEC = ExperimentSpec(
    name="ev_remedies",
    order=80,
    section="ev_remedies",
    schema=SECTION_SCHEMA,
    check=lambda section, config: check_ev_remedies_config(
        section, instances_of(config), config["seed"], simulation=config.get("simulation")
    ),
    targets=lambda config: [
        *figure_files("ev_remedies"),
        "results/tables/ev_remedies.md",
        "results/tables/ev_mechanism.md",
    ],
    report_inputs=lambda config: {
        "ev_cells": "results/ev_remedies/cells.parquet",
        "ev_instances": "results/ev_remedies/instances.parquet",
        "ev_paired": "results/ev_remedies/paired.parquet",
        "ev_init": "results/ev_remedies/init_model.parquet",
        "ev_errors": "results/ev_remedies/erring_runs.parquet",
    },
    claims=lambda tables, config: ev_claims(
        tables["ev_cells"],
        tables["ev_init"],
        delta=config["ev_remedies"]["delta"],
        instances=tables["ev_instances"],
        paired=tables["ev_paired"],
    ),
    beyond_paper=True,
    rules="ev_remedies.smk",
    steps={"figure": "baiuv.plotting.ev_remedies:figure_of"},
    category="Beyond the paper, EV-GLR remedies",
    entries=(
        ReportEntry(
            key="ev_remedies",
            path="results/figures/ev_remedies.png",
            shows="error rate against mean stopping time of every remedy of the EV-GLR rules",
        ),
        ReportEntry(
            key="ev_remedies_table",
            path="results/tables/ev_remedies.html",
            shows=(
                "error rate (Wilson 95 %) and cost in samples of every remedy, per EV rule "
                "and instance group"
            ),
            markdown="results/tables/ev_remedies.md",
            caption="ev_remedies_table.rst",
        ),
        ReportEntry(
            key="ev_mechanism",
            path="results/tables/ev_mechanism.html",
            shows=(
                "errors at the first check, measured against the closed-form model, and the "
                "erring runs"
            ),
            markdown="results/tables/ev_mechanism.md",
            caption="ev_mechanism.rst",
        ),
    ),
)
