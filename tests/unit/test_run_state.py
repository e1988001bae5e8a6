"""The run state and its two steps (decision D350): ``observe_sample`` against the
statistics recomputed from the observations, ``check_step`` against the stopping rule's
decision on every statistic and threshold computed, and a loop over the state's value
that leaves no reference counting (its arrays borrowed, D247)."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit
from refcount_probe import refops

from baiuv.model.glr_kernels import glr_stats
from baiuv.simulation.engine import threshold_spec
from baiuv.simulation.rules.run_state import (
    FORCED,
    NOT_CHECKED,
    borrowed_rule,
    borrowed_state,
    check_step,
    new_run_state,
    observe_sample,
    owned_state,
    stop_rule,
)
from baiuv.simulation.rules.stopping import lazy_check_time, stops_builtin
from baiuv.simulation.rules.zcache import new_zcache
from baiuv.thresholds.kernels import STATE_SIZE, new_state, pair_threshold_kernel


def _new(K):
    states = np.empty((K, STATE_SIZE))
    for a in range(K):
        states[a] = new_state()
    stats = (np.zeros(K, dtype=np.int64), np.zeros(K), np.zeros(K), np.zeros(K))
    return new_run_state(stats, states, new_zcache(K), (-math.inf, math.inf, -1), 0)


@njit
def _feed(run, stop, arms, values, verdicts, forced_out):
    """Every observation, then a check (once every arm has two observations)."""
    owner = run
    run = borrowed_state(run)
    for i in range(arms.shape[0]):
        run, _ = observe_sample(run, stop, arms[i], values[i])
        verdicts[i] = NOT_CHECKED
        forced_out[i] = -1
        if run.counts.min() >= 2:
            run, forced, verdict = check_step(pair_threshold_kernel, run, stop, True)
            verdicts[i] = verdict
            forced_out[i] = forced
    return owned_state(run, owner)


@given(
    K=st.integers(2, 4),
    seed=st.integers(0, 2**31),
    family=st.sampled_from(["heuristic", "box", "ev-box", "student"]),
    lazy=st.sampled_from([0.0, 1.3]),
    ties=st.booleans(),
)
@settings(max_examples=12, deadline=None)
def test_steps_equal_the_statistics_and_decisions_recomputed(K, seed, family, lazy, ties):
    rng = np.random.default_rng(seed)
    n = 60
    arms = rng.integers(0, K, n).astype(np.int64)
    arms[: 2 * K] = np.tile(np.arange(K), 2)
    values = rng.normal(0.3 * np.arange(K)[arms], 1.0)
    if ties:  # repeated values: zero variances, uncertified arms, the guard
        values = np.round(values)
    plug_in = family.startswith("ev-")
    spec = threshold_spec(family, K, math.log(1 / 0.05), ())
    t0 = float(2 * K)
    stop = stop_rule(spec.code, spec.fparams, spec.table, plug_in, lazy, t0)
    verdicts = np.empty(n, dtype=np.int64)
    forced = np.empty(n, dtype=np.int64)
    run = _new(K)
    lazy_k = 0
    for i in range(n):  # a row at a time: each decision against the one recomputed
        run = _feed(run, stop, arms[i : i + 1], values[i : i + 1], verdicts[i:], forced[i:])
        if run.counts.min() < 2:
            assert verdicts[i] == NOT_CHECKED
            continue
        Z = glr_stats(run.counts, run.means, run.variances, plug_in)
        best = int(np.argmax(run.means))
        assert run.best == best
        degenerate = (run.variances <= 0).any() or not (np.delete(Z, best) < np.inf).all()
        assert (forced[i] >= 0) == degenerate
        t = run.t
        if lazy > 1.0 and t < lazy_check_time(t0, lazy, lazy_k):
            assert verdicts[i] == NOT_CHECKED
            continue
        while lazy > 1.0 and lazy_check_time(t0, lazy, lazy_k) <= t:
            lazy_k += 1
        if degenerate:
            assert verdicts[i] == FORCED
            continue
        stops = stops_builtin(spec.code, spec.fparams, spec.table, t, run.counts, best,
                              run.states, Z)  # fmt: skip
        assert (verdicts[i] == -1) == stops
    # the statistics, from the observations themselves
    for a in range(K):
        x = values[arms == a]
        assert run.counts[a] == x.size
        assert math.isclose(run.means[a], x.mean(), rel_tol=1e-12, abs_tol=1e-12)
        assert math.isclose(run.variances[a], x.var(), rel_tol=1e-9, abs_tol=1e-12)
    assert run.t == n and run.n_uncert == sum(not (1e-100 <= v <= 1e100) for v in run.variances)


@njit(inline="always")
def _steps(run, stop, arms, values):
    s = 0
    for i in range(arms.shape[0]):
        run, n = observe_sample(run, stop, arms[i], values[i])
        run, forced, verdict = check_step(pair_threshold_kernel, run, stop, True)
        s += n + forced + verdict
    return s


@njit
def _loop(run, stop, arms, values):
    return _steps(borrowed_state(run), borrowed_rule(stop), arms, values)


def test_a_loop_over_the_state_value_counts_no_references():
    """The steps inlined into a loop over borrowed views update no reference count: the
    only ones left are the loop's arguments ``arms`` and ``values`` (an increment and a
    decrement each, at most on two exits; with the state's own arrays, every step
    updates theirs)."""
    K = 3
    spec = threshold_spec("heuristic", K, math.log(100.0), ())
    stop = stop_rule(spec.code, spec.fparams, spec.table, False, 0.0, 6.0)
    arms = np.tile(np.arange(K, dtype=np.int64), 4)
    values = np.linspace(0.0, 1.0, arms.size)
    _loop(_new(K), stop, arms, values)
    assert refops(_loop) <= 6
