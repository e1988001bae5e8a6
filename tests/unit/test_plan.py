"""The planner (``baiuv.simulation.plan``, ``baiuv plan``): Lemma 2's bound against closed
forms and a brute force, the JSON output's schema, bad input, a small simulated plan
against the simulator run by run."""

from __future__ import annotations

import io
import json
import math

import numpy as np
import pytest
from scipy.optimize import minimize_scalar

from baiuv import BestArmIdentifier, cli
from baiuv.experiments.stopping_times import LEMMA2_CONSTANT as REPORTED_CONSTANT
from baiuv.experiments.stopping_times import wilson_interval as reported_wilson
from baiuv.model.instance import GaussianInstance
from baiuv.simulation.engine import RunSettings, simulate_run
from baiuv.simulation.plan import (
    LEMMA2_CONSTANT,
    PLAN_EXPERIMENT,
    lemma2_lower_bound,
    plan_experiment,
    wilson_interval,
)
from baiuv.simulation.rng import generator_of, run_seed


@pytest.mark.parametrize("gap,sd,delta", [(1.0, 1.0, 0.05), (0.3, 2.0, 0.01), (0.4, 0.5, 1e-6)])
def test_two_equal_variance_arms_closed_form(gap, sd, delta):
    # equal variances and gap <= sd: ln(1 + x^2/sd^2) is convex for |x| <= sd, so the cost
    # is convex and symmetric in y on [mu_2, mu_1], minimal at the midpoint; the max-min
    # over w is at w = (1/2, 1/2) by symmetry and concavity, and
    # 1/T* = (1/2) ln(1 + gap^2 / (4 sd^2)) (the explicit formula of T*, Lemma 3)
    p = plan_experiment([gap, 0.0], [sd, sd], delta, runs=0)
    T = 2.0 / math.log1p(gap**2 / (4.0 * sd**2))
    assert p["T_star"] == pytest.approx(T, rel=1e-9)
    assert p["optimal_allocation"] == pytest.approx([0.5, 0.5], abs=1e-9)
    assert p["lower_bound"] == pytest.approx(T * math.log(1.0 / (2.4 * delta)), rel=1e-9)
    assert p["stopping_time_mean"] is None and p["errors"] is None


def _brute_T_star(mu, s2):
    """``T*`` of two arms by nested one-dimensional optimisation (no oracle code)."""

    def inner(w):
        def cost(y):
            return 0.5 * w * math.log1p((y - mu[0]) ** 2 / s2[0]) + 0.5 * (1 - w) * math.log1p(
                (y - mu[1]) ** 2 / s2[1]
            )

        return minimize_scalar(
            cost, bounds=(mu[1], mu[0]), method="bounded", options={"xatol": 1e-12}
        ).fun

    res = minimize_scalar(
        lambda w: -inner(w), bounds=(1e-6, 1 - 1e-6), method="bounded", options={"xatol": 1e-10}
    )
    return 1.0 / -res.fun, res.x


@pytest.mark.parametrize("mu,s2", [([0.7, 0.1], [0.5, 2.0]), ([2.0, 0.0], [0.25, 0.25])])
def test_two_arms_brute_force(mu, s2):
    T, w = _brute_T_star(mu, s2)
    p = plan_experiment(mu, np.sqrt(s2), 0.01, runs=0)
    assert p["T_star"] == pytest.approx(T, rel=1e-6)
    assert p["optimal_allocation"][0] == pytest.approx(w, abs=1e-4)
    assert p["lower_bound"] == pytest.approx(T * math.log(1 / (2.4 * 0.01)), rel=1e-6)


def test_constants_agree_with_the_reported_ones():
    assert LEMMA2_CONSTANT == REPORTED_CONSTANT == 2.4
    for e, n in [(0, 10), (3, 10), (10, 10), (7, 1000)]:
        assert wilson_interval(e, n) == pytest.approx(reported_wilson(e, n), abs=1e-15)


def test_bound_is_zero_where_lemma_2_says_nothing():
    assert lemma2_lower_bound(10.0, 1 / 2.4) == 0.0
    assert lemma2_lower_bound(10.0, 0.9) == 0.0
    assert lemma2_lower_bound(10.0, 0.1) > 0.0


def test_small_simulated_plan_matches_the_simulator_run_by_run():
    mu, sd, delta, runs = [1.0, 0.0], [1.0, 1.0], 0.1, 12
    seen = []
    p = plan_experiment(
        mu, sd, delta, threshold="box", runs=runs, seed=3, progress=lambda d, n: seen.append((d, n))
    )
    assert seen == [(r + 1, runs) for r in range(runs)]
    inst = GaussianInstance(np.array(mu), np.array(sd) ** 2)
    settings = RunSettings(delta=delta, threshold="box")
    rows = [
        simulate_run(inst, "TCI", settings=settings, seed=3, experiment=PLAN_EXPERIMENT, run=r)
        for r in range(runs)
    ]
    taus = np.array([r["stopping_time"] for r in rows], dtype=float)
    errors = sum(not r["correct"] for r in rows)
    assert p["stopping_time_mean"] == taus.mean()
    assert p["stopping_time_median"] == np.median(taus)
    assert p["stopping_time_p90"] == np.percentile(taus, 90)
    assert p["errors"] == errors and p["error_rate"] == errors / runs
    assert (p["error_rate_low"], p["error_rate_high"]) == reported_wilson(errors, runs)
    assert p["truncated"] == 0
    assert p["delta_correct"] is True and p["sampling"] == "TCI" and p["threshold"] == "box"
    # the Box thresholds are far from tight: the mean is well above Lemma 2's bound
    assert p["stopping_time_mean"] > p["lower_bound"]
    assert plan_experiment(mu, sd, delta, threshold="box", runs=runs, seed=3) == p


def test_batched_plan_is_the_identifier_in_batches_run_by_run():
    """``batch > 1``: each run is the identifier asked for ``batch`` requests, all answered
    once the batch is sampled (written out here), on the planner's stream of that run; one
    sample at a time (``batch=1``) is the simulator's run, as without the option."""
    mu, sd, delta, runs, b = np.array([1.0, 0.3, 0.0]), np.array([1.0, 1.0, 2.0]), 0.1, 6, 25
    p = plan_experiment(mu, sd, delta, runs=runs, seed=5, batch=b)
    taus, drawn, errors = [], [], 0
    for r in range(runs):
        g = generator_of(run_seed(5, PLAN_EXPERIMENT, 0, "TCI", r))
        idf = BestArmIdentifier(3, delta, "tci", "bob", rng=g)
        n = 0
        while not idf.done:
            arms = np.array(idf.next_arms(b))
            assert len(arms) == b and len(idf.pending_arms) == b
            x = mu[arms] + sd[arms] * g.standard_normal(b)
            n += b
            idf.observe_many(arms, x)
        taus.append(idf.n_samples)
        drawn.append(n)
        errors += idf.recommendation != 0
    assert p["batch"] == b
    assert p["stopping_time_mean"] == np.mean(taus) and p["samples_drawn_mean"] == np.mean(drawn)
    assert p["stopping_time_median"] == np.median(taus) and p["errors"] == errors
    assert all(d % b == 0 and d - b < t <= d for t, d in zip(taus, drawn, strict=True))
    one = plan_experiment(mu, sd, delta, runs=runs, seed=5)
    assert one == {**plan_experiment(mu, sd, delta, runs=runs, seed=5, batch=1)}
    assert one["samples_drawn_mean"] == one["stopping_time_mean"] and one["batch"] == 1


def test_batched_plan_reports_the_budget_and_prints_the_batches():
    p = plan_experiment([0.1, 0.0], [1.0, 1.0], 0.01, runs=2, max_samples=30, batch=7)
    assert p["truncated"] == 2 and p["stopping_time_mean"] == 30.0
    assert p["samples_drawn_mean"] == 30.0  # the last batch cut to the budget
    code, out, _ = _run(["--means", "1,0", "--sd", "1,1", "--runs", "2", "--batch", "50"])
    assert code == 0 and "in batches of 50" in out and "samples drawn on average" in out


def test_budget_truncates_and_is_reported():
    p = plan_experiment([0.1, 0.0], [1.0, 1.0], 0.01, runs=3, max_samples=20, threshold="heuristic")
    assert p["truncated"] == 3 and p["stopping_time_mean"] == 20.0
    assert p["delta_correct"] is False


def _run(argv):
    out, err = io.StringIO(), io.StringIO()
    from baiuv.cli_plan import PlanInputError, plan

    args = cli.build_parser().parse_args(["plan", *argv])
    try:
        code = plan(args, out, err)
    except PlanInputError as exc:
        return 2, out.getvalue(), str(exc)
    return code, out.getvalue(), err.getvalue()


def _numbers_or_null(v):
    if v is None or isinstance(v, bool | str):
        return True
    if isinstance(v, int | float):
        return math.isfinite(v)
    if isinstance(v, list):
        return all(isinstance(x, int | float) and math.isfinite(x) for x in v)
    return False


def test_json_schema():
    code, out, err = _run(
        ["--means", "1,0.5,0", "--sd", "1,1,1", "--delta", "0.1", "--runs", "4", "--json",
         "--threshold", "heuristic"]
    )  # fmt: skip
    assert code == 0 and err == ""  # not a terminal: no progress bar
    d = json.loads(out)
    assert set(d) == {
        "K", "means", "sd", "delta", "epsilon", "best_arm", "T_star", "lower_bound",
        "optimal_allocation", "sampling", "threshold", "delta_correct", "runs", "seed",
        "max_samples", "stopping_time_mean", "stopping_time_median", "stopping_time_p90",
        "batch", "samples_drawn_mean", "errors", "error_rate", "error_rate_low", "error_rate_high", "truncated",
    }  # fmt: skip
    assert all(_numbers_or_null(v) for v in d.values())
    assert d["K"] == 3 and d["runs"] == 4 and len(d["optimal_allocation"]) == 3
    assert sum(d["optimal_allocation"]) == pytest.approx(1.0)
    assert d["error_rate_low"] <= d["error_rate"] <= d["error_rate_high"]
    code, out, _ = _run(["--means", "1,0", "--sd", "1,1", "--runs", "0", "--json"])
    d = json.loads(out)
    assert d["stopping_time_mean"] is None and d["error_rate"] is None


def test_plain_output_reads():
    code, out, _ = _run(["--means", "1,0", "--sd", "1,1", "--delta", "0.05", "--runs", "3"])
    assert code == 0
    assert "Lemma 2" in out and "T⋆(μ, σ²)" in out and "90th percentile" in out
    assert "Wilson" in out and "0.5000" in out


@pytest.mark.parametrize(
    "argv,needle",
    [
        (["--means", "1,0", "--sd", "1,1,1"], "same length"),
        (["--means", "1,0", "--sd", "1,0"], "sd must be > 0"),
        (["--means", "1,1", "--sd", "1,1"], "unique largest"),
        (["--means", "1,x", "--sd", "1,1"], "--means must be comma-separated numbers"),
        (["--means", "1,inf", "--sd", "1,1"], "--means must be finite"),
        (["--means", "1,0", "--sd", "1,1", "--delta", "1.5"], "delta must be in (0, 1)"),
        (["--means", "1,0", "--sd", "1,1", "--sampling", "foo"], "sampling must be one of"),
        (["--means", "1,0", "--sd", "1,1", "--threshold", "ev-box"], "threshold must be one of"),
        (["--means", "1,0", "--sd", "1,1", "--runs", "-1"], "--runs must be >= 0"),
        (["--means", "1,0", "--sd", "1,1", "--max-samples", "3"], "max_samples must be at least"),
        (["--means", "1", "--sd", "1"], "at least 2 entries"),
        (["--means", "1,0", "--sd", "1,1", "--batch", "0"], "batch must be"),
    ],
)
def test_bad_input_one_line_messages(argv, needle):
    code, out, msg = _run(argv)
    assert code == 2 and out == ""
    assert needle in msg and "\n" not in msg


def test_cli_main_exit_status_and_prefix(capsys):
    assert cli.main(["plan", "--means", "1,1", "--sd", "1,1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("baiuv plan: error:") and err.count("\n") == 1
