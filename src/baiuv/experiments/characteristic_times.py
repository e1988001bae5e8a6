"""Characteristic-time experiment (Appendix ``app:sss_exp_characteristic_times``): the two-arm
sweeps of the complexity ratio, the named instances, and their Markdown table."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from baiuv.claims import NOT_CHECKABLE, Claim, verdict
from baiuv.experiments.spec import ExperimentSpec, ReportEntry, figure_files
from baiuv.model.characteristic import characteristic_time, complexity_d, optimal_allocation
from baiuv.tables import markdown_table


def two_arm_row(gap: float, r: float, beta: float | None = None) -> dict:
    """Characteristic times on the canonical instance ``mu = (0, -gap)``, ``s2 = (1, r)``."""
    mu = np.array([0.0, -gap])
    s2 = np.array([1.0, r])
    t_u = characteristic_time(mu, s2, beta=beta)
    t_k = characteristic_time(mu, s2, known_variance=True, beta=beta)
    d = complexity_d(mu, s2)
    return {
        "gap": gap,
        "r": r,
        "T_unknown": t_u,
        "T_known": t_k,
        "ratio": t_u / t_k,
        "d": d,
        "bound": d / np.log1p(d),
    }


def ratio_sweep(axis: str, values: np.ndarray, fixed: float, beta: float | None = None):
    """Sweep the complexity ratio along ``axis`` ("gap": fixed r; "variance": fixed gap)."""
    if axis not in ("gap", "variance"):
        raise ValueError(f"axis must be 'gap' or 'variance', got {axis!r}")
    rows = []
    for v in np.asarray(values, dtype=float):
        row = two_arm_row(v, fixed, beta) if axis == "gap" else two_arm_row(fixed, v, beta)
        row["axis"] = axis
        row["beta"] = np.nan if beta is None else beta
        rows.append(row)
    return pd.DataFrame(rows)


def instance_summary(name: str, mu, sigma2, beta: float = 0.5) -> dict:
    """T*, T*_{s2}, their ratio, the bound, w*, w*_{s2} and beta-versions for one instance."""
    mu = np.asarray(mu, float)
    s2 = np.asarray(sigma2, float)
    t_u = characteristic_time(mu, s2)
    t_k = characteristic_time(mu, s2, known_variance=True)
    tb_u = characteristic_time(mu, s2, beta=beta)
    tb_k = characteristic_time(mu, s2, known_variance=True, beta=beta)
    d = complexity_d(mu, s2)
    return {
        "instance": name,
        "K": mu.size,
        "T_unknown": t_u,
        "T_known": t_k,
        "ratio": t_u / t_k,
        "d": d,
        "bound": d / np.log1p(d),
        "beta": beta,
        "T_beta_unknown": tb_u,
        "T_beta_known": tb_k,
        "ratio_beta": tb_u / tb_k,
        "w_unknown": optimal_allocation(mu, s2).tolist(),
        "w_known": optimal_allocation(mu, s2, known_variance=True).tolist(),
    }


#: Ratios T*(mu, s2) / T*_{s2}(mu) stated in Section ``ssec:experiments``.
PAPER_RATIOS = {"standard": 1.015, "easy": 1.384}


def _vec(v) -> str:
    return "(" + ", ".join(f"{x:.4f}" for x in np.asarray(v, float)) + ")"


def characteristic_time_table(df: pd.DataFrame, params: dict) -> str:
    """Table of T*, T*_{s2}, ratio (with the paper's value and a verdict), w*, w*_{s2}."""
    rows = []
    notes = []
    for r in df.itertuples(index=False):
        paper = PAPER_RATIOS.get(r.instance)
        if paper is None:
            verdict = "not stated in the paper"
        else:
            # the paper states the ratio with 3 decimals ("≈"): agreement means rounding to it
            agree = round(r.ratio, 3) == paper
            verdict = "reproduced" if agree else "differs"
            if not agree:
                notes.append(
                    f"- **{r.instance}**: we compute {r.ratio:.6f}, the paper states ≈{paper}. "
                    "Our value is the exact optimum of Theorem thm:equivalent_optimization_problem "
                    "computed by two independent methods (nested bisection and Brent+Newton) that "
                    "agree to 1e-12, and checked against a brute-force max-min over the simplex "
                    "in the tests; the paper's figure was presumably obtained with a coarser "
                    "numerical procedure or rounded differently."
                )
        rows.append(
            {
                "instance": r.instance,
                "K": r.K,
                "T*(μ,σ²)": r.T_unknown,
                "T*_σ²(μ)": r.T_known,
                "ratio": r.ratio,
                "paper ratio": paper if paper is not None else float("nan"),
                "verdict": verdict,
                "d/ln(1+d)": r.bound,
                f"T*_β ratio (β={r.beta:g})": r.ratio_beta,
                "w*(μ,σ²)": _vec(r.w_unknown),
                "w*_σ²(μ)": _vec(r.w_known),
            }
        )
    out = "## Characteristic times of the named instances\n\n"
    out += markdown_table(pd.DataFrame(rows), floatfmt=".5g")
    if notes:
        out += "\n" + "\n".join(notes) + "\n"
    return out


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
                topic="characteristic times",
                claim=f"T*(μ,σ²)/T*_σ²(μ) on the {r.instance} instance",
                where="Sec. Experiments (ssec:experiments)",
                paper=f"≈{paper}",
                ours=f"{r.ratio:.6f} (T*={r.T_unknown:.4f}, T*_σ²={r.T_known:.4f}; exact to 1e-12)",
                verdict=verdict(ok),
                reason=""
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
            topic="characteristic times",
            claim="1 < T*/T*_σ² ≤ d/ln(1+d) over the sweeps",
            where="Lemma lem:complexity_inequalities, Fig. fig:evolution_ratios_characteristic_times",
            paper="holds for every instance",
            ours=f"{len(sweep)} instances; violations: {lower} (lower), {upper} (upper); "
            f"ratio range [{sweep['ratio'].min():.6g}, {sweep['ratio'].max():.6g}]",
            verdict=verdict(lower == 0 and upper == 0),
            reason="" if lower == upper == 0 else "inequality violated on some grid point",
        )
    )
    g = gap_sweep.sort_values("gap")
    out += _close_to_one_claims(g, len(gap_sweep), len(var_sweep))
    grows = bool(np.all(np.diff(g["ratio"].to_numpy()[g["gap"].to_numpy() > 1.0]) > 0))
    out.append(
        Claim(
            topic="characteristic times",
            claim="the ratio grows without bound as the gap grows",
            where="Lemma lem:ratio_characteristic_time_large",
            paper="→ ∞",
            ours=f"increasing for Δ > 1: {grows}; ratio {g['ratio'].iloc[-1]:.4g} at Δ = {g['gap'].iloc[-1]:g}",
            verdict=verdict(grows and g["ratio"].iloc[-1] > 10),
            reason="" if grows else "not monotone on the grid",
        )
    )
    v = var_sweep.sort_values("r")
    slack_small_r = float(v["bound"].iloc[0] / v["ratio"].iloc[0])
    slack_large_r = float(v["bound"].iloc[-1] / v["ratio"].iloc[-1])
    out.append(
        Claim(
            topic="characteristic times",
            claim="the bound d/ln(1+d) is loose when the best arm's variance is much larger (r ≪ 1)",
            where="App. app:sss_exp_characteristic_times",
            paper="loose for small r, tight otherwise",
            ours=f"bound/ratio = {slack_small_r:.3g} at r = {v['r'].iloc[0]:g}, "
            f"{slack_large_r:.4g} at r = {v['r'].iloc[-1]:g}",
            verdict=verdict(slack_small_r > 2 and slack_large_r < 1.1),
            reason="" if slack_small_r > 2 and slack_large_r < 1.1 else "slack pattern differs",
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
            topic="characteristic times",
            claim="equal variances: T*_σ²(μ)·Δ²/2 = (1+√(K−1))²",
            where="proof of Lemma lem:ratio_characteristic_time_large",
            paper="exact",
            ours=f"max relative error {max(errs):.1e} over K ∈ {{2,5,10}}, Δ ∈ {{0.1,1,10}}",
            verdict=verdict(max(errs) < 1e-9),
            reason="" if max(errs) < 1e-9 else "closed form not matched",
        )
    )
    out.append(oracle_speed_claim())
    return out


def oracle_speed_claim() -> Claim:
    """Appendix J.1's "significantly faster" oracle of EV-TaS: a timing, so the report (a
    committed file compared byte for byte) names where it is measured, without a number
    (D131: timings stay out of the results that are compared)."""
    return Claim(
        topic="characteristic times",
        claim="EV-TaS's oracle: \"the procedure is similar as the one implemented in [Garivier "
        'and Kaufmann 2016], and it is significantly faster as λ(x) has a closed-form solution"',
        where="App. app:ss_implementation_details (Optimal allocation oracles)",
        paper="significantly faster than TaS's nested binary searches (cubic roots for λ(x))",
        ours="machine-dependent: benchmarks/bench_oracle.py prints, in one run, µs per call of "
        "the nested binary searches with unknown variances (TaS) and known variances (EV-TaS)",
        verdict=NOT_CHECKABLE,
        reason="a timing depends on the machine and the language (Julia in the paper); the "
        "pipeline computes no timing of the oracles",
    )


#: "close to one as long as the gap is not too large" (App. app:sss_exp_characteristic_times),
#: read as: T*/T*_σ² ≤ 1 + CLOSE_TO_ONE for every gap Δ ≤ MODERATE_GAP, the largest gap of the
#: paper's random instances (Δ ~ U([0.2, 1])); the tolerance is the "similar" band of D170.
CLOSE_TO_ONE = 0.2
MODERATE_GAP = 1.0


def _close_to_one_claims(g: pd.DataFrame, n_gap: int, n_var: int) -> list[Claim]:
    """The ratio close to one for moderate gaps, and the size statement of App. J.1."""
    sub = g[g["gap"] <= MODERATE_GAP]
    worst = float(sub["ratio"].max()) if len(sub) else math.nan
    ok = len(sub) > 0 and worst <= 1 + CLOSE_TO_ONE
    first_gap = g[g["ratio"] > 1 + CLOSE_TO_ONE]["gap"]
    return [
        Claim(
            topic="characteristic times",
            claim='"T⋆(μ, σ²)/T⋆_σ²(μ) is close to one as long as the gap is not too large"',
            where="App. app:sss_exp_characteristic_times, Fig. fig:evolution_ratios_characteristic_times(a)",
            paper=f"ratio ≤ {1 + CLOSE_TO_ONE:g} for Δ ≤ {MODERATE_GAP:g} (the gaps of the random "
            "instances; band of D170)",
            ours=f"largest ratio for Δ ≤ {MODERATE_GAP:g}: {worst:.4f}; the ratio first exceeds "
            f"{1 + CLOSE_TO_ONE:g} at Δ = "
            + (f"{float(first_gap.iloc[0]):.3g}" if len(first_gap) else "never on the grid"),
            verdict=verdict(ok),
            reason="" if ok else f"ratio {worst:.4f} above {1 + CLOSE_TO_ONE:g} for a moderate gap",
        ),
        Claim(
            topic="characteristic times",
            claim='"We perform 10000 simulations for varying Δ and r"',
            where="App. app:sss_exp_characteristic_times",
            paper="10000 simulations",
            ours=f"no simulation: T⋆ and T⋆_σ² are computed exactly on {n_gap} values of Δ and "
            f"{n_var} values of r",
            verdict=NOT_CHECKABLE,
            reason="the characteristic times are deterministic functions of (μ, σ²); the paper does "
            "not say what its 10000 simulations sample",
        ),
    ]


def _claims(tables, config) -> list[Claim]:
    return characteristic_claims(tables["ct_instances"], tables["ct_gap"], tables["ct_variance"])


SPEC = ExperimentSpec(
    name="characteristic_times",
    order=10,
    targets=lambda config: [
        *figure_files("characteristic_times_ratio"),
        "results/tables/characteristic_times.md",
    ],
    report_inputs=lambda config: {
        "ct_instances": "results/characteristic_times/instances.parquet",
        "ct_gap": "results/characteristic_times/sweep_gap.parquet",
        "ct_variance": "results/characteristic_times/sweep_variance.parquet",
    },
    claims=_claims,
    rules="characteristic_times.smk",
    category="Characteristic times",
    entries=(
        ReportEntry(
            key="characteristic_times_table",
            path="results/tables/characteristic_times.html",
            paper=("ssec:experiments", "lem:complexity_inequalities"),
            shows="T⋆(μ, σ²), T⋆_σ²(μ), their ratio and w⋆ on the standard and easy instances",
            markdown="results/tables/characteristic_times.md",
            caption="characteristic_times_table.rst",
        ),
        ReportEntry(
            key="characteristic_times_ratio",
            path="results/figures/characteristic_times_ratio.png",
            paper=("fig:evolution_ratios_characteristic_times",),
            shows="ratio T⋆(μ, σ²)/T⋆_σ²(μ) and its bound d/ln(1+d) against Δ and r",
        ),
    ),
)
