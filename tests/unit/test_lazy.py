"""Lazy stopping rule (end of Section ssec:simulations_stopping_thresholds, decision D70)."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from reference_runs import reference_uniform

from baiuv import STANDARD, GaussianInstance
from baiuv.registry import RULE_UNIFORM, Algorithm
from baiuv.simulation import RunSettings, simulate_run
from baiuv.simulation.rules import lazy_check_time, lazy_next_index

INST = GaussianInstance(np.array([0.5, 0.2, 0.0]), np.array([1.0, 0.3, 2.0]))


def _grid(t0, rho, t_max):
    """Brute force: the set {ceil(t0 rho^k) : k >= 0} up to t_max."""
    out, k = [], 0
    while True:
        v = math.ceil(t0 * rho**k)
        if v > t_max:
            return sorted(set(out))
        out.append(v)
        k += 1


@given(
    t0=st.integers(2, 200),
    rho=st.floats(1.001, 3.0),
    t=st.integers(0, 5000),
    k=st.integers(0, 20),
)
def test_lazy_next_index(t0, rho, t, k):
    k2 = lazy_next_index(t, float(t0), rho, k)
    assert k2 >= k
    assert lazy_check_time(float(t0), rho, k2) > t
    assert k2 == k or lazy_check_time(float(t0), rho, k2 - 1) <= t
    assert lazy_check_time(float(t0), rho, k) == math.ceil(t0 * rho**k)


@pytest.mark.parametrize("rho", [1.1, 1.5, 2.0])
def test_lazy_engine_matches_reference(rho):
    alg = Algorithm(name="uniform-test", kernel="glr", rule=RULE_UNIFORM, plug_in=False)
    s = RunSettings(delta=0.01, lazy_ratio=rho)
    for run in range(10):
        r = simulate_run(INST, alg, settings=s, rng=np.random.default_rng(run))
        # the stopping rule at the brute-force grid times only
        grid = set(_grid(2 * INST.mu.size, rho, 10**6))
        tau, rec = reference_uniform(
            INST.mu, INST.sigma2, 2, 0.01, np.random.default_rng(run), check=grid.__contains__
        )
        assert (r["stopping_time"], r["recommendation"]) == (tau, rec)


@pytest.mark.parametrize(
    # TaS solves its oracle at every step: its runs are the long ones
    "alg,thr",
    [("TCI", "bob"), ("EV-TCI", "ev-box"), pytest.param("TaS", "box", marks=pytest.mark.slow)],
)
def test_lazy_stops_on_the_grid_and_not_before_the_eager_rule(alg, thr):
    """Same stream: the check consumes no randomness, so the lazy run follows the eager
    trajectory and stops at a grid time >= the eager stopping time."""
    for run in range(3):
        eager = simulate_run(
            STANDARD,
            alg,
            settings=RunSettings(threshold=thr, delta=0.1),
            rng=np.random.default_rng(run),
        )
        lazy = simulate_run(
            STANDARD,
            alg,
            settings=RunSettings(threshold=thr, delta=0.1, lazy_ratio=1.1),
            rng=np.random.default_rng(run),
        )
        tau = lazy["stopping_time"]
        assert tau in _grid(10, 1.1, tau)
        assert tau >= eager["stopping_time"]
        # the trajectory up to the eager stopping time is the same
        assert sum(lazy["counts"]) == tau
        assert all(c >= e for c, e in zip(lazy["counts"], eager["counts"], strict=True))


@pytest.mark.parametrize("bad", [1.0, 0.5, -2.0, math.inf, math.nan, "1.1", True])
def test_bad_lazy_ratio(bad):
    with pytest.raises(ValueError, match="lazy_ratio"):
        RunSettings(lazy_ratio=bad)
