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


def threshold_claims(
    curves_delta: pd.DataFrame,
    curves_time: pd.DataFrame,
    initial: pd.DataFrame,
    costs: pd.DataFrame,
) -> list[Claim]:
    out = []
    sl = slopes_in_log_inv_delta(curves_delta)
    fmt = ", ".join(f"{k} {v:.3g}" for k, v in sorted(sl.items()))
    if {"kl", "box", "student", "bob"} <= sl.keys():
        ok = sl["kl"] < sl["box"] and sl["kl"] < sl["student"] and sl["bob"] < sl["box"]
        out.append(
            Claim(
                "thresholds",
                "slopes in ln(1/δ): KL and BoB smallest (≈1, asymptotically tight), Student and Box larger",
                "Fig. fig:stopping_thresholds_evolutions_glrt(a), App. app:ss_asymptotically_tight_thresholds",
                "KL, BoB ≈ 1 < Box, Student (≤ 2 at best)",
                f"fitted slopes over the largest ln(1/δ): {fmt}",
                _v(ok),
                "" if ok else "slope ordering differs on the configured grid",
            )
        )
    mt = _mean_curve(curves_time)
    tmax = mt["x"].max()
    at = mt[mt["x"] == tmax].set_index("family")["value"]
    if {"kl", "box", "bob", "student"} <= set(at.index):
        ok = at["kl"] > at["box"] and at["student"] > at["box"] and at["bob"] <= at["kl"]
        out.append(
            Claim(
                "thresholds",
                "at δ = 0.01 and large t: KL above Box (large constant), Student worst in t, BoB close to Box",
                "Fig. fig:stopping_thresholds_evolutions_glrt(b)",
                "Student > KL > Box ≈ BoB",
                f"at t = {tmax:g}: "
                + ", ".join(f"{k} {at[k]:.4g}" for k in ("student", "kl", "box", "bob")),
                _v(ok),
                "" if ok else "ordering differs",
            )
        )
    pairs = [("student", "ev-student"), ("box", "ev-box"), ("bob", "ev-bob")]
    res = []
    for g_name, ev_name in pairs:
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
                "" if ok else "some EV threshold below its GLR version",
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
    if len(m):
        out.append(
            Claim(
                "thresholds",
                "KL monotonicity condition (eq. def_initial_time_monotonicity) satisfied after 2 samples per arm",
                "Sec. ssec:beyond_box",
                "2",
                "KL family's full initial count "
                + ", ".join(f"δ={r.delta:g}: {int(r.statement_count)}" for r in m.itertuples()),
                NOT_CHECKABLE,
                "this table records the KL family's whole initial time, dominated by its Box "
                "condition at δ/3 (D16, D21); the monotonicity condition alone holds from the "
                "3rd sample, as the paper says (tests/unit/test_thresholds_concentration.py)",
            )
        )
    c = costs.set_index("family")
    for fam, paper in PAPER_COST.items():
        if fam in c.index:
            ratio = float(c.loc["bob", "python_s"] / c.loc[fam, "python_s"])
            out.append(
                Claim(
                    "thresholds",
                    f"cost of one BoB evaluation / one {fam} evaluation",
                    "Sec. ssec:simulations_stopping_thresholds",
                    f"≈{paper}",
                    f"{ratio:.0f} (Pyomo + Ipopt vs Python {fam}; machine-dependent)",
                    NOT_CHECKABLE,
                    "timings depend on the machine, the language (Julia/JuMP in the paper) and "
                    "the solver interface; we report our measured ratio, and the exact BoB "
                    "solver removes the gap (benchmarks/bench_bob.py)",
                )
            )
    return out


# ----------------------------------------------------------------------------------------
# Stopping-time experiments (Section ssec:experiments, Fig. fig:random_instances_heuristic_threshold)
# ----------------------------------------------------------------------------------------
WRAPPED = ("TaS", "EV-TaS", "TCI", "EV-TCI", "DKM", "EV-DKM", "FWS", "EV-FWS")
ON_PAR_TOLERANCE = 0.25  # "on par with fixed": mean stopping time within 25% (decision D5)


def experiment_claims(errors: pd.DataFrame, times: pd.DataFrame, delta: float) -> list[Claim]:
    out = []
    bad = errors[errors["wilson_low"] > delta]
    above = errors[errors["error_rate"] > delta]
    out.append(
        Claim(
            "experiments",
            "empirical error below δ for every algorithm (heuristic threshold)",
            "Sec. ssec:experiments",
            f"< δ = {delta:g}",
            f"{len(errors)} (experiment, algorithm) pairs; max error rate "
            f"{errors['error_rate'].max():.3g}; Wilson 95% intervals above δ: {len(bad)}; "
            f"point estimates above δ: {len(above)}",
            _v(len(bad) == 0),
            ""
            if len(bad) == 0
            else "some intervals lie above δ: "
            + ", ".join(f"{r.algorithm}@{r.experiment}" for r in bad.itertuples()),
        )
    )
    t = times.set_index(["experiment", "algorithm"])
    for exp in times["experiment"].unique():
        sub = t.loc[exp]
        if "uniform" in sub.index:
            algs = [a for a in WRAPPED if a in sub.index]
            beat = [
                a
                for a in algs
                if sub.loc[a, "mean"] + 2 * sub.loc[a, "se"] < sub.loc["uniform", "mean"]
            ]
            out.append(
                Claim(
                    "experiments",
                    f"wrapped algorithms beat uniform sampling ({exp})",
                    "Sec. ssec:experiments, Fig. fig:random_instances_heuristic_threshold",
                    "all wrapped < uniform",
                    f"{len(beat)}/{len(algs)} below uniform by > 2 s.e. "
                    f"(uniform {sub.loc['uniform', 'mean']:.1f})",
                    _v(len(beat) == len(algs)),
                    ""
                    if len(beat) == len(algs)
                    else "not below uniform: " + ", ".join(sorted(set(algs) - set(beat))),
                )
            )
        if "fixed" in sub.index:
            algs = [a for a in WRAPPED if a in sub.index]
            rel = {a: sub.loc[a, "mean"] / sub.loc["fixed", "mean"] for a in algs}
            par = [a for a, r in rel.items() if r <= 1 + ON_PAR_TOLERANCE]
            out.append(
                Claim(
                    "experiments",
                    f"wrapped algorithms on par with the 'fixed' oracle ({exp})",
                    "Sec. ssec:experiments",
                    "≈ fixed",
                    "mean τ / mean τ(fixed): " + ", ".join(f"{a} {r:.2f}" for a, r in rel.items()),
                    _v(len(par) == len(algs)),
                    ""
                    if len(par) == len(algs)
                    else f"more than {ON_PAR_TOLERANCE:.0%} above fixed: "
                    + ", ".join(sorted(set(algs) - set(par))),
                )
            )
        pairs = [
            (a, "EV-" + a)
            for a in ("TaS", "TCI", "DKM", "FWS")
            if a in sub.index and "EV-" + a in sub.index
        ]
        if pairs:
            rel = {a: sub.loc["EV-" + a, "mean"] / sub.loc[a, "mean"] for a, _ in pairs}
            comparable = all(0.8 <= r <= 1.2 for r in rel.values())
            text = ", ".join(f"EV-{a}/{a} {r:.3f}" for a, r in rel.items())
            if exp == "easy":
                ev_better = all(r < 1 for r in rel.values())
                out.append(
                    Claim(
                        "experiments",
                        "EV wrappers slightly better than adapted ones on the easy instance",
                        "Sec. ssec:experiments",
                        "EV < adapted",
                        text,
                        _v(ev_better),
                        "" if ev_better else "EV not faster for every algorithm",
                    )
                )
            else:
                out.append(
                    Claim(
                        "experiments",
                        f"EV and adapted wrappers comparable ({exp})",
                        "Sec. ssec:experiments",
                        "similar",
                        text,
                        _v(comparable),
                        "" if comparable else "ratio outside [0.8, 1.2]",
                    )
                )
        if "FHN2" in sub.index:
            algs = [a for a in WRAPPED if a in sub.index]
            worst = max(sub.loc[a, "mean"] for a in algs) if algs else math.nan
            fhn = sub.loc["FHN2", "mean"]
            if exp == "easy":
                ok = fhn > worst
                out.append(
                    Claim(
                        "experiments",
                        "FHN2 wastes samples on the easy instance",
                        "Sec. ssec:experiments",
                        "FHN2 ≫ wrapped algorithms",
                        f"FHN2 {fhn:.1f} vs worst wrapped {worst:.1f}",
                        _v(ok),
                        "" if ok else "FHN2 not above every wrapped algorithm",
                    )
                )
        if "lower_bound" in sub.columns:
            out.append(
                Claim(
                    "experiments",
                    f"mean stopping time relative to T*(μ,σ²)·log(1/δ) ({exp})",
                    "Lemma lem:lower_bound_sample_complexity, Fig. fig:random_instances_heuristic_threshold",
                    "above the lower bound (the heuristic threshold is not δ-correct, so not guaranteed)",
                    ", ".join(f"{a} {sub.loc[a, 'ratio_to_bound']:.2f}" for a in sub.index),
                    NOT_CHECKABLE,
                    "the paper only draws the bound; ratios are reported for reference",
                )
            )
    return out


# ----------------------------------------------------------------------------------------
# Decisions and report assembly
# ----------------------------------------------------------------------------------------
def decisions(decisions_md: str) -> list[tuple[str, str]]:
    """``(id, title)`` of every ``## D<n>: title`` section of docs/decisions.md."""
    return re.findall(r"^## (D\d+):\s*(.+)$", decisions_md, flags=re.M)


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
        lines += [f"## {topic.capitalize()}", ""]
        tab = g.drop(columns=["topic"]).rename(
            columns={"paper": "paper value", "ours": "our value (uncertainty)"}
        )
        lines.append(markdown_table(tab))
    lines += [
        "## Decisions where the paper is ambiguous",
        "",
        "Each is argued and pinned by a test in `docs/decisions.md`:",
        "",
    ]
    lines += [f"- **{i}**: {t}" for i, t in decisions_list]
    return "\n".join(lines) + "\n"
