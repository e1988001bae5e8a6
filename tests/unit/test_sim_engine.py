"""End-to-end behaviour of the simulation engine."""

import math

import numpy as np
import pandas as pd
import pytest
from reference_runs import reference_uniform

from baiuv import EASY, GaussianInstance, optimal_allocation
from baiuv.experiments.stopping_times import (
    RUN_COLUMNS,
    Experiment,
    aggregate_shards,
    run_shard,
)
from baiuv.simulation import (
    ALGORITHMS,
    RunSettings,
    fhn_n0,
    shard_runs,
    simulate_run,
)
from baiuv.simulation.engine import DECISION_COLUMNS

EASY3 = GaussianInstance(np.array([1.0, 0.4, 0.0]), np.array([0.5, 0.5, 0.5]), "easy3")


@pytest.mark.parametrize("alg", list(ALGORITHMS))
def test_every_algorithm_is_correct_on_easy_instance(alg):
    """>= 98% of 200 runs (fixed seeds) recommend the best arm at delta = 0.01."""
    s = RunSettings(delta=0.01)
    rs = [simulate_run(EASY3, alg, settings=s, seed=11, experiment="t", run=r) for r in range(200)]
    correct = sum(r["correct"] for r in rs)
    assert correct >= 196, (alg, correct)
    assert not any(r["truncated"] for r in rs)
    for r in rs:
        assert sum(r["counts"]) == r["stopping_time"]
        if ALGORITHMS[alg].kernel == "glr":
            assert min(r["counts"]) >= 2


@pytest.mark.slow  # a pure-Python loop recomputes every statistic at every step
@pytest.mark.parametrize("plug_in", [False, True])
def test_engine_loop_matches_reference_implementation(plug_in):
    from baiuv.registry import Algorithm

    alg = Algorithm(
        name="uniform-test", kernel="glr", rule=ALGORITHMS["uniform"].rule, plug_in=plug_in
    )
    inst = GaussianInstance(np.array([0.5, 0.2, 0.0, 0.1]), np.array([1.0, 0.3, 2.0, 0.5]))
    for run in range(15):
        r = simulate_run(inst, alg, rng=np.random.default_rng(run))
        tau, rec = reference_uniform(
            inst.mu, inst.sigma2, 2, 0.01, np.random.default_rng(run), plug_in=plug_in
        )
        assert (r["stopping_time"], r["recommendation"]) == (tau, rec)


@pytest.mark.parametrize("alg,known", [("TaS", False), ("EV-TaS", True)])
def test_tas_proportions_converge_to_optimal_allocation(alg, known):
    """Long run (delta = 1e-300): TaS tracks w*(mu, sigma^2), EV-TaS w*_{sigma^2}(mu).
    On EASY the two allocations differ by > 0.04 in the best arm's weight."""
    w_unknown = optimal_allocation(EASY.mu, EASY.sigma2)
    w_known = optimal_allocation(EASY.mu, EASY.sigma2, known_variance=True)
    assert abs(w_unknown[0] - w_known[0]) > 0.04
    target = w_known if known else w_unknown
    other = w_unknown if known else w_known
    s = RunSettings(delta=1e-300)
    props = []
    for run in range(3):
        r = simulate_run(EASY, alg, settings=s, seed=5, run=run)
        assert r["stopping_time"] > 3000
        props.append(np.array(r["counts"]) / r["stopping_time"])
    p = np.mean(props, axis=0)
    assert np.abs(p - target).max() < 0.02
    assert np.abs(p - target).max() < np.abs(p - other).max()


def test_tci_pulls_leader_a_beta_fraction():
    """On a long run the leader is (nearly always) the best arm: N_best / t ~ beta."""
    for beta in (0.5, 0.7):
        s = RunSettings(delta=1e-100, beta=beta)
        r = simulate_run(EASY3, "TCI", settings=s, seed=1)
        n = r["stopping_time"]
        assert n > 3000
        frac = r["counts"][0] / n
        assert abs(frac - beta) < 5 * math.sqrt(beta * (1 - beta) / n) + 0.01


def test_same_seed_same_output_and_different_seeds_differ():
    a = simulate_run(EASY3, "DKM", seed=3, run=1)
    b = simulate_run(EASY3, "DKM", seed=3, run=1)
    c = simulate_run(EASY3, "DKM", seed=3, run=2)
    a.pop("wall_time"), b.pop("wall_time"), c.pop("wall_time")
    assert a == b
    assert a["seed_entropy"] == "3" and a != c


@pytest.mark.parametrize("kind", ["named", "random"])
def test_shards_do_not_change_results(kind):
    if kind == "named":
        exp = Experiment("shard-test", "named", 10, EASY3)
    else:
        exp = Experiment("shard-test", "random", 2, None, n_instances=5, K=4)
    s = RunSettings()
    for alg in ("TCI", "FWS", "FHN2"):
        one = run_shard(exp, alg, seed=9, settings=s)
        four = aggregate_shards(
            [run_shard(exp, alg, seed=9, settings=s, n_shards=4, shard=i) for i in range(4)]
        )
        cols = [c for c in one.columns if c != "wall_time"]
        pd.testing.assert_frame_equal(one[cols].reset_index(drop=True), four[cols])
        assert len(one) == exp.n_total


def test_aggregate_refuses_a_run_simulated_twice_and_empty_shards():
    exp = Experiment("dup-test", "named", 4, EASY3)
    s = RunSettings(delta=0.1)
    a = run_shard(exp, "TCI", seed=2, settings=s, n_shards=2, shard=0)
    b = run_shard(exp, "TCI", seed=2, settings=s, n_shards=2, shard=1)
    assert list(a.columns) == list(RUN_COLUMNS)
    assert len(aggregate_shards([b, a])) == 4
    with pytest.raises(ValueError, match="2 duplicated runs"):
        aggregate_shards([a, b, a])
    with pytest.raises(ValueError, match="at least one non-empty"):
        aggregate_shards([a.iloc[:0]])


def test_random_instances_do_not_depend_on_count():
    small = Experiment("r", "random", 1, None, n_instances=3)
    large = Experiment("r", "random", 1, None, n_instances=50)
    for i in range(3):
        a, b = small.instance_at(i, 4)[1], large.instance_at(i, 4)[1]
        assert np.array_equal(a.mu, b.mu) and np.array_equal(a.sigma2, b.sigma2)
        assert a.mu[0] == 0 and a.sigma2[0] == 1
        assert np.all((-a.mu[1:] >= 0.2) & (-a.mu[1:] <= 1.0))
        assert np.all((a.sigma2[1:] >= 0.1) & (a.sigma2[1:] <= 10))


def test_random_instances_are_kept_and_keyed_by_every_parameter():
    # instance i of a random experiment is drawn from run_seed(seed, name, "instances", 0, i)
    # once per process and shared (its arrays are read-only); any parameter changes it
    from baiuv.model.instance import random_instance
    from baiuv.simulation.rng import run_generator

    exp = Experiment("kept", "random", 1, None, n_instances=4, K=6, gap_range=(0.3, 0.9))
    first = exp.instance_at(2, 5)[1]
    fresh = random_instance(run_generator(5, "kept", "instances", 0, 2), 6, (0.3, 0.9), (0.1, 10.0))
    assert np.array_equal(first.mu, fresh.mu) and np.array_equal(first.sigma2, fresh.sigma2)
    assert exp.instance_at(2, 5)[1] is first and not first.mu.flags.writeable
    others = [
        exp.instance_at(2, 6)[1],
        exp.instance_at(3, 5)[1],
        Experiment("other", "random", 1, None, 4, 6, (0.3, 0.9)).instance_at(2, 5)[1],
        Experiment("kept", "random", 1, None, 4, 7, (0.3, 0.9)).instance_at(2, 5)[1],
        Experiment("kept", "random", 1, None, 4, 6, (0.3, 0.8)).instance_at(2, 5)[1],
        Experiment("kept", "random", 1, None, 4, 6, (0.3, 0.9), (0.1, 5.0)).instance_at(2, 5)[1],
    ]
    for other in others:
        assert (
            other.K != first.K
            or not np.array_equal(other.mu, first.mu)
            or not (np.array_equal(other.sigma2, first.sigma2))
        )


def test_run_cell_rows_are_those_of_simulate_run():
    # run_cell prepares the kernel call once per cell: each row is still simulate_run's
    exp = Experiment("rows", "random", 2, None, n_instances=3, K=5)
    s = RunSettings(delta=0.1)
    for alg in ("TCI", "fixed", "FHN1", "EV-TaS"):
        df = run_shard(exp, alg, seed=8, settings=s)
        for row in df.itertuples():
            inst = exp.instance_at(row.instance_index, 8)[1]
            one = simulate_run(
                inst,
                alg,
                settings=s,
                seed=8,
                experiment="rows",
                instance_id=row.instance,
                run=row.run,
            )
            for c in DECISION_COLUMNS + ("seed_entropy", "spawn_key"):
                assert getattr(row, c) == one[c], (alg, c)


def test_shard_runs_partition():
    for n in (0, 1, 7, 100):
        for k in (1, 3, 8):
            parts = [list(shard_runs(n, k, i)) for i in range(k)]
            assert sum(parts, []) == list(range(n))


def test_fhn_n0():
    assert fhn_n0(0.01) == 47  # ceil(10 log 100) = ceil(46.05)
    assert fhn_n0(0.9) == 2


def test_fixed_tracks_true_allocation():
    s = RunSettings(delta=1e-60)
    r = simulate_run(EASY, "fixed", settings=s, seed=2)
    w = optimal_allocation(EASY.mu, EASY.sigma2)
    assert np.abs(np.array(r["counts"]) / r["stopping_time"] - w).max() < 2 * 5 / r["stopping_time"]


def test_truncation_flag():
    r = simulate_run(EASY3, "TaS", settings=RunSettings(delta=1e-300, max_samples=100), seed=1)
    assert r["truncated"] and r["stopping_time"] == 100


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"delta": 1.5}, "delta"),
        ({"threshold": "nope"}, "threshold"),
        ({"n0": 1}, "n0"),
        ({"beta": 1.0}, "beta"),
        ({"max_samples": 0}, "max_samples"),
        ({"fhn_n0": 1}, "fhn_n0"),
    ],
)
def test_bad_settings(kwargs, match):
    with pytest.raises(ValueError, match=match):
        RunSettings(**kwargs)


def test_bad_arguments():
    with pytest.raises(ValueError, match="algorithm"):
        simulate_run(EASY3, "nope")
    with pytest.raises(ValueError, match="instance"):
        simulate_run((1, 2), "TaS")
    with pytest.raises(ValueError, match="runs"):
        Experiment("x", "named", 0, EASY3)
    with pytest.raises(ValueError, match="n_shards"):
        shard_runs(3, 0, 0)
    with pytest.raises(ValueError, match="frames"):
        aggregate_shards([])


@pytest.mark.parametrize("threshold", ["student", "box", "kl", "ev-box"])
def test_other_threshold_families_run(threshold):
    s = RunSettings(threshold=threshold, delta=0.05)
    alg = "EV-TCI" if threshold.startswith("ev") else "TCI"
    r = simulate_run(EASY3, alg, settings=s, seed=1)
    r_h = simulate_run(EASY3, alg, settings=RunSettings(delta=0.05), seed=1)
    assert r["correct"] and not r["truncated"]
    assert r["stopping_time"] >= r_h["stopping_time"]  # calibrated thresholds are larger
