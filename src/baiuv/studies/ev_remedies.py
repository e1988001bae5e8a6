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

Random streams: run ``r`` of algorithm ``A`` on instance ``i`` uses ``run_seed(seed,
"ev_remedies", i, A, r)`` for every remedy (common random numbers). The remedies of one
``n0`` are stopping levels of one trajectory (:func:`run_remedy_shard`; D330: one
trajectory for every threshold of an n0), each row equal to that of the remedy run alone.
The costs are compared as paired ratios (:mod:`baiuv.studies.ev_paired`), and the
runs that reach ``max_samples`` are replayed for the evidence of why
(:mod:`baiuv.studies.ev_truncation`). Random instances of
Figure 2 are those of the simulation's ``random`` experiment (``run_seed(seed, "random",
"instances", 0, j)``), the audit's those of ``audit_<family>``.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from baiuv.claims import DIFFERS, NOT_RESOLVED, REPRODUCED, Band, judge
from baiuv.experiments.spec import ExperimentSpec, figure_files, instances_of
from baiuv.experiments.stopping_times import Experiment, wilson_interval
from baiuv.model.characteristic import characteristic_time
from baiuv.model.instance import GaussianInstance
from baiuv.model.validate import check_delta
from baiuv.registry import get_algorithm
from baiuv.simulation.engine import (
    Runner,
    RunSettings,
    shard_runs,
    warm_up,
)
from baiuv.simulation.rng import generator_of, run_seed
from baiuv.studies.audit import AuditInstance, audit_instances, runs_to_resolve

__all__ = [
    "BASELINE",
    "EXPERIMENT",
    "RUN_COLUMNS",
    "THRESHOLD_KINDS",
    "Remedy",
    "TOPIC",
    "cheapest_resolved",
    "check_ev_remedies_config",
    "ev_claims",
    "ev_instances",
    "instance_cells",
    "recommended",
    "remedies_from_config",
    "remedy_cells",
    "remedy_markdown",
    "run_remedy_shard",
]

#: Key of the random streams.
EXPERIMENT = "ev_remedies"
#: The authors' code's configuration (heuristic threshold, n0 = 2: D51), the reference of
#: the costs.
BASELINE = "heuristic n0=2"
#: Threshold kinds of a remedy.
THRESHOLD_KINDS = ("heuristic", "ev-box", "ev-bob", "ev-heuristic-student")

RUN_COLUMNS = [
    "group",
    "instance",
    "algorithm",
    "remedy",
    "threshold",
    "n0",
    "run",
    "stopping_time",
    "recommendation",
    "best_arm",
    "correct",
    "truncated",
    "count_best",
    "count_rec",
    "lower_bound",
]


@dataclass(frozen=True)
class Remedy:
    """A remedy: threshold kind and initial pulls ``n0``; a stopping level of every run of
    every instance, the trajectories of its ``n0`` (D333: every remedy at the full run
    count)."""

    threshold: str
    n0: int

    def __post_init__(self):
        if self.threshold not in THRESHOLD_KINDS:
            raise ValueError(f"threshold must be one of {THRESHOLD_KINDS}, got {self.threshold!r}")
        if int(self.n0) != self.n0 or self.n0 < 2:
            raise ValueError(f"n0 must be an integer >= 2, got {self.n0!r}")

    @property
    def name(self) -> str:
        """``"<threshold> n0=<n0>"``."""
        return f"{self.threshold} n0={self.n0}"


def remedies_from_config(specs: Sequence[Mapping], *, baseline: bool = True) -> list[Remedy]:
    """Remedies of the ``ev_remedies.remedies`` list (or a part of it, ``baseline=False``:
    the remedies of one n0); the whole list must contain the baseline."""
    out = []
    for j, spec in enumerate(specs):
        try:
            if extra := set(spec) - {"threshold", "n0"}:
                raise ValueError(f"unknown fields {sorted(extra)} (a remedy has threshold, n0)")
            out.append(Remedy(str(spec["threshold"]), int(spec["n0"])))
        except (KeyError, ValueError, TypeError) as exc:
            raise ValueError(f"ev_remedies.remedies[{j}]: {exc}") from None
    names = [r.name for r in out]
    if len(set(names)) != len(names):
        raise ValueError("ev_remedies.remedies: duplicate remedy")
    if baseline and BASELINE not in names:
        raise ValueError(f"ev_remedies.remedies must contain the baseline ({BASELINE})")
    return out


def check_ev_remedies_config(section: Mapping, named: Mapping[str, Mapping], seed: int) -> None:
    """Cross-field checks of the ``ev_remedies`` section (``ValueError`` naming the field):
    EV rules whose trajectory serves every threshold as a stopping level
    (:func:`check_shares_levels`), valid remedies including the baseline, valid
    instances."""
    check_delta(section["delta"])
    for j, a in enumerate(section["algorithms"]):
        try:
            check_shares_levels(a)
        except ValueError as exc:
            raise ValueError(f"ev_remedies.algorithms[{j}]: {exc}") from None
    remedies_from_config(section["remedies"])
    ev_instances(section, named, seed)


def ev_instances(section: Mapping, named: Mapping[str, Mapping], seed: int) -> list[tuple]:
    """``(group, AuditInstance, runs)`` of the ``ev_remedies`` section, in canonical order.

    ``named``: ``{name: runs}`` (group = name); ``random``: Figure 2's random instances
    (``{n_instances, runs_per_instance, K, gap_range, var_range}``, group ``random``, ids
    ``random-<j>``); ``audit_families`` with ``audit_runs``: random instances drawn like the
    audit's (group ``audit``).
    """
    out = []
    for name, runs in dict(section.get("named") or {}).items():
        if name not in named:
            raise ValueError(f"ev_remedies.named: unknown instance {name!r}")
        inst = named[name]
        gi = GaussianInstance(np.asarray(inst["mu"], float), inst["sigma2"], str(name))
        out.append((str(name), AuditInstance(str(name), "named", gi), int(runs)))
    rnd = section.get("random")
    if rnd:
        exp = Experiment(
            "random",
            "random",
            int(rnd.get("runs_per_instance", 1)),
            None,
            int(rnd["n_instances"]),
            int(rnd.get("K", 10)),
            tuple(rnd.get("gap_range", (0.2, 1.0))),
            tuple(rnd.get("var_range", (0.1, 10.0))),
        )
        for i in range(exp.n_instances):
            _, gi = exp.instance_at(i, seed)
            iid = f"random-{i}"
            out.append(("random", AuditInstance(iid, "random", gi), exp.runs))
    fams = section.get("audit_families") or []
    if fams:
        for a in audit_instances({"families": fams}, named, seed):
            out.append(("audit", a, int(section["audit_runs"])))
    if not out:
        raise ValueError("ev_remedies: at least one instance is required")
    return out


@functools.lru_cache(maxsize=8192)
def _lower_bound(mu: tuple, sigma2: tuple, lid: float) -> float:
    return float(characteristic_time(np.array(mu), np.array(sigma2))) * lid


def remedies_by_n0(remedies: Sequence[Remedy]) -> dict[int, list[Remedy]]:
    """The remedies grouped by ``n0``, in the order of ``remedies``: the remedies of one
    group are the stopping levels of one trajectory (:func:`run_remedy_shard`)."""
    out: dict[int, list[Remedy]] = {}
    for r in remedies:
        out.setdefault(int(r.n0), []).append(r)
    return out


def check_shares_levels(algorithm: str) -> None:
    """``ValueError`` unless ``algorithm`` is an EV rule whose trajectory can serve every
    threshold as a stopping level (:attr:`baiuv.registry.Algorithm.shares_levels`)."""
    alg = get_algorithm(algorithm)
    if not alg.plug_in:
        raise ValueError(f"{algorithm!r} is not an EV rule")
    if not alg.shares_levels:
        raise ValueError(
            f"{alg.name} reads the stopping level: its remedies cannot share a trajectory"
        )


def run_remedy_shard(
    instances: Sequence[tuple],
    algorithm: str,
    remedies: Remedy | Sequence[Remedy],
    *,
    seed: int,
    delta: float,
    max_samples: int,
    n_shards: int = 1,
    shard: int = 0,
    evidence: bool = False,
):
    """Simulate one shard of ``algorithm`` with the ``remedies`` of one ``n0`` (a
    :class:`Remedy` or a list of them) on ``instances`` (from :func:`ev_instances`).

    Run ``r`` of an instance is one trajectory (stream ``run_seed(seed, EXPERIMENT,
    instance, algorithm, r)``) whose stopping levels are the thresholds of the remedies
    (D330: one trajectory for every threshold of an n0). No EV rule reads the threshold or
    δ, so each remedy's row equals, bit for bit, that of a run with the remedy alone
    (D306). One row per run and remedy (:data:`RUN_COLUMNS`), runs in order, remedies in
    the order given. With ``evidence``, also the evidence of the truncated rows, from the
    final statistics of their levels
    (:func:`baiuv.studies.ev_truncation.truncation_evidence`): returns ``(rows,
    evidence)``."""
    group = [remedies] if isinstance(remedies, Remedy) else list(remedies)
    if not group or not all(isinstance(r, Remedy) for r in group):
        raise ValueError("remedies must be a Remedy or a non-empty list of them")
    if len({r.n0 for r in group}) != 1:
        raise ValueError(f"remedies of one trajectory share n0, got {[r.name for r in group]}")
    if len({r.threshold for r in group}) != len(group):
        raise ValueError(f"remedies: duplicate threshold in {[r.name for r in group]}")
    check_shares_levels(algorithm)
    alg = get_algorithm(algorithm)
    d = check_delta(delta)
    n0 = int(group[0].n0)
    s = RunSettings(delta=d, threshold=group[0].threshold, n0=n0, max_samples=int(max_samples))
    jobs = [(g, a, r) for g, a, runs in instances for r in range(runs)]
    mine = [jobs[k] for k in shard_runs(len(jobs), n_shards, shard)]
    if mine:
        warm_up(mine[0][1].instance, alg, s, seed=seed)
    # the heuristic last: the kernel's first level, checked on its fastest path, is then
    # one that stops late (the order changes no level's outcome)
    order = sorted(range(len(group)), key=lambda j: group[j].threshold == "heuristic")
    runner = Runner(alg, s, [{"threshold": group[j].threshold} for j in order])
    lid = s.resolved_log_inv_delta
    rows, proof = [], []
    for g, a, r in mine:
        inst = a.instance
        rng = generator_of(run_seed(seed, EXPERIMENT, a.instance_id, alg.name, r))
        taus, recs, counts, truncs, means, variances, states, _ = runner.final_outcomes(
            inst.mu, inst.sigma2, rng
        )
        best = inst.best_arm
        lb = _lower_bound(tuple(inst.mu.tolist()), tuple(inst.sigma2.tolist()), lid)
        for j in range(len(group)):
            k = order.index(j)
            rem, rec = group[j], int(recs[k])
            rows.append(
                {
                    "group": g,
                    "instance": a.instance_id,
                    "algorithm": alg.name,
                    "remedy": rem.name,
                    "threshold": rem.threshold,
                    "n0": n0,
                    "run": int(r),
                    "stopping_time": int(taus[k]),
                    "recommendation": rec,
                    "best_arm": int(best),
                    "correct": bool(rec == best),
                    "truncated": bool(truncs[k]),
                    "count_best": int(counts[k][best]),
                    "count_rec": int(counts[k][rec]),
                    "lower_bound": lb,
                }
            )
        cut = {
            group[j].threshold: (counts[k], means[k], variances[k], states[k])
            for k, j in enumerate(order)
            if truncs[k]
        }
        if evidence and cut:
            from baiuv.studies.ev_truncation import truncation_evidence

            proof += truncation_evidence(
                inst,
                alg.name,
                cut,
                n0=n0,
                delta=d,
                max_samples=int(max_samples),
                keys={"group": g, "instance": a.instance_id, "run": int(r)},
            )
    out = pd.DataFrame(rows, columns=RUN_COLUMNS)
    if not evidence:
        return out
    from baiuv.studies.ev_truncation import EVIDENCE_COLUMNS

    return out, pd.DataFrame(proof, columns=EVIDENCE_COLUMNS)


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


def remedy_cells(
    runs: pd.DataFrame, *, delta: float, level: float = 0.95, truncated_as: str = "error"
) -> pd.DataFrame:
    """Per ``(group, algorithm, remedy)``: runs, errors (a truncated run counting as
    ``truncated_as``, :func:`_errors`), error rate and Wilson interval, ``resolved`` (upper
    bound below ``delta``), truncated runs, whether they decide the cell's verdict, mean
    stopping time, its ratio to the baseline's mean in the same group and algorithm
    (``cost_vs_paper``), and the mean of ``tau / (T* ln(1/delta))`` (``cost_vs_lb``)."""
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
                "mean_tau": float(c["stopping_time"].mean()),
                "cost_vs_lb": float((c["stopping_time"] / c["lower_bound"]).mean()),
            }
        )
    cells = pd.DataFrame(rows)
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
    has at least :func:`~baiuv.studies.audit.runs_to_resolve` runs (enough for a
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
    from baiuv.tables import markdown_table

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
    from baiuv.claims import combine

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
    from baiuv.claims import Claim

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
    from baiuv.claims import DIFFERS, NOT_CHECKABLE, REPRODUCED, Claim

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
    section="ev_remedies",
    check=lambda section, config: check_ev_remedies_config(
        section, instances_of(config), config["seed"]
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
)
