"""Reproduction report: every quantitative claim of the paper checked against results.

The report is generated only from the pipeline's result files (and functions of this
package evaluated on the paper's own closed forms); nothing is typed in by hand except the
paper's stated values, each quoted next to where the paper states it.

Each claim is a :class:`Claim` row: what the paper says, where, the paper's value, our
value with its uncertainty, a verdict (``reproduced`` / ``differs`` / ``not checkable``) and
the reason when it is not ``reproduced``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd

from baiuv.model.characteristic import characteristic_time
from baiuv.registry import ALGORITHMS, THRESHOLD_FAMILIES
from baiuv.report.paper_refs import cite, notation
from baiuv.report.tables import markdown_table

REPRODUCED = "reproduced"
DIFFERS = "differs"
NOT_CHECKABLE = "not checkable"
VERDICTS = (REPRODUCED, DIFFERS, NOT_CHECKABLE)


@dataclass
class Claim:
    """One checked claim of the paper."""

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


def _v(ok: bool) -> str:
    return REPRODUCED if ok else DIFFERS


# ----------------------------------------------------------------------------------------
# Characteristic times (Section ssec:lower_bounds, Appendix app:characteristic_times)
# ----------------------------------------------------------------------------------------
PAPER_RATIO = {"standard": 1.015, "easy": 1.384}


def characteristic_claims(
    instances: pd.DataFrame, gap_sweep: pd.DataFrame, var_sweep: pd.DataFrame
) -> list[Claim]:
    out = []
    for r in instances.itertuples(index=False):
        if r.instance not in PAPER_RATIO:
            continue
        paper = PAPER_RATIO[r.instance]
        ok = round(r.ratio, 3) == paper
        out.append(
            Claim(
                "characteristic times",
                f"T*(μ,σ²)/T*_σ²(μ) on the {r.instance} instance",
                "Sec. Experiments (ssec:experiments)",
                f"≈{paper}",
                f"{r.ratio:.6f} (T*={r.T_unknown:.4f}, T*_σ²={r.T_known:.4f}; exact to 1e-12)",
                _v(ok),
                ""
                if ok
                else "our value is the equalised max–min of Theorem thm:equivalent_optimization_problem, "
                "confirmed by nested bisection, Brent+Newton and a brute-force max–min (decision D1); "
                "the paper's value does not round from it",
            )
        )
    sweep = pd.concat([gap_sweep, var_sweep], ignore_index=True)
    lower = int((sweep["ratio"] <= 1.0).sum())
    upper = int((sweep["ratio"] > sweep["bound"] * (1 + 1e-9)).sum())
    out.append(
        Claim(
            "characteristic times",
            "1 < T*/T*_σ² ≤ d/ln(1+d) over the sweeps",
            "Lemma lem:complexity_inequalities, Fig. fig:evolution_ratios_characteristic_times",
            "holds for every instance",
            f"{len(sweep)} instances; violations: {lower} (lower), {upper} (upper); "
            f"ratio range [{sweep['ratio'].min():.6g}, {sweep['ratio'].max():.6g}]",
            _v(lower == 0 and upper == 0),
            "" if lower == upper == 0 else "inequality violated on some grid point",
        )
    )
    g = gap_sweep.sort_values("gap")
    grows = bool(np.all(np.diff(g["ratio"].to_numpy()[g["gap"].to_numpy() > 1.0]) > 0))
    out.append(
        Claim(
            "characteristic times",
            "the ratio grows without bound as the gap grows",
            "Lemma lem:ratio_characteristic_time_large",
            "→ ∞",
            f"increasing for Δ > 1: {grows}; ratio {g['ratio'].iloc[-1]:.4g} at Δ = {g['gap'].iloc[-1]:g}",
            _v(grows and g["ratio"].iloc[-1] > 10),
            "" if grows else "not monotone on the grid",
        )
    )
    v = var_sweep.sort_values("r")
    slack_small_r = float(v["bound"].iloc[0] / v["ratio"].iloc[0])
    slack_large_r = float(v["bound"].iloc[-1] / v["ratio"].iloc[-1])
    out.append(
        Claim(
            "characteristic times",
            "the bound d/ln(1+d) is loose when the best arm's variance is much larger (r ≪ 1)",
            "App. app:sss_exp_characteristic_times",
            "loose for small r, tight otherwise",
            f"bound/ratio = {slack_small_r:.3g} at r = {v['r'].iloc[0]:g}, "
            f"{slack_large_r:.4g} at r = {v['r'].iloc[-1]:g}",
            _v(slack_small_r > 2 and slack_large_r < 1.1),
            "" if slack_small_r > 2 and slack_large_r < 1.1 else "slack pattern differs",
        )
    )
    # closed form of the equal-variance case (proof of Lemma lem:ratio_characteristic_time_large)
    errs = []
    for K in (2, 5, 10):
        for gap in (0.1, 1.0, 10.0):
            mu = np.r_[0.0, -gap * np.ones(K - 1)]
            t = characteristic_time(mu, np.ones(K), known_variance=True)
            errs.append(abs(t * gap**2 / 2 / (1 + math.sqrt(K - 1)) ** 2 - 1))
    out.append(
        Claim(
            "characteristic times",
            "equal variances: T*_σ²(μ)·Δ²/2 = (1+√(K−1))²",
            "proof of Lemma lem:ratio_characteristic_time_large",
            "exact",
            f"max relative error {max(errs):.1e} over K ∈ {{2,5,10}}, Δ ∈ {{0.1,1,10}}",
            _v(max(errs) < 1e-9),
            "" if max(errs) < 1e-9 else "closed form not matched",
        )
    )
    return out


# ----------------------------------------------------------------------------------------
# Thresholds (Section sec:calibration_stopping_rules, Appendix app:thresholds)
# ----------------------------------------------------------------------------------------
PAPER_BOX_INITIAL = {0.1: 16, 0.001: 20}
PAPER_COST = {"kl": 400, "box": 600, "student": 800}
#: "BoB ≈ KL" in slope: |slope(BoB) - slope(KL)| <= SLOPE_TOL * slope(KL) (decision D170).
SLOPE_TOL = 0.25
#: "Box ≈ BoB" at large t: BoB/Box in [1 - BOX_BOB_TOL, 1 + BOX_BOB_TOL] (decision D170).
BOX_BOB_TOL = 0.10
#: Readable names of the BoB backends (the ``bob_backend`` column of the cost table).
BACKEND_LABELS = {
    "exact": "exact global solver",
    "cyipopt": "Pyomo + Ipopt (cyipopt)",
    "ipopt": "Pyomo + Ipopt (executable)",
}


def backend_label(backend: str) -> str:
    """Human-readable name of a concrete BoB backend (``exact``, ``cyipopt``, ``ipopt``)."""
    if backend not in BACKEND_LABELS:
        raise ValueError(f"backend must be one of {tuple(BACKEND_LABELS)}, got {backend!r}")
    return BACKEND_LABELS[backend]


def _mean_curve(curves: pd.DataFrame) -> pd.DataFrame:
    return curves.groupby(["family", "x"], as_index=False)["value"].mean()


def slopes_in_log_inv_delta(curves_delta: pd.DataFrame, last: int = 5) -> dict[str, float]:
    """Slope of each family's mean threshold against ln(1/δ) over the ``last`` grid points
    (the asymptotic regime of Fig. fig:stopping_thresholds_evolutions_glrt(a))."""
    m = _mean_curve(curves_delta)
    out = {}
    for fam, g in m.groupby("family"):
        g = g[np.isfinite(g["value"])].sort_values("x").tail(last)
        if len(g) >= 2:
            out[fam] = float(np.polyfit(g["x"], g["value"], 1)[0])
    return out


def _near(a: float, b: float, tol: float) -> bool:
    """``a`` within ``tol`` (relative to ``|b|``) of ``b``, on both sides."""
    return abs(a - b) <= tol * abs(b)


def _slope_claims(curves_delta: pd.DataFrame, bob_slopes: pd.DataFrame | None) -> list[Claim]:
    sl = slopes_in_log_inv_delta(curves_delta)
    if not {"kl", "box", "student", "bob"} <= sl.keys():
        return []
    xmax = float(curves_delta["x"].max())
    t_fixed = int(curves_delta["t"].iloc[0])
    fmt = ", ".join(f"{k} {sl[k]:.3g}" for k in ("kl", "bob", "box", "student"))
    parts = {
        "KL < Box": sl["kl"] < sl["box"],
        "KL < Student": sl["kl"] < sl["student"],
        f"BoB ≈ KL (±{SLOPE_TOL:.0%})": _near(sl["bob"], sl["kl"], SLOPE_TOL),
    }
    failed = [k for k, ok in parts.items() if not ok]
    reason = ""
    if failed:
        reason = "fails: " + "; ".join(failed) + ". "
        if f"BoB ≈ KL (±{SLOPE_TOL:.0%})" in failed and not failed[:-1]:
            reason += (
                "On this range BoB follows the slope of its Box part (BoB ≤ min(Box(δ/2), "
                "KL(δ/2)) and Box(δ/2) is the smaller one up to large ln(1/δ))"
            )
            join = _join_text(bob_slopes)
            reason += f"; {join}" if join else ""
            reason += " (decision D171)"
        else:
            reason += "the slope ordering of the figure is not that of the paper"
    return [
        Claim(
            "thresholds",
            f"slopes in ln(1/δ) at t = {t_fixed}: KL best, Box and Student worse, "
            "BoB with KL's dependency",
            "Fig. fig:stopping_thresholds_evolutions_glrt(a), Sec. ssec:simulations_stopping_thresholds",
            "KL < Box, Student; BoB ≈ KL",
            f"slopes fitted over the 5 largest ln(1/δ) ≤ {xmax:g}: {fmt}; checks: "
            + ", ".join(f"{k} {'yes' if ok else 'no'}" for k, ok in parts.items()),
            _v(not failed),
            reason,
        )
    ]


def _join_text(bob_slopes: pd.DataFrame | None) -> str:
    """Where BoB's slope joins KL's, from the table of :func:`baiuv.experiments.bob_slope.
    bob_slope_summary` (empty string without it)."""
    if bob_slopes is None or bob_slopes.empty:
        return ""
    parts = []
    for r in bob_slopes.itertuples(index=False):
        j = r.join_log_inv_delta
        parts.append(
            f"t = {int(r.t)}: from ln(1/δ) ≈ {j:.0f}" if np.isfinite(j) else f"t = {int(r.t)}: not"
        )
    return "BoB's slope joins KL's (bob-slope study) " + ", ".join(parts)


def bob_slope_claim(summary: pd.DataFrame, *, tol: float) -> Claim:
    """The paper's reading of Fig. 1 (App. app:ss_asymptotically_tight_thresholds): BoB ≤
    min(Box(δ/2), KL(δ/2)), hence BoB inherits KL's ln(1/δ) dependency. Checked on the
    wide-range study: per t, BoB never above the bound, and BoB's slope over the largest
    ln(1/δ) within ``tol`` of KL's there."""
    above = int(summary["points_above_bound"].sum())
    npts = int(summary["points"].sum())
    tail_ok = [bool(_near(r.bob_tail_slope, r.kl_tail_slope, tol)) for r in summary.itertuples()]
    ours = "; ".join(
        f"t = {int(r.t)}: slope over ln(1/δ) ∈ [{r.tail_from:g}, {r.tail_to:g}] BoB "
        f"{r.bob_tail_slope:.3g}, KL {r.kl_tail_slope:.3g}, Box {r.box_tail_slope:.3g}; "
        + (
            f"joins KL (±{tol:.0%}) from ln(1/δ) ≈ {r.join_log_inv_delta:.0f}"
            if np.isfinite(r.join_log_inv_delta)
            else "does not join KL on the grid"
        )
        for r in summary.itertuples()
    )
    ours += f"; BoB > min(Box(δ/2), KL(δ/2)) at {above} of {npts} points"
    ok = above == 0 and all(tail_ok)
    reasons = []
    if above:
        reasons.append(f"BoB exceeds min(Box(δ/2), KL(δ/2)) at {above} points")
    bad = [int(r.t) for r, k in zip(summary.itertuples(), tail_ok, strict=True) if not k]
    if bad:
        reasons.append(
            "BoB's slope is not KL's at the largest ln(1/δ) for t = "
            + ", ".join(map(str, bad))
            + " (the Box part of BoB is still the smaller one there, decision D171)"
        )
    return Claim(
        "thresholds",
        "BoB inherits KL's ln(1/δ) dependency (BoB ≤ min(Box(δ/2), KL(δ/2)))",
        "App. app:ss_asymptotically_tight_thresholds, Fig. fig:stopping_thresholds_evolutions_glrt(a)",
        "BoB ≤ min(Box(δ/2), KL(δ/2)); slope → KL's",
        ours,
        _v(ok),
        "; ".join(reasons),
    )


def threshold_claims(
    curves_delta: pd.DataFrame,
    curves_time: pd.DataFrame,
    initial: pd.DataFrame,
    *,
    bob_slopes: pd.DataFrame | None = None,
    bob_slope_tol: float = SLOPE_TOL,
) -> list[Claim]:
    """Claims of the threshold section. ``bob_slopes``: summary of the wide-range BoB slope
    study (:func:`baiuv.experiments.bob_slope.bob_slope_summary`), when computed."""
    out = _slope_claims(curves_delta, bob_slopes)
    if bob_slopes is not None and not bob_slopes.empty:
        out.append(bob_slope_claim(bob_slopes, tol=bob_slope_tol))
    mt = _mean_curve(curves_time)
    tmax = mt["x"].max()
    at = mt[mt["x"] == tmax].set_index("family")["value"]
    if {"kl", "box", "bob", "student"} <= set(at.index):
        parts = {
            "Student > KL": at["student"] > at["kl"],
            "KL > Box": at["kl"] > at["box"],
            f"BoB/Box = {at['bob'] / at['box']:.3f} ∈ [{1 - BOX_BOB_TOL:g}, {1 + BOX_BOB_TOL:g}]": (
                _near(at["bob"], at["box"], BOX_BOB_TOL)
            ),
        }
        failed = [k for k, ok in parts.items() if not ok]
        out.append(
            Claim(
                "thresholds",
                "at δ = 0.01 and large t: KL above Box (large constant), Student worst in t, "
                "BoB close to Box",
                "Fig. fig:stopping_thresholds_evolutions_glrt(b)",
                "Student > KL > Box ≈ BoB",
                f"at t = {tmax:g}: "
                + ", ".join(f"{k} {at[k]:.4g}" for k in ("student", "kl", "box", "bob"))
                + "; checks: "
                + ", ".join(f"{k} {'yes' if ok else 'no'}" for k, ok in parts.items()),
                _v(not failed),
                "" if not failed else "fails: " + "; ".join(failed) + " (decision D170)",
            )
        )
    res = []
    for g_name, ev_name in threshold_pairs():
        above = total = 0
        for curves in (curves_delta, curves_time):  # x means ln(1/δ) in one, t in the other
            m = _mean_curve(curves)
            a = m[m.family == g_name].set_index("x")["value"]
            b = m[m.family == ev_name].set_index("x")["value"]
            for x in a.index.intersection(b.index):
                if np.isfinite(a[x]) and np.isfinite(b[x]):
                    total += 1
                    above += int(b[x] >= a[x] * (1 - 1e-12))
        if total:
            res.append((ev_name, above, total))
    if res:
        ok = all(k == n for _, k, n in res)
        out.append(
            Claim(
                "thresholds",
                "EV-GLR thresholds lie above their GLR counterparts",
                "App. app:sss_exp_thresholds, Fig. fig:stopping_thresholds_evolutions_glrt_evglrt",
                "always above",
                "; ".join(f"{e}: {k}/{n} grid points above" for e, k, n in res),
                _v(ok),
                ""
                if ok
                else "below at some grid points: "
                + ", ".join(f"{e} ({n - k})" for e, k, n in res if k < n),
            )
        )
    box = initial[initial.family == "box"].set_index("delta")
    for d, paper in PAPER_BOX_INITIAL.items():
        match = [x for x in box.index if math.isclose(x, d)]
        if not match:
            continue
        n = int(box.loc[match[0], "first_finite_count"])
        out.append(
            Claim(
                "thresholds",
                f"Box initial time at δ = {d:g} (samples per arm)",
                "Sec. ssec:simple_ideas, after eq. def_initial_time_box_thresholds",
                f"{paper}",
                f"{n}",
                _v(n == paper),
                ""
                if n == paper
                else "we evaluate the Lemma's condition at δ as stated; the paper's 20 is the "
                "count at δ/3 (the KL theorem's split), see decision D21",
            )
        )
    m = initial[initial.family == "kl"]
    if len(m) and "monotonicity_count" in m.columns:
        # "satisfied after 2 samples": the first per-arm count meeting the strict condition is 3
        after = {float(r.delta): int(r.monotonicity_count) - 1 for r in m.itertuples()}
        ok = all(v == 2 for v in after.values())
        out.append(
            Claim(
                "thresholds",
                "KL monotonicity condition (eq. def_initial_time_monotonicity) satisfied after "
                "2 samples per arm",
                "Sec. ssec:beyond_box",
                "2",
                "satisfied after "
                + ", ".join(f"{v} (δ = {d:g})" for d, v in after.items())
                + " samples; the KL family's whole initial count, dominated by its Box "
                "condition at δ/3 (D16, D21): "
                + ", ".join(f"{int(r.statement_count)} (δ = {r.delta:g})" for r in m.itertuples()),
                _v(ok),
                ""
                if ok
                else "t^m as written in eq. def_initial_time_monotonicity needs more samples",
            )
        )
    # Timings are machine-dependent: the report (committed, compared byte for byte) names
    # where they are, without a number (decision D113).
    out.append(
        Claim(
            "thresholds",
            "cost of one BoB evaluation / one KL, Box, Student evaluation",
            "Sec. ssec:simulations_stopping_thresholds",
            " / ".join(f"≈{PAPER_COST[f]}" for f in ("kl", "box", "student")),
            "machine-dependent: results/timings/threshold_costs.md (names the machine)",
            NOT_CHECKABLE,
            "timings depend on the machine, the language (Julia/JuMP in the paper) and the "
            "solver interface; the exact BoB solver removes the gap (benchmarks/bench_bob.py)",
        )
    )
    return out


def ipopt_claim(agreement: pd.DataFrame) -> Claim:
    """The paper solves the BoB program with Ipopt, calling it a concave maximisation under
    convex constraints (App. app:ss_Kinf_thresholds): Ipopt's answer is then the optimum.
    Checked on the figure grids against the exact global solver (decision D30)."""
    from baiuv.experiments.thresholds import agreement_summary

    s = agreement_summary(agreement)
    n = int(s["programs"].sum())
    fail = int(s["failures"].sum())
    loc = int(s["local_maxima"].sum())
    worst = float(s["max_abs_rel_diff"].max())
    backend = backend_label(str(s["backend"].iloc[0]))
    ok = fail == 0 and loc == 0
    reasons = []
    if loc:
        reasons.append(
            f"Ipopt stopped at a local maximum on {loc} programs: the BoB program is not "
            "convex (x·y ≤ C is not a convex constraint, decision D30)"
        )
    if fail:
        reasons.append(f"Ipopt failed on {fail} programs")
    return Claim(
        "thresholds",
        "Ipopt solves the BoB and EV-BoB programs (concave objective, convex constraints)",
        "App. app:ss_Kinf_thresholds, Sec. ssec:simulations_stopping_thresholds",
        "Ipopt's answer is the optimum",
        f"{n} programs of the figure grids by {backend}: max |exact − Ipopt|/exact "
        f"{worst:.2g}; local maxima caught {loc}; failures {fail}",
        _v(ok),
        "; ".join(reasons),
    )


# ----------------------------------------------------------------------------------------
# Stopping-time experiments (Section ssec:experiments, Fig. fig:random_instances_heuristic_threshold)
# ----------------------------------------------------------------------------------------


def wrapped_algorithms() -> list[str]:
    """The paper's wrapped algorithms (adapted and EV wrappers), in registry order."""
    return [a.name for a in ALGORITHMS.values() if a.wrapped]


def threshold_pairs() -> list[tuple[str, str]]:
    """``(GLR family, EV family)`` of the registry sharing a base family
    (``("box", "ev-box")``, ...), in registry order."""
    fams = THRESHOLD_FAMILIES.values()
    glr = {f.base: f.name for f in fams if f.rules == ("GLR",)}
    return [(glr[f.base], f.name) for f in fams if f.rules == ("EV-GLR",) and f.base in glr]


def _is_ev(name) -> bool:
    """An algorithm of the registry with the EV wrapper (unregistered names: by the
    ``EV-`` prefix)."""
    alg = ALGORITHMS.get(str(name))
    return alg.wrapper == "EV" if alg is not None else str(name).startswith("EV-")


def wrapper_pairs() -> list[tuple[str, str]]:
    """``(adapted, EV)`` names of each family of the registry that has both wrappers
    (``("TaS", "EV-TaS")``, ...), in registry order."""
    ev = {a.family: a.name for a in ALGORITHMS.values() if a.wrapper == "EV"}
    return [
        (a.name, ev[a.family])
        for a in ALGORITHMS.values()
        if a.wrapper == "adapted" and a.family in ev
    ]


#: "on par with fixed": mean τ / mean τ(fixed) in [1/(1+tol), 1+tol] (decisions D5, D170).
ON_PAR_TOLERANCE = 0.25
#: "similar"/"comparable": mean τ(EV-X) / mean τ(X) in [1 - tol, 1 + tol] (decision D5).
COMPARABLE_TOLERANCE = 0.2


def _on_par_bounds(tol: float = ON_PAR_TOLERANCE) -> tuple[float, float]:
    return 1.0 / (1.0 + tol), 1.0 + tol


def _err_of(errors: pd.DataFrame, exp: str, alg: str) -> float:
    e = errors[(errors["experiment"] == exp) & (errors["algorithm"] == alg)]
    return float(e["error_rate"].iloc[0]) if len(e) else math.nan


def _ev_cause(errors: pd.DataFrame, exp: str, algs: Iterable[str], n0: int | None) -> str:
    """Measured mechanism behind EV rules stopping early: the EV-GLR statistic (plug-in
    variances) has complexity T*_σ² ≤ T* and, with n0 = 2, starves the best arm (D50)."""
    errs = ", ".join(f"{a} {_err_of(errors, exp, a):.2g}" for a in algs)
    text = (
        "EV-GLR stopping plugs in the empirical variances (complexity T*_σ² ≤ T*, Theorem "
        f"thm:impossibility_result): error rates here {errs}"
    )
    if n0 is not None and n0 < 6:
        text += f"; with n0 = {n0} a tiny plug-in variance starves an arm (D50)"
    return text


def experiment_claims(
    errors: pd.DataFrame, times: pd.DataFrame, delta: float, *, n0: int | None = None
) -> list[Claim]:
    """Claims of Section ssec:experiments. ``n0``: initial pulls per arm of the run (names
    decision D50 as the cause of EV errors when below 6, the n0 of the EVTCI theorem)."""
    out = [_error_claim(errors, delta, n0)]
    lo_par, hi_par = _on_par_bounds()
    t = times.set_index(["experiment", "algorithm"])
    for exp in times["experiment"].unique():
        sub = t.loc[exp]
        algs = [a for a in wrapped_algorithms() if a in sub.index]
        if "uniform" in sub.index:
            beat = [
                a
                for a in algs
                if sub.loc[a, "mean"] + 2 * sub.loc[a, "se"] < sub.loc["uniform", "mean"]
            ]
            miss = sorted(set(algs) - set(beat))
            out.append(
                Claim(
                    "experiments",
                    f"wrapped algorithms beat uniform sampling ({exp})",
                    "Sec. ssec:experiments, Fig. fig:random_instances_heuristic_threshold",
                    "all wrapped < uniform",
                    f"{len(beat)}/{len(algs)} below uniform by > 2 s.e. "
                    f"(uniform {sub.loc['uniform', 'mean']:.1f})",
                    _v(not miss),
                    ""
                    if not miss
                    else "not below uniform by 2 s.e. (D5): "
                    + ", ".join(
                        f"{a} {sub.loc[a, 'mean']:.1f} ± {sub.loc[a, 'se']:.1f}" for a in miss
                    ),
                )
            )
        if "fixed" in sub.index:
            rel = {a: sub.loc[a, "mean"] / sub.loc["fixed", "mean"] for a in algs}
            fast = [a for a, r in rel.items() if r < lo_par]
            slow = [a for a, r in rel.items() if r > hi_par]
            reasons = []
            if fast:
                ev = [a for a in fast if _is_ev(a)]
                reasons.append("faster than fixed: " + ", ".join(fast))
                if ev:
                    reasons.append(_ev_cause(errors, exp, ev, n0))
                if len(ev) < len(fast):
                    reasons.append(
                        "adapted rules faster than fixed: fixed tracks w*(μ,σ²) of the true "
                        "instance and stops with the same heuristic GLR rule, so it is not a "
                        "lower bound on their stopping time"
                    )
            if slow:
                reasons.append(
                    "slower than fixed: "
                    + ", ".join(slow)
                    + (" (DKM: its AdaHedge learner and bonus, D43)" if "DKM" in slow else "")
                )
            out.append(
                Claim(
                    "experiments",
                    f"wrapped algorithms on par with the 'fixed' oracle ({exp})",
                    "Sec. ssec:experiments",
                    f"≈ fixed (ratio in [{lo_par:.2f}, {hi_par:.2f}], D5)",
                    "mean τ / mean τ(fixed): " + ", ".join(f"{a} {r:.2f}" for a, r in rel.items()),
                    _v(not fast and not slow),
                    "; ".join(reasons),
                )
            )
        pairs = [(a, e) for a, e in wrapper_pairs() if a in sub.index and e in sub.index]
        if pairs:
            rel = {(a, e): sub.loc[e, "mean"] / sub.loc[a, "mean"] for a, e in pairs}
            text = ", ".join(f"{e}/{a} {r:.3f}" for (a, e), r in rel.items())
            if exp == "easy":
                out.append(_easy_claim(sub, rel, text))
            else:
                lo, hi = 1 - COMPARABLE_TOLERANCE, 1 + COMPARABLE_TOLERANCE
                bad = {p: r for p, r in rel.items() if not lo <= r <= hi}
                reason = ""
                if bad:
                    reason = "outside the band: " + ", ".join(
                        f"{e}/{a} {r:.3f}" for (a, e), r in bad.items()
                    )
                    early = [e for (_, e), r in bad.items() if r < lo]
                    if early:
                        reason += "; " + _ev_cause(errors, exp, early, n0)
                    late = [e for (_, e), r in bad.items() if r > hi]
                    if late:
                        reason += "; slower EV rules: " + ", ".join(late)
                out.append(
                    Claim(
                        "experiments",
                        f"EV and adapted wrappers comparable ({exp})",
                        "Sec. ssec:experiments",
                        f"similar (EV/adapted in [{lo:g}, {hi:g}], D5)",
                        text,
                        _v(not bad),
                        reason,
                    )
                )
        if "FHN2" in sub.index and exp == "easy" and algs:
            worst = max(sub.loc[a, "mean"] for a in algs)
            fhn = sub.loc["FHN2", "mean"]
            ok = fhn > worst
            out.append(
                Claim(
                    "experiments",
                    "FHN2 wastes samples on the easy instance",
                    "Sec. ssec:experiments",
                    "FHN2 ≫ wrapped algorithms",
                    f"FHN2 {fhn:.1f} vs worst wrapped {worst:.1f}",
                    _v(ok),
                    ""
                    if ok
                    else "FHN2 not above every wrapped algorithm: its initial phase of "
                    "max(2, ⌈10 ln(1/δ)⌉) samples per arm (D45) is shorter than their runs",
                )
            )
        if "lower_bound" in sub.columns:
            out.append(_lower_bound_claim(sub, exp, errors, n0))
    return out


def _easy_claim(sub: pd.DataFrame, rel: dict[tuple[str, str], float], text: str) -> Claim:
    """ "Slightly better on the easy instance": every EV/adapted ratio below 1 (D5); a pair
    above 1 is reported with whether the difference is resolved (2 s.e. of the ratio).
    ``rel``: ratio of each ``(adapted, EV)`` pair (:func:`wrapper_pairs`)."""
    worse = {p: r for p, r in rel.items() if r >= 1}
    reason = ""
    if worse:
        items = []
        for (a, e), r in worse.items():
            m1, s1 = sub.loc[e, "mean"], sub.loc[e, "se"]
            m0, s0 = sub.loc[a, "mean"], sub.loc[a, "se"]
            se = r * math.hypot(s1 / m1, s0 / m0)
            resolved = r - 2 * se > 1
            items.append(
                f"{e}/{a} {r:.3f} ± {se:.3f} "
                + ("(significantly slower)" if resolved else "(within 2 s.e. of 1: not resolved)")
            )
        reason = "EV not faster: " + "; ".join(items)
    return Claim(
        "experiments",
        "EV wrappers slightly better than adapted ones on the easy instance",
        "Sec. ssec:experiments",
        "EV < adapted (every ratio < 1, D5)",
        text,
        _v(not worse),
        reason,
    )


def _lower_bound_claim(sub: pd.DataFrame, exp: str, errors: pd.DataFrame, n0) -> Claim:
    """Fig. 2 draws T*(μ,σ²)·log(1/δ) under the boxes (Lemma lem:lower_bound_sample_complexity
    for δ-correct algorithms): an algorithm is below it when mean + 2 s.e. < bound."""
    below = [
        a
        for a in sub.index
        if sub.loc[a, "mean"] + 2 * sub.loc[a, "se"] < sub.loc[a, "lower_bound"]
    ]
    reason = ""
    if below:
        ev = [a for a in below if _is_ev(a)]
        other = [a for a in below if a not in ev]
        reason = "below the bound: " + ", ".join(below)
        if ev:
            reason += "; " + _ev_cause(errors, exp, ev, n0)
        if other:
            reason += (
                "; the heuristic threshold is not δ-correct (D17), so the Lemma does not bind "
                + ", ".join(other)
            )
    return Claim(
        "experiments",
        f"mean stopping time above the lower bound T*(μ,σ²)·log(1/δ) drawn in Fig. 2 ({exp})",
        "Lemma lem:lower_bound_sample_complexity, Fig. fig:random_instances_heuristic_threshold",
        "mean τ / bound ≥ 1",
        ", ".join(f"{a} {sub.loc[a, 'ratio_to_bound']:.2f}" for a in sub.index),
        _v(not below),
        reason,
    )


def _error_claim(errors: pd.DataFrame, delta: float, n0: int | None) -> Claim:
    bad = errors[errors["wilson_low"] > delta]
    above = errors[errors["error_rate"] > delta]
    reason = ""
    if len(bad):
        names = [f"{r.algorithm}@{r.experiment} {r.error_rate:.3g}" for r in bad.itertuples()]
        ev = bad[bad["algorithm"].map(_is_ev).astype(bool)]
        reason = "Wilson intervals above δ: " + ", ".join(names)
        if len(ev):
            reason += (
                "; EV rules: the EV-GLR stopping rule with the heuristic threshold is not "
                "δ-correct (Theorem thm:impossibility_result)"
            )
            if n0 is not None and n0 < 6:
                reason += (
                    f", and with n0 = {n0} a tiny plug-in variance starves an arm (D50; "
                    "see also the δ-resolving audit, D106)"
                )
        if len(ev) < len(bad):
            reason += "; GLR rules: the heuristic threshold is not δ-correct (D17)"
    return Claim(
        "experiments",
        "empirical error below δ for every algorithm (heuristic threshold)",
        "Sec. ssec:experiments",
        f"< δ = {delta:g}",
        f"{len(errors)} (experiment, algorithm) pairs; max error rate "
        f"{errors['error_rate'].max():.3g}; Wilson 95% intervals above δ: {len(bad)}; "
        f"point estimates above δ: {len(above)}",
        _v(len(bad) == 0),
        reason,
    )


# ----------------------------------------------------------------------------------------
# Decisions and report assembly
# ----------------------------------------------------------------------------------------
def decisions(decisions_md: str) -> list[tuple[str, str]]:
    """``(id, title)`` of every ``## D<n>: title`` section of docs/decisions/paper.md."""
    return re.findall(r"^## (D\d+):\s*(.+)$", decisions_md, flags=re.M)


def _heading(topic: str) -> str:
    """Capitalise an ASCII first letter only (``str.capitalize`` turns δ into Δ)."""
    return topic[:1].upper() + topic[1:] if topic[:1].isascii() else topic


def render(claims: Iterable[Claim], decisions_list: list[tuple[str, str]], config_name: str) -> str:
    claims = list(claims)
    df = pd.DataFrame([asdict(c) for c in claims])
    counts = df["verdict"].value_counts().to_dict() if len(df) else {}
    lines = [
        "# Reproduction report",
        "",
        f"Generated by the pipeline (`snakemake results/reproduction.md`) from the result files "
        f"of the configuration `{config_name}`; no number below is typed by hand except the "
        "paper's stated values.",
        "",
        "Summary: " + ", ".join(f"{counts.get(v, 0)} {v}" for v in VERDICTS) + ".",
        "",
    ]
    for topic, g in df.groupby("topic", sort=False):
        lines += [f"## {_heading(topic)}", ""]
        tab = g.drop(columns=["topic"]).rename(
            columns={"paper": "paper value", "ours": "our value (uncertainty)"}
        )
        # the paper's printed numbering ("Lemma 4", "Section 4.3"), never LaTeX labels,
        # and its notation (T⋆(μ, σ²))
        tab = tab.map(lambda v: notation(cite(v)) if isinstance(v, str) else v)
        lines.append(markdown_table(tab))
    lines += [
        "## Decisions where the paper is ambiguous",
        "",
        "Each is argued and pinned by a test in `docs/decisions/paper.md`:",
        "",
    ]
    lines += [f"- **{i}**: {t}" for i, t in decisions_list]
    return "\n".join(lines) + "\n"
