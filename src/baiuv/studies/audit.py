"""A delta-correctness audit of the heuristic stopping threshold.

The paper's experiments stop with the heuristic threshold ``log((1 + log t)/delta)``, which
"doesn't ensure delta-correctness" but "yields an empirical error which is several order
of magnitude lower than delta" (Section ``ssec:experiments``); for the EV-GLR rule, "in our
experiments the empirical proportion of error is lower than delta even when using a
heuristic, asymptotically tight threshold" (Section ``ssec:upper_bound_sample_complexity``).

This module runs every algorithm of the experiments with its paper stopping rule (GLR for
the adapted wrappers and the baselines, EV-GLR for the "EV-" wrappers, eliminations for
FHN) on many instances and initial sample sizes ``n0``, and computes per cell ``(instance,
algorithm, n0)`` the error rate with its Wilson interval. A cell is *flagged* when its
whole interval lies above ``delta``. :func:`explain_flagged` writes what flagged cells have
in common.

Random streams: run ``r`` of algorithm ``A`` on instance ``i`` uses ``run_seed(seed,
"audit", i, A, r)`` for every ``n0`` (common random numbers across ``n0``);
random instance ``j`` of family ``F`` is drawn from ``run_seed(seed, "audit_F",
"instances", 0, j)`` as in :meth:`baiuv.experiments.stopping_times.Experiment.instance_at`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np
import pandas as pd

from baiuv.claims import DIFFERS, NOT_RESOLVED, REPRODUCED, Band, Claim, judge
from baiuv.experiments.spec import (
    Aggregated,
    ExperimentSpec,
    ReportEntry,
    ShardKind,
    ShardPlan,
    figure_files,
    instances_of,
)
from baiuv.experiments.stopping_times import Experiment, wilson_interval
from baiuv.model.characteristic import characteristic_time, complexity_d
from baiuv.model.instance import GaussianInstance
from baiuv.model.validate import check_delta
from baiuv.registry import FAMILIES, RULE_PARAMETERS
from baiuv.simulation.engine import (
    ALGORITHMS,
    OUTCOME_COLUMNS,
    CellRun,
    RunSettings,
    fhn_n0,
    get_algorithm,
    run_cell,
    shard_runs,
)
from baiuv.storage.shards import concat_runs
from baiuv.tables import markdown_table

__all__ = [
    "FEATURES",
    "SHARED_SETTINGS",
    "AuditInstance",
    "aggregate_runs",
    "audit_cells",
    "audit_claims",
    "audit_instances",
    "audit_markdown",
    "audit_n0",
    "audit_settings",
    "audit_summary",
    "check_audit_config",
    "explain_flagged",
    "instance_features",
    "markdown_of",
    "resolution_note",
    "run_audit_shard",
    "runs_to_resolve",
]

#: Run parameters the audit takes from the ``simulation`` section (its own section sets
#: ``delta``, ``threshold`` and ``n0``): the rules' parameters of the registry and
#: ``max_samples``.
SHARED_SETTINGS = (*RULE_PARAMETERS, "max_samples")

#: Instance features reported next to flagged cells (see :func:`instance_features`).
FEATURES = (
    "K",
    "min_gap",
    "var_ratio_best",
    "var_ratio_second",
    "d",
    "T_star",
    "T_star_known",
    "ratio_T",
)


@dataclass(frozen=True)
class AuditInstance:
    """An instance of the audit: identifier (keys the random streams), family, instance."""

    instance_id: str
    family: str
    instance: GaussianInstance

    def __post_init__(self):
        if not isinstance(self.instance, GaussianInstance):
            raise ValueError("instance must be a GaussianInstance")
        if not self.instance_id:
            raise ValueError("instance_id must be a non-empty string")


def instance_features(instance: GaussianInstance) -> dict[str, float]:
    """Features of an instance used to explain flagged cells.

    ``K``; ``min_gap = mu_{a*} - max_{a != a*} mu_a``; ``var_ratio_best =
    sigma^2_{a*} / min_{a != a*} sigma^2_a`` (how much noisier the best arm is than the
    quietest other arm); ``var_ratio_second = sigma^2_{a*} / sigma^2_{b}`` with ``b`` the
    second best arm; ``d = d(mu, sigma^2)`` of Lemma ``lem:complexity_inequalities``;
    ``T_star = T*(mu, sigma^2)``, ``T_star_known = T*_{sigma^2}(mu)`` and their ratio
    ``ratio_T`` (Lemma ``lem:lower_bound_sample_complexity``).
    """
    if not isinstance(instance, GaussianInstance):
        raise ValueError(f"instance must be a GaussianInstance, got {type(instance).__name__}")
    mu, s2 = instance.mu, instance.sigma2
    best = instance.best_arm
    others = np.delete(np.arange(instance.K), best)
    second = others[np.argmax(mu[others])]
    T = characteristic_time(mu, s2)
    Tk = characteristic_time(mu, s2, known_variance=True)
    return {
        "K": int(instance.K),
        "min_gap": float(mu[best] - mu[second]),
        "var_ratio_best": float(s2[best] / s2[others].min()),
        "var_ratio_second": float(s2[best] / s2[second]),
        "d": float(complexity_d(mu, s2)),
        "T_star": float(T),
        "T_star_known": float(Tk),
        "ratio_T": float(T / Tk),
    }


def audit_instances(
    section: Mapping, named: Mapping[str, Mapping], seed: int
) -> list[AuditInstance]:
    """Instances of the ``audit`` config section, in canonical order.

    ``section["named"]``: names of top-level instances (family ``"named"``, id = name);
    ``section["families"]``: list of ``{name, n_instances, K, gap_range, var_range}`` of
    random instances drawn like the paper's (``baiuv.random_instance``), ids ``<name>-<j>``
    (a list, not a mapping, so that ``--configfile`` replaces it instead of merging it).
    """
    out: list[AuditInstance] = []
    for j, name in enumerate(section.get("named", []) or []):
        if name not in named:
            raise ValueError(
                f"audit.named[{j}]: unknown instance {name!r}; allowed: {sorted(named)}"
            )
        inst = named[name]
        out.append(
            AuditInstance(
                str(name),
                "named",
                GaussianInstance(np.asarray(inst["mu"], float), inst["sigma2"], str(name)),
            )
        )
    names = set()
    for k, spec in enumerate(section.get("families", []) or []):
        fam = spec.get("name", "")
        field = f"audit.families[{k}] ({fam})"
        if not fam:
            raise ValueError(f"{field}.name: required")
        if fam in names:
            raise ValueError(f"{field}.name: duplicate family name {fam!r}")
        names.add(fam)
        if "n_instances" not in spec:
            raise ValueError(f"{field}.n_instances: required")
        try:
            exp = Experiment(
                f"audit_{fam}",
                "random",
                1,
                None,
                int(spec["n_instances"]),
                int(spec.get("K", 10)),
                tuple(spec.get("gap_range", (0.2, 1.0))),
                tuple(spec.get("var_range", (0.1, 10.0))),
            )
            for i in range(exp.n_instances):
                _, inst = exp.instance_at(i, seed)
                iid = f"{fam}-{i}"
                out.append(
                    AuditInstance(iid, str(fam), GaussianInstance(inst.mu, inst.sigma2, iid))
                )
        except ValueError as exc:
            raise ValueError(f"{field}: {exc}") from None
    if not out:
        raise ValueError("audit: at least one instance (named or families) is required")
    ids = [a.instance_id for a in out]
    if len(set(ids)) != len(ids):
        raise ValueError("audit: instance ids must be unique (a named instance clashes)")
    return out


def check_audit_config(section: Mapping, named: Mapping[str, Mapping], seed: int = 0) -> None:
    """Cross-field checks of the ``audit`` section (``ValueError`` naming the field)."""
    audit_instances(section, named, seed)
    check_delta(section["delta"])
    for j, a in enumerate(section["algorithms"]):
        if a not in ALGORITHMS:
            raise ValueError(f"audit.algorithms[{j}]: {a!r} not in {list(ALGORITHMS)}")
    if section.get("threshold", "heuristic") not in FAMILIES:
        raise ValueError(f"audit.threshold must be one of {FAMILIES}")
    n0s = list(section["n0"])
    if len(set(n0s)) != len(n0s) or any(int(n) != n or n < 2 for n in n0s):
        raise ValueError(f"audit.n0 must be distinct integers >= 2, got {n0s}")


def audit_n0(algorithm: str, n0_grid: Sequence[int], delta: float, fhn: int | None) -> list:
    """The ``n0`` values of an algorithm's cells: the grid for GLR-based rules; for FHN1/FHN2
    the single initial sample size of their own procedure (``fhn`` or
    :func:`~baiuv.simulation.engine.fhn_n0` of ``delta``; decision D86)."""
    alg = get_algorithm(algorithm)
    if alg.kernel == "fhn":
        return [int(fhn) if fhn is not None else fhn_n0(delta)]
    return [int(n) for n in n0_grid]


#: Columns of :func:`run_audit_shard`.
RUN_COLUMNS = [
    "instance",
    "family",
    "algorithm",
    "n0",
    *OUTCOME_COLUMNS,
]


def audit_settings(
    algorithm: str,
    n0: int,
    *,
    delta: float = 0.01,
    threshold: str = "heuristic",
    settings: Mapping | None = None,
) -> RunSettings:
    """The :class:`RunSettings` of the audit runs of ``algorithm`` with initial size ``n0``
    (for FHN1/FHN2 their own initial sample size ``fhn_n0``); ``settings`` holds the
    fields shared with the ``simulation`` section (:data:`SHARED_SETTINGS`)."""
    alg = get_algorithm(algorithm)
    if int(n0) != n0 or n0 < 2:
        raise ValueError(f"n0 must be an integer >= 2, got {n0!r}")
    extra = {k: v for k, v in dict(settings or {}).items() if k not in ("n0", "fhn_n0")}
    if alg.kernel == "fhn":
        return RunSettings(delta=delta, threshold=threshold, fhn_n0=int(n0), **extra)
    return RunSettings(delta=delta, threshold=threshold, n0=int(n0), **extra)


def run_audit_shard(
    instances: Sequence[AuditInstance],
    algorithm: str,
    n0: int,
    *,
    runs: int,
    seed: int,
    delta: float = 0.01,
    threshold: str = "heuristic",
    settings: Mapping | None = None,
    n_shards: int = 1,
    shard: int = 0,
    progress=None,
) -> pd.DataFrame:
    """Simulate one shard of the audit runs of ``algorithm`` with initial size ``n0``.

    The ``len(instances) * runs`` runs ``(instance j, run r)`` are split into ``n_shards``
    contiguous blocks. ``settings`` holds further :class:`RunSettings` fields (``beta``,
    ``fws_exponent``, ``hedge_delta0``, ``max_samples``). For FHN1/FHN2 ``n0`` is their own
    initial sample size (``RunSettings.fhn_n0``). ``progress(done, total)`` is called after
    each run when given (e.g. ``baiuv.pipeline.logs.Progress``).

    Returns one row per run: ``instance, family, algorithm, n0, run, stopping_time,
    correct, truncated, wall_time``.
    """
    alg = get_algorithm(algorithm)
    if int(runs) != runs or runs < 1:
        raise ValueError(f"runs must be a positive integer, got {runs!r}")
    s = audit_settings(alg.name, n0, delta=delta, threshold=threshold, settings=settings)
    insts = list(instances)
    cells = [
        {"instance": a.instance_id, "family": a.family, "algorithm": alg.name, "n0": int(n0)}
        for a in insts
    ]
    jobs = []
    for k in shard_runs(len(insts) * int(runs), n_shards, shard):
        j, r = divmod(k, int(runs))
        jobs.append(CellRun(insts[j].instance, insts[j].instance_id, r, cells[j]))
    return run_cell(
        alg, s, jobs, seed=seed, experiment="audit", columns=RUN_COLUMNS, progress=progress
    )


def runs_to_resolve(delta: float, level: float = 0.95) -> int:
    """Smallest number of runs ``n`` for which a cell without any error has a Wilson upper
    bound below ``delta``.

    With ``0`` errors the Wilson upper bound is ``z^2/(n + z^2)``, below ``delta`` iff
    ``n > z^2 (1 - delta)/delta`` (381 runs for ``delta = 0.01`` at 95 %).
    """
    d = check_delta(delta)
    if not (0.0 < level < 1.0):
        raise ValueError(f"level must be in (0, 1), got {level!r}")
    z2 = NormalDist().inv_cdf(0.5 + 0.5 * level) ** 2
    n = math.floor(z2 * (1.0 - d) / d) + 1
    while n > 1 and wilson_interval(0, n - 1, level)[1] < d:  # guard rounding
        n -= 1
    while wilson_interval(0, n, level)[1] >= d:
        n += 1
    return n


def resolution_note(runs_per_cell: int, delta: float, level: float = 0.95) -> str:
    """One sentence: can a cell of ``runs_per_cell`` runs resolve ``delta``?"""
    need = runs_to_resolve(delta, level)
    up0 = wilson_interval(0, int(runs_per_cell), level)[1]
    if runs_per_cell >= need:
        return (
            f"Each cell has {runs_per_cell} runs (≥ {need}, the number needed for the "
            f"{level:.0%} Wilson upper bound of a cell without error, {up0:.4g}, to fall below "
            f"δ = {delta:g}): a cell that is not flagged and has no error is resolved below δ."
        )
    return (
        f"**This configuration cannot resolve δ = {delta:g} per cell**: each cell has "
        f"{runs_per_cell} runs, and even without any error its {level:.0%} Wilson upper bound "
        f"is {up0:.3g} > δ; {need} runs per cell are needed (paper config). Flags are "
        "still meaningful (a flagged interval lies entirely above δ)."
    )


def audit_cells(
    runs: pd.DataFrame,
    features: pd.DataFrame,
    *,
    delta: float,
    level: float = 0.95,
) -> pd.DataFrame:
    """Per cell ``(instance, algorithm, n0)``: runs, errors, error rate, Wilson interval,
    ``flagged`` (Wilson lower bound ``> delta``), mean stopping time, truncated runs, the
    algorithm's wrapper and stopping rule, and the instance features (``features`` indexed
    by ``instance``, from :func:`instance_features`)."""
    d = check_delta(delta)
    need = {"instance", "algorithm", "n0", "correct", "stopping_time"}
    if missing := need - set(runs.columns):
        raise ValueError(f"runs is missing columns {sorted(missing)}")
    if len(runs) == 0:
        raise ValueError("runs must not be empty")
    rows = []
    for (iid, alg, n0), g in runs.groupby(["instance", "algorithm", "n0"], sort=False):
        n = len(g)
        err = int((~g["correct"].astype(bool)).sum())
        lo, hi = wilson_interval(err, n, level)
        a = get_algorithm(alg)
        rows.append(
            {
                "instance": iid,
                "family": g["family"].iloc[0] if "family" in g else "",
                "algorithm": alg,
                "wrapper": a.wrapper,
                "stopping": a.stopping,
                "n0": int(n0),
                "runs": n,
                "errors": err,
                "error_rate": err / n,
                "wilson_low": lo,
                "wilson_high": hi,
                "flagged": bool(lo > d),
                "mean_tau": float(g["stopping_time"].mean()),
                "truncated": int(g["truncated"].sum()) if "truncated" in g else 0,
            }
        )
    cells = pd.DataFrame(rows)
    feats = features.set_index("instance") if "instance" in features.columns else features
    missing_inst = set(cells["instance"]) - set(feats.index)
    if missing_inst:
        raise ValueError(f"features has no row for instances {sorted(missing_inst)[:5]}")
    cols = [c for c in FEATURES if c in feats.columns]
    return cells.join(feats[cols], on="instance")


def audit_summary(cells: pd.DataFrame, *, delta: float, level: float = 0.95) -> pd.DataFrame:
    """Per ``(algorithm, n0)``: cells, runs, errors, pooled error rate with its Wilson
    interval, maximum cell error rate, cells with at least one error, flagged cells."""
    check_delta(delta)
    rows = []
    for (alg, n0), g in cells.groupby(["algorithm", "n0"], sort=False):
        runs, err = int(g["runs"].sum()), int(g["errors"].sum())
        lo, hi = wilson_interval(err, runs, level)
        rows.append(
            {
                "algorithm": alg,
                "wrapper": g["wrapper"].iloc[0],
                "stopping": g["stopping"].iloc[0],
                "n0": int(n0),
                "cells": len(g),
                "runs": runs,
                "errors": err,
                "error_rate": err / runs,
                "wilson_low": lo,
                "wilson_high": hi,
                "max_cell_error_rate": float(g["error_rate"].max()),
                "cells_with_errors": int((g["errors"] > 0).sum()),
                "flagged": int(g["flagged"].sum()),
                "pooled_above_delta": bool(lo > delta),
            }
        )
    return pd.DataFrame(rows)


def _auc(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """``P(A > B) + P(A = B)/2`` (Mann-Whitney U / (n_a n_b)) and the two-sided p-value."""
    if a.size == 0 or b.size == 0 or np.all(np.r_[a, b] == np.r_[a, b][0]):
        return 0.5, 1.0
    from scipy.stats import mannwhitneyu  # imported on use

    res = mannwhitneyu(a, b, alternative="two-sided")
    return float(res.statistic) / (a.size * b.size), float(res.pvalue)


def explain_flagged(cells: pd.DataFrame, *, delta: float, level: float = 0.95) -> str:
    """Markdown paragraph: what flagged cells have in common.

    Counts flagged cells by stopping rule, ``n0`` and family, then compares the instance
    features (:data:`FEATURES`) of flagged cells with the unflagged cells *of the same
    (algorithm, n0) pairs* (so that the comparison is not driven by which algorithms are
    flagged): medians and the probability ``AUC = P(feature of a flagged cell > feature of
    an unflagged one)`` (Mann-Whitney), strongest first. With no flagged cell, states how
    many runs back that claim.
    """
    d = check_delta(delta)
    n_cells, n_runs = len(cells), int(cells["runs"].sum())
    flagged = cells[cells["flagged"]]
    rpc = int(cells["runs"].min()) if n_cells else 0
    if flagged.empty:
        errs = int(cells["errors"].sum())
        lo, hi = wilson_interval(errs, max(n_runs, 1), level) if n_runs else (0.0, 1.0)
        return (
            f"No cell is flagged: {n_cells} cells, {n_runs} runs in total ({rpc} to "
            f"{int(cells['runs'].max())} per cell), {errs} errors; pooled error rate "
            f"{errs / max(n_runs, 1):.3g} (Wilson {level:.0%}: [{lo:.3g}, {hi:.3g}]). "
            + resolution_note(rpc, d, level)
            + "\n"
        )
    lines = [
        f"**{len(flagged)} of {n_cells} cells are flagged** (Wilson {level:.0%} interval "
        f"entirely above δ = {d:g}; {n_runs} runs in total)."
    ]
    one_low = wilson_interval(1, rpc, level)[0] if rpc else 0.0
    if one_low > d:
        lines.append(
            f"- With {rpc} runs per cell a single error already puts the Wilson lower bound "
            f"at {one_low:.3g} > δ: a flagged cell here may be one error "
            f"({int((flagged['errors'] == 1).sum())} of the {len(flagged)} flagged cells have "
            "exactly one)."
        )

    def _share(col):
        vc = flagged[col].value_counts()
        tot = cells[col].value_counts()
        return ", ".join(
            f"{k}: {v} of {tot.get(k, 0)} cells" for k, v in vc.sort_values(ascending=False).items()
        )

    lines.append(f"- By stopping rule: {_share('stopping')}.")
    lines.append(f"- By algorithm: {_share('algorithm')}.")
    lines.append(f"- By n0: {_share('n0')}.")
    if "family" in cells:
        lines.append(f"- By instance family: {_share('family')}.")
    pairs = set(zip(flagged["algorithm"], flagged["n0"], strict=True))
    same = cells[[(a, n) in pairs for a, n in zip(cells["algorithm"], cells["n0"], strict=True)]]
    ref = same[~same["flagged"]]
    comp = []
    for f in FEATURES:
        if f not in cells:
            continue
        a = flagged[f].to_numpy(float)
        b = ref[f].to_numpy(float)
        auc, p = _auc(a, b)
        comp.append((abs(auc - 0.5), f, np.median(a), np.median(b) if b.size else math.nan, auc, p))
    comp.sort(reverse=True)
    if ref.empty:
        lines.append(
            "- Every cell of the flagged (algorithm, n0) pairs is flagged: the failure does "
            "not depend on the instance features."
        )
    else:
        n_inst = len(set(flagged["instance"]) | set(ref["instance"]))
        lines.append(
            "- Instance features, flagged vs unflagged cells of the same (algorithm, n0) "
            f"pairs ({len(flagged)} vs {len(ref)} cells from {n_inst} instances), strongest "
            "difference first (AUC = P(flagged value > unflagged value); 0.5 = no difference). "
            "The test treats cells as independent; cells of one instance share its features, "
            "so the p-values overstate the evidence (descriptive only):"
        )
        for _, f, ma, mb, auc, p in comp:
            lines.append(
                f"  - `{f}`: median {ma:.3g} vs {mb:.3g}, AUC {auc:.2f} (Mann-Whitney p = {p:.2g})"
            )
        top = [c for c in comp if c[5] < 0.05]
        if top:
            _, f, ma, mb, auc, _ = top[0]
            direction = "larger" if auc > 0.5 else "smaller"
            lines.append(
                f"- In short: flagged cells mostly use the "
                f"{flagged['stopping'].mode().iloc[0]} stopping rule with n0 = "
                f"{int(flagged['n0'].mode().iloc[0])}; their instances tend to have a "
                f"{direction} `{f}` (descriptive, see above)."
            )
        else:
            lines.append(
                "- No instance feature separates flagged from unflagged cells at the 5% level."
            )
    ev = flagged["stopping"].eq("EV-GLR").mean()
    if ev >= 0.5:
        lines.append(
            "- Hypothesis (decision D50; not measured by the audit, whose tables keep no "
            "per-run trajectory): with few initial samples the plug-in variance of the best "
            "arm can be tiny; if its empirical mean is also low, its EV-GLR statistic against "
            "the empirical best arm is large, the EV rule stops sampling it and stops on a "
            "wrong arm. The stopping-time tables measure the visible part of it: the runs in "
            "which the best arm was never pulled after its n0 initial pulls."
        )
    return "\n".join(lines) + "\n"


def _p(x: float) -> str:
    return "0" if x < 1e-12 else f"{x:.2g}"


def audit_claims(summary: pd.DataFrame, cells: pd.DataFrame, *, delta: float) -> list:
    """Claims of the reproduction report (:class:`baiuv.report.reproduction.Claim` rows).

    1. Section ``ssec:experiments``: with the heuristic threshold the GLR-stopped algorithms
       have an empirical error "several order of magnitude lower than delta" -- per ``n0``,
       reproduced if the pooled Wilson upper bound is below ``delta/100`` and no cell is
       flagged, differs if the pooled lower bound is above it.
    2. Section ``ssec:upper_bound_sample_complexity``: "the empirical proportion of error is
       lower than delta" for the EV-GLR rule with the heuristic threshold -- per ``n0``,
       reproduced if no EV cell is flagged and the pooled upper bound is below ``delta``.
    """
    d = check_delta(delta)
    out = []
    need = runs_to_resolve(d)
    rpc = int(cells["runs"].min()) if len(cells) else 0
    glr_all = summary[summary["stopping"] == "GLR"]
    glr_cells = cells[cells["stopping"] == "GLR"]
    for n0, glr in glr_all.groupby("n0", sort=True):
        runs, err = int(glr["runs"].sum()), int(glr["errors"].sum())
        lo, hi = wilson_interval(err, runs)
        nflag = int(glr["flagged"].sum())
        # the one verdict rule (D174): a flagged cell differs; else the pooled interval
        v = DIFFERS if nflag else judge(err / runs, (lo, hi), Band(hi=d / 100, strict_hi=True))
        reason = {
            REPRODUCED: "",
            DIFFERS: "pooled error rate resolved above δ/100 (but below δ)",
            NOT_RESOLVED: f"too few runs to resolve δ/100 = {d / 100:g}",
        }[v]
        if nflag:
            reason = f"{nflag} GLR cells flagged above δ"
        out.append(
            Claim(
                topic="δ-correctness audit",
                claim=f'"yields an empirical error which is several order of magnitude lower than δ" '
                f"(heuristic threshold, GLR stopping, n0 = {n0}; beyond the paper: over many "
                "instances)",
                where="Sec. ssec:experiments",
                paper=f"pooled 95% Wilson interval below δ/100 = {d / 100:g} (D232)",
                ours=f"{err} errors in {runs} runs over "
                f"{int((glr_cells['n0'] == n0).sum())} cells: {err / runs:.2g} "
                f"[{_p(lo)}, {_p(hi)}]; flagged cells: {nflag}",
                verdict=v,
                reason=reason,
            )
        )
    ev = summary[summary["stopping"] == "EV-GLR"]
    for n0, g in ev.groupby("n0", sort=True):
        runs, err = int(g["runs"].sum()), int(g["errors"].sum())
        lo, hi = wilson_interval(err, runs)
        nflag = int(g["flagged"].sum())
        nc = int(g["cells"].sum())
        v = DIFFERS if nflag else judge(err / runs, (lo, hi), Band(hi=d, strict_hi=True))
        if nflag:
            algs = ", ".join(f"{r.algorithm} ({r.flagged})" for r in g.itertuples() if r.flagged)
            reason = f"{nflag} of {nc} EV cells flagged above δ: {algs}"
        elif v == DIFFERS:
            reason = "no single cell is flagged, but the pooled interval lies above δ"
        elif v == REPRODUCED:
            reason = ""
        else:
            reason = (
                f"no flagged cell, but the pooled interval reaches δ; {need} runs per cell "
                f"resolve δ (here {rpc})"
            )
        out.append(
            Claim(
                topic="δ-correctness audit",
                claim=f"EV-GLR stopping with the heuristic threshold, n0 = {n0}: error below δ",
                where="Sec. ssec:upper_bound_sample_complexity",
                paper=f"< δ = {d:g}",
                ours=f"{err} errors in {runs} runs ({nc} cells): {err / runs:.2g} "
                f"[{_p(lo)}, {_p(hi)}]; max cell rate {g['max_cell_error_rate'].max():.2g}; "
                f"flagged cells: {nflag}",
                verdict=v,
                reason=reason,
            )
        )
    return out


def audit_markdown(
    cells: pd.DataFrame,
    summary: pd.DataFrame,
    *,
    delta: float,
    level: float = 0.95,
    threshold: str = "heuristic",
) -> tuple[str, str]:
    """``(flagged, summary)`` Markdown texts of the audit.

    ``flagged``: every flagged cell with its instance features (``K``, minimum gap,
    variance ratio of the best arm, ``d(mu, sigma^2)``, ``T*``, ``T*/T*_{sigma^2}``) and
    the explanation of :func:`explain_flagged`; ``summary``: per (algorithm, n0) cells,
    runs, errors, pooled rate with its Wilson interval, maximum cell rate and flagged
    count, with the resolution note of :func:`resolution_note`.
    """
    d = check_delta(delta)
    rpc = int(cells["runs"].min())
    f = cells[cells["flagged"]].sort_values(
        ["algorithm", "n0", "error_rate"], ascending=[True, True, False]
    )
    head = (
        f"# δ-correctness audit: flagged cells (δ = {d:g}, {threshold} threshold)\n\n"
        f"A cell (instance, algorithm, n0) is flagged when its {level:.0%} Wilson interval of "
        "the error rate lies entirely above δ. `var_ratio_best` = σ²(best arm) / min over the "
        "other arms of σ²; `d` = d(μ,σ²) of Lemma lem:complexity_inequalities; `T*/T*_σ²` = "
        "T*(μ,σ²)/T*_σ²(μ).\n\n"
    )
    if f.empty:
        table = "_No flagged cell._\n"
    else:
        t = f.assign(
            **{
                "error rate [Wilson]": [
                    f"{r:.3g} [{lo:.3g}, {hi:.3g}]"
                    for r, lo, hi in zip(
                        f["error_rate"], f["wilson_low"], f["wilson_high"], strict=True
                    )
                ],
                "T*/T*_σ²": f["ratio_T"],
                "T*": f["T_star"],
            }
        )
        table = markdown_table(
            t[
                [
                    "instance",
                    "family",
                    "algorithm",
                    "n0",
                    "runs",
                    "errors",
                    "error rate [Wilson]",
                    "K",
                    "min_gap",
                    "var_ratio_best",
                    "d",
                    "T*",
                    "T*/T*_σ²",
                ]
            ]
        )
    flagged_md = (
        head
        + table
        + "\n## What the flagged cells have in common\n\n"
        + explain_flagged(cells, delta=d, level=level)
    )
    s = summary.copy()
    s["pooled rate [Wilson]"] = [
        f"{r:.3g} [{_p(lo)}, {_p(hi)}]"
        for r, lo, hi in zip(s["error_rate"], s["wilson_low"], s["wilson_high"], strict=True)
    ]
    summary_md = (
        f"# δ-correctness audit: summary (δ = {d:g}, {threshold} threshold)\n\n"
        f"{len(cells['instance'].unique())} instances; every algorithm with its paper stopping "
        "rule (GLR: adapted wrappers and baselines, EV-GLR: EV wrappers, elimination: FHN, whose "
        "n0 is its own initial size). "
        + resolution_note(rpc, d, level)
        + f" Runs per cell: {rpc}–{int(cells['runs'].max())}.\n\n"
        + markdown_table(
            s[
                [
                    "algorithm",
                    "stopping",
                    "n0",
                    "cells",
                    "runs",
                    "errors",
                    "pooled rate [Wilson]",
                    "max_cell_error_rate",
                    "cells_with_errors",
                    "flagged",
                ]
            ]
        )
    )
    return flagged_md, summary_md


# The record of the study
# ----------------------------------------------------------------------------------------
#: Path patterns of a shard's runs and timings, and of its log.
SHARD_OUTPUT = {
    "runs": "results/audit/shards/{algorithm}/n0_{n0}/shard_{shard}.parquet",
    "timings": "results/timings/audit/shards/{algorithm}/n0_{n0}/shard_{shard}.parquet",
}
SHARD_LOG = "logs/audit/{algorithm}/n0_{n0}/shard_{shard}.log"


def shard_plan(config: Mapping) -> ShardPlan:
    """The shards of every (algorithm, n0) of ``config["audit"]``, each over every audit
    instance; the run parameters shared with the stopping-time experiments from the
    ``simulation`` section."""
    sec = config["audit"]
    settings = {k: config["simulation"][k] for k in SHARED_SETTINGS}
    insts = instances_of(config)
    cells = [
        {"algorithm": alg, "n0": n0, "shard": s}
        for alg in sec["algorithms"]
        for n0 in audit_n0(alg, sec["n0"], sec["delta"], config["simulation"]["fhn_n0"])
        for s in range(sec["shards"])
    ]

    def params(code, algorithm, n0, shard):
        return {
            "section": sec,
            "instances": insts,
            "algorithm": algorithm,
            "n0": int(n0),
            "settings": settings,
            "seed": config["seed"],
            "n_shards": sec["shards"],
            "shard": int(shard),
            "code": code,
        }

    return ShardPlan(cells, params)


def run_shard_of(p: Mapping, progress) -> tuple[pd.DataFrame, dict, str]:
    """One shard of the audit runs of one (algorithm, n0) over every audit instance, from
    its parameters (:func:`shard_plan`): the runs, what the shard file records, its label."""
    sec = p["section"]
    insts = audit_instances(sec, p["instances"], p["seed"])
    label = f"{p['algorithm']} n0={p['n0']}"
    df = run_audit_shard(
        insts,
        p["algorithm"],
        p["n0"],
        runs=int(sec["runs"]),
        seed=p["seed"],
        delta=float(sec["delta"]),
        threshold=sec["threshold"],
        settings=p["settings"],
        n_shards=p["n_shards"],
        shard=p["shard"],
        progress=progress(f"audit {label} shard {p['shard']}"),
    )
    meta = {"section": sec, "algorithm": p["algorithm"], "n0": p["n0"]}
    meta.update({k: p[k] for k in ("settings", "seed", "n_shards", "shard", "code")})
    return df, meta, f"{label} shard {p['shard']}/{p['n_shards']}"


def _claims(tables: Mapping, config: Mapping) -> list:
    return audit_claims(
        tables["audit_summary"], tables["audit_cells"], delta=config["audit"]["delta"]
    )


def aggregate_runs(frames, metas, params, instances) -> Aggregated:
    """The shards' runs, their cells with the features of ``instances`` and the summary
    (the record's ``aggregate`` step)."""
    runs = concat_runs(
        frames,
        ["instance", "algorithm", "n0", "run"],
        sort_by=["algorithm", "n0", "instance", "run"],
        what="audit shards",
    )
    feats = instances.drop(columns=["mu", "sigma2", "family"])
    cells = audit_cells(runs, feats, delta=params.delta, level=params.level)
    summary = audit_summary(cells, delta=params.delta, level=params.level)
    flagged = int(cells["flagged"].sum())
    return Aggregated(
        tables={"runs": runs, "cells": cells, "summary": summary},
        meta={"delta": params.delta, "level": params.level, "code": params.code},
        message=f"{len(runs)} runs, {len(cells)} cells, {flagged} flagged",
    )


def markdown_of(tables, params) -> dict[str, str]:
    """The flagged cells' and the summary's tables (the record's ``table`` step)."""
    flagged, summary = audit_markdown(
        tables["cells"],
        tables["summary"],
        delta=params.delta,
        level=params.level,
        threshold=params.threshold,
    )
    return {"flagged": flagged, "summary": summary}


SPEC = ExperimentSpec(
    name="audit",
    order=70,
    section="audit",
    check=lambda section, config: check_audit_config(section, instances_of(config), config["seed"]),
    shard_kinds=(
        ShardKind(
            name="audit",
            run=run_shard_of,
            output=SHARD_OUTPUT,
            log=SHARD_LOG,
            plan=shard_plan,
            modules=("baiuv.studies.audit",),
        ),
    ),
    targets=lambda config: [
        *figure_files("audit"),
        "results/tables/audit_flagged.md",
        "results/tables/audit_summary.md",
    ],
    report_inputs=lambda config: {
        "audit_summary": "results/audit/summary.parquet",
        "audit_cells": "results/audit/cells.parquet",
    },
    claims=_claims,
    beyond_paper=True,
    rules="audit.smk",
    steps={
        "aggregate": "baiuv.studies.audit:aggregate_runs",
        "figure": "baiuv.plotting.asymptotic:audit_figure_of",
        "table": "baiuv.studies.audit:markdown_of",
    },
    category="Beyond the paper, δ-correctness audit",
    entries=(
        ReportEntry(
            key="audit",
            path="results/figures/audit.png",
            shows="pooled error rate of every algorithm per initial size n0",
        ),
        ReportEntry(
            key="audit_summary",
            path="results/tables/audit_summary.html",
            shows="error rates per algorithm and n0, flagged cells",
            markdown="results/tables/audit_summary.md",
            caption="audit_summary.rst",
        ),
        ReportEntry(
            key="audit_flagged",
            path="results/tables/audit_flagged.html",
            shows="cells whose error rate is above δ, and what they have in common",
            markdown="results/tables/audit_flagged.md",
            caption="audit_flagged.rst",
        ),
    ),
)
