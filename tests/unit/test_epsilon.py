"""The indifference zone ``epsilon`` of the GLR stopping rules (ε-best-arm identification,
``baiuv.simulation.epsilon``; decisions D290-D294)."""

from __future__ import annotations

import io
import json
import math

import numpy as np
import pytest
from scipy.optimize import minimize

from baiuv import BestArmIdentifier, GaussianInstance
from baiuv.cli import main
from baiuv.registry import ALGORITHMS
from baiuv.simulation import RunSettings, rules, simulate_run
from baiuv.simulation.data_shape import MAX_ABS_VALUE
from baiuv.simulation.engine import Runner, threshold_spec
from baiuv.simulation.epsilon import MAX_EPSILON, check_epsilon, is_epsilon_good, with_epsilon
from baiuv.simulation.plan import plan_experiment
from baiuv.simulation.rng import generator_of, run_seed
from baiuv.simulation.rules.run_state import RunState, StopRule
from baiuv.simulation.rules.zcache import EPS_FLAGS, EPS_ROWS, ZC_Z, ZF_BND, ZF_OK, ZF_RAT
from baiuv.thresholds.kernels import P_EPS


# ----------------------------------------------------------------------------- the statistic
def brute_force(mb, sb, nb, ma, sa, na, eps, plug_in):
    """``inf`` of the GLR (or EV-GLR) objective of the pair over the alternatives where the
    challenger beats the best arm by at least ``eps``: ``lambda_b = x``, ``lambda_a = x +
    eps + s^2`` covers that closed set; Nelder-Mead from several starts, nothing shifted."""

    def cost(v):
        lb, la = v[0], v[0] + eps + v[1] ** 2
        if plug_in:
            return nb * (mb - lb) ** 2 / (2 * sb) + na * (ma - la) ** 2 / (2 * sa)
        return nb / 2 * math.log1p((mb - lb) ** 2 / sb) + na / 2 * math.log1p((ma - la) ** 2 / sa)

    best = math.inf
    lo, hi = min(ma, mb) - eps - 1.0, max(ma, mb) + 1.0
    for x0 in np.linspace(lo, hi, 7):
        for s0 in (0.0, 0.3, 1.0):
            r = minimize(
                cost, [x0, s0], method="Nelder-Mead",
                options={"xatol": 1e-12, "fatol": 1e-15, "maxiter": 20000},
            )  # fmt: skip
            best = min(best, r.fun)
    return best


@pytest.mark.parametrize("plug_in", [False, True])
def test_shifted_statistic_equals_the_brute_force_glr_over_the_epsilon_alternatives(plug_in):
    """D290: ``Z^eps`` is the statistic with the challenger's mean shifted by -eps."""
    gen = np.random.default_rng(7)
    for _ in range(25):
        counts = gen.integers(2, 60, size=2).astype(np.int64)
        means = gen.normal(0.0, 1.0, size=2)
        variances = gen.uniform(0.1, 3.0, size=2)
        eps = float(gen.choice([0.0, 0.05, 0.3, 1.0, 2.5]))
        best = int(np.argmax(means))
        a = 1 - best
        out = np.empty(2)
        rules.epsilon_stats_into(counts, means, variances, plug_in, best, eps, out)
        want = brute_force(
            means[best], variances[best], counts[best], means[a], variances[a], counts[a],
            eps, plug_in,
        )  # fmt: skip
        assert out[best] == math.inf
        assert out[a] == pytest.approx(want, rel=1e-7, abs=1e-10), (counts, means, eps)


def test_stop_check_caches_the_epsilon_statistic_apart_from_the_sampling_rules():
    """D291: the stopping check fills the epsilon block only, with the values of
    ``epsilon_stats_into`` bit for bit; the block of epsilon = 0 (read by the rules without
    a zone) stays empty."""
    gen = np.random.default_rng(3)
    K = 5
    spec = threshold_spec("heuristic", K, 0.5, ())
    for plug_in in (False, True):
        for eps in (0.01, 0.4):
            sp = with_epsilon(spec, eps)
            assert sp.fparams[P_EPS] == eps and spec.fparams[P_EPS] == 0.0
            for _ in range(20):
                counts = gen.integers(200, 5000, size=K).astype(np.int64)
                means = gen.normal(0.0, 0.3, size=K)
                variances = gen.uniform(0.5, 2.0, size=K)
                best = int(np.argmax(means))
                zc, zf = rules.new_zcache(K)
                states = np.zeros((K, 6))
                t = int(counts.sum())
                run = RunState(counts, means, np.zeros(K), variances, states, zc, zf, t, best,
                               0, -math.inf, math.inf, -1, 0)  # fmt: skip
                stop = StopRule(sp.code, sp.fparams, sp.table, False, plug_in, 0.0, 0.0)
                rules.glr_stop_check_builtin(run, stop)
                want = np.empty(K)
                rules.epsilon_stats_into(counts, means, variances, plug_in, best, eps, want)
                for f in (ZF_OK, ZF_BND, ZF_RAT):
                    assert not zf[f].any()
                done = zf[ZF_OK + EPS_FLAGS] != 0
                assert done.any()
                assert np.array_equal(zc[ZC_Z + EPS_ROWS][done], want[done])


# ----------------------------------------------------------------------------- epsilon = 0
def test_zero_epsilon_is_the_default_and_leaves_the_spec_shared():
    spec = threshold_spec("box", 3, math.log(100), ())
    assert with_epsilon(spec, 0.0) is spec and spec.fparams[P_EPS] == 0.0
    gen_a, gen_b = np.random.default_rng(5), np.random.default_rng(5)
    inst = GaussianInstance(np.array([1.0, 0.5, 0.3]), np.array([1.0, 0.5, 2.0]))
    a = drive(BestArmIdentifier(3, 0.05, "tci", "box", rng=gen_a), inst, gen_a)
    b = drive(BestArmIdentifier(3, 0.05, "tci", "box", epsilon=0.0, rng=gen_b), inst, gen_b)
    sa, sb = a.summary(), b.summary()
    assert sa == sb and sa["epsilon"] == 0.0
    assert np.array_equal(a.glr(), b.glr())


def drive(idf, inst, gen):
    sd = np.sqrt(inst.sigma2)
    while not idf.done:
        a = idf.next_arm()
        idf.observe(a, inst.mu[a] + sd[a] * gen.standard_normal())
    return idf


# ----------------------------------------------------------------------------- three paths
NEAR = GaussianInstance(np.array([1.0, 0.97, 0.6, 0.2]), np.array([1.0, 0.8, 1.5, 1.0]))


@pytest.mark.parametrize(
    "sampling,threshold",
    [("tci", "bob"), ("tci", "heuristic"), ("ev-tci", "ev-box"), ("tas", "kl")],
)
def test_identifier_replay_and_simulator_take_the_same_epsilon_decisions(sampling, threshold):
    """The stopping check inlined in the simulator's loop (with its certified enclosures),
    in the batched replay and in the identifier stops at the same sample with epsilon."""
    eps = 0.1
    for seed in range(2):
        s = RunSettings(threshold=threshold, delta=0.05, epsilon=eps)
        alg = {"tci": "TCI", "ev-tci": "EV-TCI", "tas": "TaS"}[sampling]
        r = simulate_run(NEAR, alg, settings=s, rng=np.random.default_rng(seed))
        g = np.random.default_rng(seed)
        idf = BestArmIdentifier(4, 0.05, sampling, threshold, epsilon=eps, rng=g)
        arms, values = [], []
        sd = np.sqrt(NEAR.sigma2)
        while not idf.done:
            a = idf.next_arm()
            x = NEAR.mu[a] + sd[a] * g.standard_normal()
            arms.append(a)
            values.append(x)
            idf.observe(a, x)
        assert (idf.n_samples, idf.summary()["counts"], idf.recommendation) == (
            r["stopping_time"], r["counts"], r["recommendation"],
        )  # fmt: skip
        rep = BestArmIdentifier(4, 0.05, sampling, threshold, epsilon=eps, strict=False)
        used = rep.observe_many(np.array(arms), np.array(values))
        assert used == len(arms) and rep.done and rep.recommendation == idf.recommendation
        assert np.array_equal(rep.glr(), idf.glr())
        assert rep.p_value == idf.p_value or rep.p_value >= idf.p_value  # D270: last row only


def test_epsilon_changes_the_stopping_rule_only_for_the_rules_that_do_not_read_it():
    """D323: with the same stream, a run of DKM (which does not read epsilon), or of TCI /
    EV-TCI told to sample with the challenger of epsilon = 0 (``sampling_epsilon=0``),
    samples as the run without a zone and stops no later (the epsilon-statistic is at
    least the exact one, against the same thresholds); TCI with its sampling zone (the
    default, ``epsilon``) samples otherwise on some seed."""
    changed = False
    for alg, thr, s_eps in [
        ("TCI", "heuristic", 0.0),
        ("EV-TCI", "ev-bob", 0.0),
        ("DKM", "box", None),
    ]:
        for seed in range(3):
            s = RunSettings(threshold=thr, delta=0.05, epsilon=0.05, sampling_epsilon=s_eps)
            r = simulate_run(NEAR, alg, settings=s, rng=np.random.default_rng(seed))
            s0 = RunSettings(threshold=thr, delta=0.05, max_samples=r["stopping_time"])
            r0 = simulate_run(NEAR, alg, settings=s0, rng=np.random.default_rng(seed))
            assert r0["counts"] == r["counts"], (alg, seed)
            assert r0["truncated"] or r0["stopping_time"] == r["stopping_time"]
            if alg == "TCI":
                s1 = RunSettings(threshold=thr, delta=0.05, epsilon=0.05)
                r1 = simulate_run(NEAR, alg, settings=s1, rng=np.random.default_rng(seed))
                changed |= r1["counts"] != r["counts"]
    assert changed


# ----------------------------------------------------------------------------- ties stop
def test_two_tied_best_arms_stop_with_epsilon_and_recommend_one_of_them():
    # uniform sampling (the Top Two rules with their zone: test_eps_challenger.py, D323)
    inst_mu = np.array([1.0, 1.0, 0.6, 0.5])
    sd = np.ones(4)
    for seed in range(3):
        g = np.random.default_rng(seed)
        idf = BestArmIdentifier(4, 0.05, "uniform", "bob", epsilon=0.25, rng=g, max_samples=10**5)
        while not idf.done:
            a = idf.next_arm()
            idf.observe(a, inst_mu[a] + sd[a] * g.standard_normal())
        assert idf.stop_reason == "glr" and idf.recommendation in (0, 1)
        assert idf.p_value <= 0.05 and idf.p_value_recommendation == idf.recommendation
        text = idf.format_summary()
        assert "epsilon 0.25" in text and "more than 0.25 below the best" in text
    # epsilon = 0 on the same tie does not stop before the budget
    g = np.random.default_rng(0)
    idf = BestArmIdentifier(4, 0.05, "uniform", "bob", rng=g, max_samples=idf.n_samples * 3)
    while not idf.done:
        a = idf.next_arm()
        idf.observe(a, inst_mu[a] + sd[a] * g.standard_normal())
    assert idf.stop_reason == "budget"


# ----------------------------------------------------------------------------- Monte Carlo
#: Two arms, the second 1.5 epsilon below the first: recommending it is an error beyond
#: epsilon. A zone so wide that the rule stops as soon as the thresholds are finite
#: recommends it in more than a delta share of the runs.
EPS = 0.2
PAIR = GaussianInstance(np.array([0.0, -1.5 * EPS]), np.array([1.0, 1.0]))
MC_DELTA = 0.1
MC_RUNS = 2000


def _errors(alg: str, threshold: str, eps: float, runs: int) -> tuple[int, int]:
    """``(runs recommending arm 1, runs stopped by the budget)`` on :data:`PAIR`."""
    runner = Runner(ALGORITHMS[alg], RunSettings(threshold=threshold, delta=MC_DELTA, epsilon=eps))
    bad = trunc = 0
    for r in range(runs):
        rng = generator_of(run_seed(0, "epsilon-mc", 0, alg, r))
        _, rec, _, truncated, _ = runner(PAIR.mu, PAIR.sigma2, rng)
        bad += not is_epsilon_good(PAIR.mu, rec, EPS)
        trunc += truncated
    return bad, trunc


@pytest.mark.parametrize("alg,threshold", [("TCI", "box"), ("EV-TCI", "ev-box")])
def test_monte_carlo_errors_beyond_epsilon_stay_below_delta(alg, threshold):
    """D292: P(recommendation more than epsilon below the best) <= delta (measured: 0 of
    2000 runs, mean stopping time about 930, for both rules). The instance produces such
    errors when the rule stops too early: with a zone of 5 (about 60 samples) the
    recommendation is arm 1 in 48 and 61 of 400 runs."""
    bad, trunc = _errors(alg, threshold, EPS, MC_RUNS)
    assert trunc == 0
    # Wilson upper bound at 99.9 % of the error rate below delta / 2: a safe margin
    z = 3.29
    p = bad / MC_RUNS
    up = p + z * z / (2 * MC_RUNS) + z * math.sqrt(p * (1 - p) / MC_RUNS + z * z / (4 * MC_RUNS**2))
    up /= 1 + z * z / MC_RUNS
    assert up < MC_DELTA / 2, (bad, MC_RUNS)
    wide, _ = _errors(alg, threshold, 5.0, 400)
    assert wide / 400 > MC_DELTA, wide


# ----------------------------------------------------------------------------- p-value
def test_p_value_with_epsilon_is_at_most_the_exact_one_on_the_same_data():
    """D293: the p-value of "more than epsilon below the best" reads the epsilon-statistic,
    at least the exact one, so on the same observations it is at most the exact p-value;
    at the epsilon-rule's stop it is at most delta."""
    g = np.random.default_rng(11)
    arms = np.tile(np.arange(3), 3000)
    values = np.array([0.3, 0.25, 0.0])[arms] + g.standard_normal(arms.size)
    eps_idf = BestArmIdentifier(3, 0.05, "uniform", "box", epsilon=0.2, strict=False)
    n = 0
    while not eps_idf.done:
        eps_idf.observe(int(arms[n]), float(values[n]))
        n += 1
    exact = BestArmIdentifier(3, 0.05, "uniform", "box", strict=False)
    for a, x in zip(arms[:n], values[:n], strict=True):
        if not exact.done:
            exact.observe(int(a), float(x))
    assert eps_idf.stop_reason == "glr" and eps_idf.p_value <= 0.05
    assert eps_idf.p_value < exact.p_value


# ----------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("bad", [-0.1, -1e-300, math.nan, math.inf, "0.1", True, None, 1e51])
def test_bad_epsilon_is_refused_everywhere(bad):
    with pytest.raises(ValueError, match="epsilon must be a finite number >= 0"):
        BestArmIdentifier(3, 0.05, epsilon=bad)
    with pytest.raises(ValueError, match="epsilon must be a finite number >= 0"):
        RunSettings(epsilon=bad)
    with pytest.raises(ValueError, match="epsilon must be a finite number >= 0"):
        plan_experiment([1.0, 0.0], [1.0, 1.0], 0.1, runs=0, epsilon=bad)


def test_bad_epsilon_on_the_command_line(capsys):
    assert main(["identify", "--simulate", "easy", "--quiet", "--epsilon", "-0.5"]) == 2
    assert "epsilon must be a finite number >= 0" in capsys.readouterr().err
    assert main(["plan", "--means", "1,0", "--sd", "1,1", "--epsilon", "nan", "--runs", "0"]) == 2
    assert "epsilon must be a finite number >= 0" in capsys.readouterr().err


def test_check_epsilon_bounds():
    assert MAX_EPSILON == MAX_ABS_VALUE
    assert check_epsilon(0) == 0.0 and math.copysign(1.0, check_epsilon(-0.0)) == 1.0
    assert check_epsilon(MAX_EPSILON) == MAX_EPSILON


# ----------------------------------------------------------------------------- outputs
def test_summary_guarantee_and_command_output(capsys):
    idf = BestArmIdentifier(2, 0.05, "tci", "box", epsilon=0.3, rng=1)
    gen = np.random.default_rng(2)
    drive(idf, GaussianInstance(np.array([0.5, 0.45]), np.array([1.0, 1.0])), gen)
    s = idf.summary()
    assert s["epsilon"] == 0.3 and idf.epsilon == 0.3
    from baiuv.simulation.identify_summary import guarantee_text

    assert "within 0.3 of the best with probability >= 1 - 0.05" in guarantee_text(s)
    assert main(
        ["identify", "--simulate", "1,0.98,0.5;1,1,1", "--epsilon", "0.2", "--quiet", "--sampling", "uniform",
         "--delta", "0.05", "--json"]
    ) == 0  # fmt: skip
    out = json.loads(capsys.readouterr().out)
    assert out["epsilon"] == 0.2 and out["recommendation"] in (0, 1)


def test_plan_with_epsilon_allows_ties_and_counts_errors_beyond_epsilon():
    p = plan_experiment(
        [0.12, 0.12, 0.0], [0.3, 0.3, 0.3], 0.05, runs=20, epsilon=0.05, sampling="uniform"
    )
    assert p["epsilon"] == 0.05 and p["best_arm"] is None
    assert p["T_star"] is None and p["lower_bound"] is None and p["optimal_allocation"] is None
    assert p["errors"] == 0 and p["truncated"] == 0 and p["stopping_time_mean"] > 0
    with pytest.raises(ValueError, match="unique largest value"):
        plan_experiment([0.12, 0.12], [0.3, 0.3], 0.05, runs=0)
    # a unique best: T* and w* of exact identification, no Lemma 2 bound
    q = plan_experiment([1.0, 0.0], [1.0, 1.0], 0.05, runs=0, epsilon=0.1)
    assert q["T_star"] == pytest.approx(8.9628, abs=1e-4) and q["lower_bound"] is None
    # the runs of the planner are the simulator's, run by run
    runner = Runner(ALGORITHMS["uniform"], RunSettings(delta=0.05, threshold="bob", epsilon=0.05))
    mu, s2 = np.array([0.12, 0.12, 0.0]), np.full(3, 0.09)
    taus = [
        runner(mu, s2, generator_of(run_seed(0, "plan", 0, "uniform", r)))[0] for r in range(20)
    ]
    assert p["stopping_time_mean"] == pytest.approx(np.mean(taus), rel=1e-12)
    buf = io.StringIO()
    from baiuv.cli_plan import format_plan

    buf.write(format_plan(p))
    text = buf.getvalue()
    assert "best arm tied" in text and "ε = 0.05" in text and "no lower bound" in text
    assert "errors (more than ε = 0.05 below the best): 0/20" in text
