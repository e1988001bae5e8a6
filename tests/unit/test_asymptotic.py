"""Asymptotic-regime experiment: slope fit, summaries, constants, claims, figure."""

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy.optimize import curve_fit

from baiuv.model.instance import STANDARD, GaussianInstance
from baiuv.model.validate import log_inv_delta_of
from baiuv.studies.asymptotic import (
    THEORY,
    asymptotic_instances,
    asymptotic_levels,
    asymptotic_markdown,
    asymptotic_pairs,
    check_asymptotic_config,
    delta_label,
    fit_second_order,
    fit_slope,
    level_label,
    run_asymptotic_cell,
    slope_table,
    summarize_asymptotic,
    theoretical_constants,
    verdict_table,
)
from baiuv.studies.asymptotic_claims import FIT_CHI2_MAX, asymptotic_claims, limit_verdict

TWO = GaussianInstance(np.array([0.0, -1.0]), np.array([1.0, 0.25]), "two_arm")
NAMED = {"standard": STANDARD.to_dict()}


# ------------------------------------------------------------------ weighted least squares
@given(
    st.lists(st.floats(0.5, 30.0), min_size=3, max_size=8, unique=True),
    st.floats(-5, 5),
    st.floats(-50, 50),
    st.integers(0, 2**31 - 1),
)
@settings(max_examples=40, deadline=None)
# intercept near 0: a finite-difference Jacobian (step proportional to the parameter) would
# put the slope's standard error 2.5e-3 off; the analytic Jacobian below does not
@example(xs=[11.0, 0.5, 2.0, 20.0, 2.0078125], a=-0.2599563413695085, b=6.0, s=436168952)
def test_fit_slope_matches_scipy_curve_fit(xs, a, b, s):
    rng = np.random.default_rng(s)
    x = np.array(xs)
    se = rng.uniform(0.1, 3.0, x.size)
    y = a + b * x + se * rng.standard_normal(x.size)
    f = fit_slope(x, y, se)
    # exact: ordinary least squares on the whitened system
    Xw = np.column_stack([np.ones_like(x), x]) / se[:, None]
    coef, *_ = np.linalg.lstsq(Xw, y / se, rcond=None)
    cov = np.linalg.inv(Xw.T @ Xw)
    assert f["slope"] == pytest.approx(coef[1], rel=1e-8, abs=1e-8)
    assert f["intercept"] == pytest.approx(coef[0], rel=1e-8, abs=1e-8)
    assert f["slope_se"] == pytest.approx(math.sqrt(cov[1, 1]), rel=1e-8)
    resid = (y - coef[0] - coef[1] * x) / se
    assert f["chi2"] == pytest.approx(float(resid @ resid), rel=1e-6, abs=1e-9)
    # iterative: scipy's nonlinear least squares (Levenberg-Marquardt, stopping when the
    # relative change of the parameters is below xtol = 1.5e-8), given the model's exact
    # Jacobian: MINPACK's default forward differences take a step proportional to the
    # parameter, so their covariance has no error bound for a parameter near 0. The
    # parameters are compared at 1e-3 with an absolute part (slopes and intercepts near 0);
    # the covariance, inv(J'J) from the same exact J by an SVD, to rounding (1e-6).
    popt, pcov = curve_fit(
        lambda t, p0, p1: p0 + p1 * t,
        x,
        y,
        sigma=se,
        absolute_sigma=True,
        jac=lambda t, p0, p1: np.column_stack([np.ones_like(t), t]),
    )
    assert f["slope"] == pytest.approx(popt[1], rel=1e-3, abs=1e-3)
    assert f["intercept"] == pytest.approx(popt[0], rel=1e-3, abs=1e-3)
    assert f["slope_se"] == pytest.approx(math.sqrt(pcov[1, 1]), rel=1e-6)
    assert f["dof"] == x.size - 2


def test_fit_slope_two_points_is_the_secant():
    f = fit_slope([1.0, 3.0], [10.0, 16.0], [1.0, 2.0])
    assert f["slope"] == pytest.approx(3.0)
    assert f["slope_se"] == pytest.approx(math.sqrt(1 + 4) / 2)


def test_fit_slope_interval_coverage_monte_carlo():
    """95 % intervals cover the true slope in 95 % of simulated data sets (n = 4000:
    binomial s.d. 0.0034, margin 0.015 > 4 s.d.)."""
    rng = np.random.default_rng(3)
    x = np.log(1 / np.array([1e-4, 1e-6, 1e-8, 1e-10]))
    se = np.array([3.0, 4.0, 5.0, 6.0])
    hits = 0
    n = 4000
    for _ in range(n):
        y = 10 + 336.0 * x + se * rng.standard_normal(4)
        f = fit_slope(x, y, se)
        hits += f["slope_low"] <= 336.0 <= f["slope_high"]
    assert abs(hits / n - 0.95) < 0.015


@pytest.mark.parametrize(
    "args, match",
    [
        (([1.0], [1.0], [1.0]), "at least 2"),
        (([1.0, 1.0], [1.0, 2.0], [1.0, 1.0]), "distinct"),
        (([1.0, 2.0], [1.0, np.nan], [1.0, 1.0]), "finite"),
        (([1.0, 2.0], [1.0, 2.0], [1.0, -1.0]), "se must"),
        (([1.0, 2.0], [1.0, 2.0], [1.0]), "same length"),
    ],
)
def test_fit_slope_rejects_bad_input(args, match):
    with pytest.raises(ValueError, match=match):
        fit_slope(*args)


def test_fit_slope_zero_standard_errors_are_floored():
    f = fit_slope([1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.0, 0.0, 0.0])
    assert f["slope"] == pytest.approx(2.0)
    assert np.isfinite(f["slope_se"]) and f["slope_se"] > 0


# ------------------------------------------------------------------ constants
def test_theoretical_constants_two_arm_closed_forms():
    """Known variances, K = 2: T*_sigma2 = 2 (s1 + s2)^2 / gap^2 (optimal w ∝ s) and
    T*_sigma2,1/2 = 4 (s1^2 + s2^2) / gap^2 (w = (1/2, 1/2))."""
    for gap, v in [(1.0, 0.25), (0.3, 2.0), (2.0, 0.01)]:
        c = theoretical_constants([0.0, -gap], [1.0, v])
        assert c["T_star_known"] == pytest.approx(2 * (1 + math.sqrt(v)) ** 2 / gap**2, rel=1e-9)
        assert c["T_star_known_beta"] == pytest.approx(4 * (1 + v) / gap**2, rel=1e-9)


def test_theoretical_constants_inequalities():
    """Lemma lem:complexity_inequalities (T*_sigma2 < T*), T* <= T*_beta <= 2 T* (Russo)."""
    rng = np.random.default_rng(0)
    for _ in range(10):
        K = int(rng.integers(2, 8))
        mu = np.r_[0.0, -rng.uniform(0.2, 1.0, K - 1)]
        s2 = np.r_[1.0, rng.uniform(0.1, 10, K - 1)]
        c = theoretical_constants(mu, s2)
        assert c["T_star_known"] < c["T_star"] <= c["T_star_beta"] * (1 + 1e-9)
        assert c["T_star_beta"] <= 2 * c["T_star"]
        assert c["T_star_known"] <= c["T_star_known_beta"] * (1 + 1e-9)


def test_delta_label():
    assert delta_label(1e-10) == "1e-10"
    assert delta_label(0.001) == "0.001"
    with pytest.raises(ValueError, match="delta"):
        delta_label(1.5)


# ------------------------------------------------------------------ config
def test_asymptotic_instances_named_and_inline():
    out = asymptotic_instances(
        [
            {"instance": "standard", "runs": 3},
            {"name": "x", "mu": [0, -1], "sigma2": [1, 1], "runs": 5},
        ],
        NAMED,
    )
    assert [a.name for a in out] == ["standard", "x"] and [a.runs for a in out] == [3, 5]
    np.testing.assert_array_equal(out[0].instance.mu, STANDARD.mu)


@pytest.mark.parametrize(
    "specs, match",
    [
        ([{"instance": "nope", "runs": 3}], r"asymptotic.instances\[0\].instance"),
        ([{"name": "x", "mu": [0, 0], "sigma2": [1, 1], "runs": 3}], r"instances\[0\] \(x\)"),
        ([{"name": "x", "mu": [0, -1], "runs": 3}], "missing"),
        ([{"instance": "standard"}], "runs"),
        ([{"instance": "standard", "runs": 2}, {"instance": "standard", "runs": 2}], "duplicate"),
    ],
)
def test_asymptotic_instances_errors(specs, match):
    with pytest.raises(ValueError, match=match):
        asymptotic_instances(specs, NAMED)


def _section(**kw):
    s = {
        "instances": [{"instance": "standard", "runs": 3}],
        "deltas": [0.1, 0.01],
        "cells": [{"algorithm": "TaS", "threshold": "kl"}],
        "fit_points": 2,
    }
    s.update(kw)
    return {k: v for k, v in s.items() if v is not None}


@pytest.mark.parametrize(
    "kw, match",
    [
        ({"cells": [{"algorithm": "uniform", "threshold": "kl"}]}, r"cells\[0\].algorithm"),
        ({"cells": [{"algorithm": "TaS", "threshold": "nope"}]}, r"cells\[0\].threshold"),
        ({"cells": [{"algorithm": "TaS", "threshold": "kl"}] * 2}, "duplicate"),
        ({"cells": []}, "cells"),
        ({"deltas": [0.1, 0.1000000001]}, "distinct"),
        ({"deltas": [0.1, 2.0]}, r"asymptotic.deltas\[1\]"),
        ({"deltas": None, "log_inv_deltas": [10.0, -1.0]}, r"log_inv_deltas\[1\]"),
        ({"log_inv_deltas": [10.0, 20.0]}, "exactly one of 'deltas' and 'log_inv_deltas'"),
        ({"deltas": None}, "exactly one"),
        ({"fit_points": 3}, "fit_points"),
        ({"tolerance": 1.5}, "tolerance"),
        (
            {
                "deltas": None,
                "log_inv_deltas": [10, 1000],
                "cells": [{"algorithm": "TaS", "threshold": "student"}],
            },
            r"cells\[0\].threshold: the Student thresholds cannot be evaluated",
        ),
    ],
)
def test_check_asymptotic_config_errors(kw, match):
    check_asymptotic_config(_section(), NAMED)
    with pytest.raises(ValueError, match=match):
        check_asymptotic_config(_section(**kw), NAMED)


def test_asymptotic_levels_and_pairs():
    grid = {"min": 10.0, "max": 1000.0, "num": 3, "scale": "log"}
    assert asymptotic_levels({"log_inv_deltas": grid}) == pytest.approx([10.0, 100.0, 1000.0])
    assert asymptotic_levels({"log_inv_deltas": [1000, 2.5]}) == [2.5, 1000.0]
    assert asymptotic_levels({"deltas": [1e-3, 0.1]}) == pytest.approx(
        [math.log(10), math.log(1000)]
    )
    assert [level_label(x) for x in (1000.0, math.log(1e10))] == ["1000", "23.0259"]
    assert asymptotic_pairs(
        _section(cells=[{"algorithm": "EV-TCI", "threshold": "heuristic"}])
    ) == [("EV-TCI", "heuristic")]


# ------------------------------------------------------------------ simulation
def test_cell_shards_and_determinism():
    L3, L4 = log_inv_delta_of(1e-3), log_inv_delta_of(1e-4)
    kw = dict(log_inv_deltas=[L3, L4], runs=6, seed=5)
    full = run_asymptotic_cell(TWO, "TCI", "heuristic", **kw)
    parts = pd.concat(
        [run_asymptotic_cell(TWO, "TCI", "heuristic", **kw, n_shards=3, shard=s) for s in range(3)],
        ignore_index=True,
    )
    cols = ["run", "log_inv_delta", "stopping_time", "correct"]
    pd.testing.assert_frame_equal(full[cols], parts[cols])
    assert list(full["run"]) == [r for r in range(6) for _ in range(2)]
    assert np.allclose(full["log_inv_delta"], [math.log(1e3), math.log(1e4)] * 6)
    other = run_asymptotic_cell(TWO, "TCI", "heuristic", **{**kw, "seed": 6})
    assert not np.array_equal(full["stopping_time"], other["stopping_time"])


def test_levels_share_trajectories():
    """D307: each row is the run of its level alone with the cell's stream (no level in
    it); on one trajectory a deeper level of the heuristic threshold (larger at every t)
    never stops earlier, and stops later somewhere."""
    from baiuv.simulation.engine import RunSettings, simulate_run

    lids = [2.0, 6.0, 20.0]
    runs = run_asymptotic_cell(TWO, "TCI", "heuristic", log_inv_deltas=lids, runs=5, seed=7)
    for row in runs.itertuples():
        s = RunSettings(log_inv_delta=row.log_inv_delta, threshold="heuristic", n0=6)
        alone = simulate_run(
            TWO,
            "TCI",
            settings=s,
            seed=7,
            experiment="asymptotic:heuristic",
            instance_id="two_arm",
            run=row.run,
        )
        assert (alone["stopping_time"], alone["correct"], alone["truncated"]) == (
            row.stopping_time,
            row.correct,
            row.truncated,
        )
    taus = runs.pivot(index="run", columns="log_inv_delta", values="stopping_time").to_numpy()
    assert (np.diff(taus, axis=1) >= 0).all() and (np.diff(taus, axis=1) > 0).any()


def test_paired_intervals_resample_trajectories():
    """D308: levels sharing a run-wise factor, tau_{r,j} = x_j (C + u_r) + c0: the paired
    ratio to the deepest level is exactly 1 in every resample (its interval a point) while
    the unpaired one is wide; the slope's paired interval has the width the run factor
    gives (1.96 sd(u)/sqrt(n) half-width, within 30 %), and contains C."""
    from baiuv.studies.asymptotic import paired_level_table

    rng = np.random.default_rng(4)
    n, C, xs = 400, 5.0, [10.0, 30.0, 100.0, 300.0]
    u = rng.normal(0.0, 0.5, n)
    rows = [
        dict(
            instance="two_arm",
            algorithm="TCI",
            threshold="kl",
            log_inv_delta=x,
            run=r,
            stopping_time=x * (C + u[r]),
            correct=True,
            truncated=False,
        )
        for r in range(n)
        for x in xs
    ]
    runs = pd.DataFrame(rows)
    p = paired_level_table(runs, tol=0.05)
    assert len(p) == 3
    assert np.allclose(p[["paired_ratio", "paired_low", "paired_high"]], 1.0)
    assert (p["unpaired_high"] - p["unpaired_low"] > 0.02).all()
    assert (p["verdict"] == "reproduced").all()
    summary = summarize_asymptotic(runs, {"two_arm": TWO})
    sl = slope_table(summary, fit_points=4, runs=runs).iloc[0]
    assert sl["interval"] == "paired bootstrap over runs"
    half = 0.5 * (sl["slope_high"] - sl["slope_low"])
    assert half == pytest.approx(1.96 * u.std(ddof=1) / math.sqrt(n), rel=0.3)
    assert sl["slope_low"] <= C + u.mean() <= sl["slope_high"]
    assert slope_table(summary, fit_points=4).iloc[0]["interval"] == "normal, independent levels"
    v = verdict_table(summary, runs=runs).iloc[0]
    assert v["interval"] == "paired bootstrap over runs"
    assert v["fit_T_low"] < C + u.mean() < v["fit_T_high"]


def test_cell_rejects_bad_input():
    kw = dict(log_inv_deltas=[1.0], runs=2, seed=0)
    with pytest.raises(ValueError, match="algorithm"):
        run_asymptotic_cell(TWO, "uniform", "heuristic", **kw)
    with pytest.raises(ValueError, match="runs"):
        run_asymptotic_cell(TWO, "TaS", "heuristic", **{**kw, "runs": 0})
    with pytest.raises(ValueError, match="threshold"):
        run_asymptotic_cell(TWO, "TaS", "nope", **kw)
    with pytest.raises(ValueError, match="named"):
        run_asymptotic_cell(GaussianInstance([0, -1], [1, 1]), "TaS", "heuristic", **kw)
    with pytest.raises(ValueError, match="list of levels"):
        run_asymptotic_cell(TWO, "TaS", "heuristic", **{**kw, "log_inv_deltas": 1.0})
    with pytest.raises(TypeError):  # the levels are ln(1/delta), resolved once by the caller
        run_asymptotic_cell(TWO, "TaS", "heuristic", [0.1], runs=2, seed=0)


def test_mean_stopping_time_grows_with_log_inv_delta_and_exceeds_lower_bound():
    """Monte Carlo: TCI with the KL threshold (delta-correct, GLR) on the two-arm instance:
    E[tau] increases from delta = 0.1 to 1e-6 and stays above T* log(1/(2.4 delta))."""
    lo, hi = log_inv_delta_of(0.1), log_inv_delta_of(1e-6)
    runs = run_asymptotic_cell(TWO, "TCI", "kl", log_inv_deltas=[lo, hi], runs=40, seed=2)
    s = summarize_asymptotic(runs, {"two_arm": TWO})
    m = s.set_index("log_inv_delta")
    assert m.loc[hi, "mean_low"] > m.loc[lo, "mean_high"]
    assert (s["mean"] > s["lower_bound"]).all()
    assert (s["errors"] == 0).all()


# ------------------------------------------------------------------ summaries and slopes
def _fake_runs(slope=5.0, intercept=3.0, deltas=(0.1, 1e-3, 1e-6, 1e-10), n=50, alg="TaS"):
    rng = np.random.default_rng(1)
    rows = []
    for d in deltas:
        L = math.log(1 / d)
        for r in range(n):
            tau = int(round(intercept + slope * L + rng.normal(0, 2)))
            rows.append(
                dict(
                    instance="two_arm",
                    algorithm=alg,
                    threshold="kl",
                    delta=d,
                    run=r,
                    stopping_time=tau,
                    correct=r != 0,
                    truncated=False,
                )
            )
    return pd.DataFrame(rows)


def test_summary_against_pandas():
    runs = _fake_runs()
    s = summarize_asymptotic(runs, {"two_arm": TWO}).set_index("delta")
    for d, g in runs.groupby("delta"):
        t = g["stopping_time"].astype(float)
        assert s.loc[d, "mean"] == pytest.approx(t.mean())
        assert s.loc[d, "se"] == pytest.approx(t.std() / math.sqrt(len(t)))
        assert s.loc[d, "ratio"] == pytest.approx(t.mean() / math.log(1 / d))
        assert s.loc[d, "errors"] == 1
        T = theoretical_constants(TWO.mu, TWO.sigma2)["T_star"]
        assert s.loc[d, "lower_bound"] == pytest.approx(T * math.log(1 / (2.4 * d)))
        assert s.loc[d, "mean_high"] - s.loc[d, "mean"] == pytest.approx(
            1.959964 * s.loc[d, "se"], rel=1e-5
        )
    assert (s["constant"] == "T_star").all()


def test_slope_table_recovers_slope_and_uses_largest_log_inv_delta():
    runs = _fake_runs(slope=7.0)
    # a different regime at delta = 0.1 must not enter a fit on the 3 smallest deltas
    runs.loc[runs["delta"] == 0.1, "stopping_time"] += 1000
    s = summarize_asymptotic(runs, {"two_arm": TWO})
    t = slope_table(s, fit_points=3).iloc[0]
    assert t["points"] == 3 and t["delta_max"] == pytest.approx(1e-3)
    assert t["slope_low"] <= 7.0 <= t["slope_high"]
    assert t["slope_high"] - t["slope_low"] < 0.5
    t4 = slope_table(s, fit_points=4).iloc[0]
    assert t4["slope"] < 7.0 - 5  # the outlier at delta = 0.1 pulls the 4-point slope down
    md = asymptotic_markdown(verdict_table(s), slope_table(s, fit_points=3), s, fit_points=3)
    assert "T*(μ,σ²) = 5.439" in md and "| two_arm | TaS + KL threshold |" in md
    assert "Verdict rule" in md and "±5%" in md


def _levels_runs(T, c1=0.0, c0=0.0, levels=(10.0, 46.4, 215.0, 1000.0), n=40, alg="TaS", sd=0.01):
    """Runs with E[tau] = c0 + T L + c1 ln L and relative noise ``sd``."""
    rng = np.random.default_rng(7)
    rows = []
    for L in levels:
        m = c0 + T * L + c1 * math.log(L)
        for r in range(n):
            rows.append(
                dict(
                    instance="two_arm",
                    algorithm=alg,
                    threshold="kl" if not alg.startswith("EV-") else "heuristic",
                    log_inv_delta=L,
                    run=r,
                    stopping_time=int(round(m * (1 + sd * rng.standard_normal()))),
                    correct=True,
                    truncated=False,
                )
            )
    return pd.DataFrame(rows)


def test_fit_second_order_against_lstsq_and_recovers_T():
    rng = np.random.default_rng(4)
    x = np.array([10.0, 30.0, 100.0, 300.0, 1000.0])
    se = rng.uniform(0.5, 3.0, x.size)
    y = 40 + 5.4 * x + 25 * np.log(x) + se * rng.standard_normal(x.size)
    f = fit_second_order(x, y, se)
    Xw = np.column_stack([np.ones_like(x), x, np.log(x)]) / se[:, None]
    coef, *_ = np.linalg.lstsq(Xw, y / se, rcond=None)
    cov = np.linalg.inv(Xw.T @ Xw)
    assert (f["c0"], f["T"], f["c1"]) == pytest.approx(tuple(coef), rel=1e-8)
    assert f["T_se"] == pytest.approx(math.sqrt(cov[1, 1]), rel=1e-8)
    assert f["T_low"] <= 5.4 <= f["T_high"] and f["dof"] == 2
    with pytest.raises(ValueError, match="3 distinct"):
        fit_second_order([1.0, 2.0], [1.0, 2.0], [1.0, 1.0])
    with pytest.raises(ValueError, match="> 0"):
        fit_second_order([0.0, 2.0, 3.0], [1.0, 2.0, 3.0], [1.0, 1.0, 1.0])


def test_verdict_rules():
    """(a) within 5% at the largest level; (b) second-order T interval (informative)
    contains the constant; neither -> not reached."""
    T = theoretical_constants(TWO.mu, TWO.sigma2)["T_star"]
    inst = {"two_arm": TWO}
    # exact limit, no lower-order term: (a) and (b)
    v = verdict_table(summarize_asymptotic(_levels_runs(T), inst)).iloc[0]
    assert v["rule_a"] and v["rule_b"] and v["reached"]
    # a large ln ln term: 10% above T at L = 1000, but the fit recovers T: (b) only
    c1 = 0.1 * T * 1000 / math.log(1000)
    v = verdict_table(summarize_asymptotic(_levels_runs(T, c1=c1), inst)).iloc[0]
    assert not v["rule_a"] and v["rule_b"] and v["reached"]
    assert v["ratio_over_theory"] == pytest.approx(1.1, abs=0.01)
    # a wrong limit (1.3 T): neither
    v = verdict_table(summarize_asymptotic(_levels_runs(1.3 * T), inst)).iloc[0]
    assert not v["rule_a"] and not v["rule_b"] and not v["reached"]
    # an uninformative fit (huge noise) cannot pass (b)
    v = verdict_table(summarize_asymptotic(_levels_runs(1.2 * T, sd=0.8, n=3), inst)).iloc[0]
    assert not v["rule_b"]


def test_claims_verdicts():
    from baiuv.claims import DIFFERS, NOT_RESOLVED, REPRODUCED

    T = theoretical_constants(TWO.mu, TWO.sigma2)
    inst = {"two_arm": TWO}
    good = summarize_asymptotic(_levels_runs(T["T_star"]), inst)
    bad = summarize_asymptotic(_levels_runs(2 * T["T_star"]), inst)
    ev = summarize_asymptotic(_levels_runs(T["T_star_known_beta"], alg="EV-TCI"), inst)
    for s, verdict in [(good, REPRODUCED), (bad, DIFFERS)]:
        claims = asymptotic_claims(verdict_table(s), s)
        c = [c for c in claims if c.claim.startswith("TaS + KL threshold on two_arm")]
        assert len(c) == 1 and c[0].verdict == verdict
        assert "(a) interval below C(1 + 5%)" in c[0].ours and "one-sided" in c[0].paper
    c_ev = [c for c in asymptotic_claims(verdict_table(ev), ev) if "impossibility" in c.where]
    assert len(c_ev) == 1 and c_ev[0].verdict == REPRODUCED
    assert "significantly below T*(μ,σ²) ln(1/(2.4δ))" in c_ev[0].ours
    close = summarize_asymptotic(_levels_runs(T["T_star"], alg="EV-TCI", n=3, sd=0.3), inst)
    assert NOT_RESOLVED in {c.verdict for c in asymptotic_claims(verdict_table(close), close)}
    lb = [c for c in asymptotic_claims(verdict_table(good), good) if "2.4δ" in c.claim]
    assert lb and lb[0].verdict == REPRODUCED


def test_limit_rows_print_the_finite_delta_trend():
    """Appendix H's EV-TaS (D318): its lim sup row is judged against T*_σ²(μ) by the
    one-sided rule, and every limit row prints E[τ_δ]/ln(1/δ) with its interval at each
    level, smallest first; a slower EV-TaS (1.5 × the constant) is not reproduced."""
    from baiuv.claims import DIFFERS, REPRODUCED
    from baiuv.studies.asymptotic_claims import trend_text

    T = theoretical_constants(TWO.mu, TWO.sigma2)
    inst = {"two_arm": TWO}
    for factor, verdict in [(1.0, REPRODUCED), (1.5, DIFFERS)]:
        s = summarize_asymptotic(_levels_runs(factor * T["T_star_known"], alg="EV-TaS"), inst)
        rows = [c for c in asymptotic_claims(verdict_table(s), s) if "lim sup" in c.claim]
        assert len(rows) == 1 and rows[0].claim.startswith("EV-TaS + heuristic threshold")
        assert "T*_σ²(μ)" in rows[0].claim and rows[0].verdict == verdict
        trend = trend_text(s, "two_arm", "EV-TaS", "heuristic")
        assert trend in rows[0].ours and trend.count("[") == 6  # 4 levels, "E[" and "[95%]"
        first = s.sort_values("log_inv_delta").iloc[0]
        assert trend.startswith(
            f"trend E[τ_δ]/ln(1/δ) [95%] by ln(1/δ): 10: {first.ratio:.4g} "
            f"[{first.ratio_low:.4g}, {first.ratio_high:.4g}]"
        )
        assert ", 1000: " in trend
    assert trend_text(s, "two_arm", "TaS", "kl") == ""


@pytest.mark.parametrize("name", ["config.yaml", "test.yaml", "paper.yaml"])
def test_configs_run_appendix_h_ev_tas(name):
    """Appendix H names EV-TaS beside β-EB-EVTCI (D318): the default, test and paper-scale
    configurations run both EV rules with the tight heuristic threshold."""
    from pathlib import Path

    import yaml

    path = Path(__file__).resolve().parents[2] / "config" / name
    cells = yaml.safe_load(path.read_text())["asymptotic"]["cells"]
    for alg in ("EV-TaS", "EV-TCI"):
        assert {"algorithm": alg, "threshold": "heuristic"} in cells, (name, alg)


@pytest.mark.slow
def test_cells_at_log_inv_delta_1000_reach_their_limits():
    """Monte Carlo at ln(1/delta) = 1000 (delta = e^-1000) on the two-arm instance:
    beta-EB-TCI with the KL threshold stops near T*_{1/2} ln(1/delta), above the lower
    bound, without error; beta-EB-EVTCI with the heuristic threshold stops near
    T*_{sigma2,1/2} ln(1/delta), below T* ln(1/(2.4 delta)) (impossibility mechanism).
    Margins: 15% above the constant (lower-order terms ~10% at this level), 3% below it
    (three s.d. of the mean of 8 runs, < 1% each)."""
    T = theoretical_constants(TWO.mu, TWO.sigma2)
    runs = pd.concat(
        [
            run_asymptotic_cell(TWO, "TCI", "kl", log_inv_deltas=[1000.0], runs=8, seed=3),
            run_asymptotic_cell(
                TWO, "EV-TCI", "heuristic", log_inv_deltas=[1000.0], runs=8, seed=3
            ),
        ],
        ignore_index=True,
    )
    assert (runs["delta"] == 0.0).all() and (runs["log_inv_delta"] == 1000.0).all()
    s = summarize_asymptotic(runs, {"two_arm": TWO}).set_index("algorithm")
    assert s.loc["TCI", "errors"] == 0 and s.loc["EV-TCI", "errors"] == 0
    assert 0.97 <= s.loc["TCI", "ratio"] / T["T_star_beta"] < 1.15
    assert s.loc["TCI", "mean_low"] > s.loc["TCI", "lower_bound"]
    assert 0.97 <= s.loc["EV-TCI", "ratio"] / T["T_star_known_beta"] < 1.15
    assert s.loc["EV-TCI", "mean_high"] < s.loc["EV-TCI", "lower_bound"]


def test_impossibility_claim_only_for_tight_thresholds():
    """EV-BoB (delta-correct for the EV-GLR rule, so not asymptotically tight) never enters
    the impossibility claim; the same slope with the tight BoB threshold does."""
    T = theoretical_constants(TWO.mu, TWO.sigma2)
    for thr, expected in [("ev-bob", 0), ("ev-box", 0), ("bob", 1), ("heuristic", 1)]:
        runs = _fake_runs(slope=2 * T["T_star"], alg="EV-TCI").assign(threshold=thr)
        s = summarize_asymptotic(runs, {"two_arm": TWO})
        c = [c for c in asymptotic_claims(verdict_table(s), s) if "impossibility" in c.where]
        assert len(c) == expected, thr


def test_theory_map_covers_the_wrapped_algorithms():
    for a in ("TaS", "TCI", "EV-TaS", "EV-TCI", "fixed"):
        assert a in THEORY
    assert THEORY["TCI"][0] == "T_star_beta" and THEORY["EV-TaS"][0] == "T_star_known"


def test_asymptotic_figure_panels_and_labels():
    from baiuv.plotting.asymptotic import asymptotic_figure

    T = theoretical_constants(TWO.mu, TWO.sigma2)
    s = summarize_asymptotic(
        pd.concat(
            [_levels_runs(T["T_star"]), _levels_runs(T["T_star_known_beta"], alg="EV-TCI")],
            ignore_index=True,
        ),
        {"two_arm": TWO},
    )
    fig = asymptotic_figure(s, cells=[("TaS", "kl"), ("EV-TCI", "heuristic")])
    assert len(fig.axes) == 2
    a0, a1 = fig.axes
    assert a0.get_xscale() == "log" and a1.get_xscale() == "log"
    assert (
        a0.get_title() == "TaS, KL threshold"
        and a1.get_title() == "β-EB-EVTCI, heuristic threshold"
    )
    assert "two arms" in a0.get_ylabel() and "two_arm" not in a0.get_ylabel()
    # each panel its own y range, containing its constant
    assert a0.get_ylim() != a1.get_ylim()
    assert a1.get_ylim()[0] < T["T_star_known_beta"] < a1.get_ylim()[1]
    legend = fig.legends[0].get_texts()
    assert any("lower bound" in t.get_text() for t in legend)
    with pytest.raises(ValueError, match="summary"):
        asymptotic_figure(s.drop(columns="ratio"))


def test_limit_verdict_reads_the_claim_as_an_upper_bound():
    """The paper claims lim sup E[τ_δ]/ln(1/δ) ≤ C, one-sided: an interval (ratio or
    adequate fit) below C(1 + tol) passes, an adequate fit above it fails, an interval
    that straddles it or an inadequate fit with the ratio above it resolves nothing."""
    from types import SimpleNamespace

    from baiuv.claims import DIFFERS, NOT_RESOLVED, REPRODUCED

    base = dict(
        tolerance=0.05,
        theory=10.0,
        ratio=11.0,
        ratio_low=10.8,
        ratio_high=11.2,
        ratio_over_theory=1.1,
        rule_a=False,
        fit_T=9.5,
        fit_T_low=9.0,
        fit_T_high=10.0,
        fit_chi2=1.0,
        fit_dof=1,
    )
    assert limit_verdict(SimpleNamespace(**base))[0] == REPRODUCED
    # one-sided: a ratio whose interval is below C(1 + tol), even far below C, reproduces
    low = {"ratio": 8.0, "ratio_low": 7.8, "ratio_high": 8.2, "fit_dof": 0}
    assert limit_verdict(SimpleNamespace(**{**base, **low}))[0] == REPRODUCED
    above = {**base, "fit_T": 12.0, "fit_T_low": 11.0, "fit_T_high": 13.0}
    assert limit_verdict(SimpleNamespace(**above))[0] == DIFFERS
    # a fit whose interval straddles C(1 + tol) only "not refutes": not resolved
    straddle = {**base, "fit_T": 10.5, "fit_T_low": 10.0, "fit_T_high": 11.0}
    v, reason = limit_verdict(SimpleNamespace(**straddle))
    assert v == NOT_RESOLVED and "contains C(1 + 5%)" in reason
    misfit = {**base, "fit_chi2": 11.0}
    v, reason = limit_verdict(SimpleNamespace(**misfit))
    assert v == NOT_RESOLVED and f"> {FIT_CHI2_MAX:g}" in reason and "±2.0%" in reason
    v, reason = limit_verdict(SimpleNamespace(**{**base, "fit_dof": 0}))
    assert v == NOT_RESOLVED and "0 degrees of freedom" in reason


def test_runs_for_resolution_matches_the_rows_half_width():
    """The formula behind the configured runs gives the half-width the rows print: with
    ``n`` runs of standard deviation ``cv C`` the interval of :func:`summarize_asymptotic`
    at one level is ``±resolution_of_runs(cv, n) C``; ``runs_for_resolution`` is the
    smallest ``n`` reaching the target (checked against its neighbours)."""
    from baiuv.studies.asymptotic_claims import resolution_of_runs, runs_for_resolution

    rng = np.random.default_rng(3)
    L, n = 1000.0, 57
    taus = 336.0 * L * (1 + 0.05 * rng.standard_normal(n))
    runs = pd.DataFrame(
        {
            "instance": "standard",
            "algorithm": "TaS",
            "threshold": "kl",
            "log_inv_delta": L,
            "stopping_time": taus,
            "correct": True,
        }
    )
    row = summarize_asymptotic(runs, {"standard": STANDARD}).iloc[0]
    C = float(row["theory"])
    cv = float(np.std(taus / L, ddof=1)) / C
    half = (row["ratio_high"] - row["ratio_low"]) / 2 / C
    assert resolution_of_runs(cv, n) == pytest.approx(half, rel=1e-12)
    for cv, res in ((0.06, 0.01), (0.0486, 0.01), (0.2, 0.05), (0.013, 0.001)):
        m = runs_for_resolution(cv, res)
        assert resolution_of_runs(cv, m) <= res < resolution_of_runs(cv, m - 1)
        assert m == math.ceil((1.959963984540054 * cv / res) ** 2)
    assert runs_for_resolution(0.06, 0.01) == 139
    for bad in ((-0.1, 0.01), (0.05, 0.0), (0.05, 1.5), (math.nan, 0.01)):
        with pytest.raises(ValueError):
            runs_for_resolution(*bad)
