"""The cached upper bounds of the pair thresholds (decision D348) and the lower bound of a
pair with one arm below the family's monotone count (decision D349): each bound holds at
every pair of counts of its window, and the runs are the same with and without them."""

from __future__ import annotations

import math

import numpy as np
import pytest
from cache_bounds import without_cached_bounds
from hypothesis import given, settings
from hypothesis import strategies as st

from baiuv.model.instance import STANDARD
from baiuv.simulation import RunSettings
from baiuv.simulation.engine import simulate_run
from baiuv.thresholds import ThresholdParams, make_threshold
from baiuv.thresholds import kernels as k

BOUNDED = ["box", "ev-box", "bob", "ev-bob", "kl", "student", "ev-student", "ev-heuristic-student"]


def _state(spec, n, mean, var):
    state = k.new_state()
    k.update_state(spec.code, spec.fparams, state, n, mean, var)
    return state


def _level(spec, n):
    return k.peeling_level(float(n), spec.fparams[k.P_GAMMA])


@settings(max_examples=300, deadline=None)
@given(
    fam=st.sampled_from(BOUNDED),
    lid=st.floats(0.1, 60.0),
    K=st.integers(2, 30),
    s=st.floats(1.05, 4.0),
    gamma=st.floats(1.05, 2.0),
    mv=st.tuples(st.floats(-3, 3), st.floats(1e-2, 1e2), st.floats(-3, 3), st.floats(1e-2, 1e2)),
    data=st.data(),
)
def test_upper_bound_above_every_pair_of_its_window(fam, lid, K, s, gamma, mv, data):
    """``pair_upper_bound`` is at least the pair threshold, computed by the family's kernel,
    at every pair of counts of its window whose states stay at their peeling levels (the
    window's ends and a point inside, counts from the initial count to ``10^8``)."""
    spec = make_threshold(fam, K, log_inv_delta=lid, params=ThresholdParams(s=s, gamma=gamma))
    fp = spec.fparams
    n0 = int(max(fp[k.P_NMIN], fp[k.P_NMIN_KL] if fam in ("bob", "ev-bob") else 0))
    top = data.draw(st.sampled_from([40, 2_000, 10**8]))
    ns = [data.draw(st.integers(n0, max(n0, top))) for _ in range(2)]
    states = [_state(spec, n, mv[2 * j], mv[2 * j + 1]) for j, n in enumerate(ns)]
    ub, hi_a, hi_b = k.pair_upper_bound(spec.code, fp, spec.table, ns[0], ns[1], *states)
    if not math.isfinite(ub):  # none: an infinite threshold, or both Student arms below
        c = k.pair_threshold_kernel(spec.code, fp, spec.table, 0.0, ns[0], ns[1], *states)
        below = all(n < fp[k.P_LB_NMIN] for n in ns)
        assert math.isinf(c) or (fam in ("student", "ev-student") and below), (fam, ns, c)
        return
    assert hi_a >= ns[0] and hi_b >= ns[1]
    for pick in ("low", "high", "inside"):
        xs = []
        for n, hi in zip(ns, (hi_a, hi_b), strict=True):
            x = {"low": n, "high": int(hi)}.get(pick) or data.draw(st.integers(n, int(hi)))
            if _level(spec, x) != _level(spec, n):
                x = n  # the cache drops the bound when a state changes level
            xs.append(x)
        c = k.pair_threshold_kernel(spec.code, fp, spec.table, 0.0, xs[0], xs[1], *states)
        assert c <= ub + k.LB_MARGIN * (1.0 + abs(ub)), (fam, ns, xs, ub, c)


@pytest.mark.parametrize("fam", ["bob", "ev-bob"])
def test_bob_below_its_box_bound_written_out(fam):
    """BoB (EV-BoB) is at most the Box threshold written with its own constants (the
    paper: BoB(δ) ≤ Box(δ/2)), the Box formula written out here."""
    spec = make_threshold(fam, 5, 0.01)
    fp = spec.fparams
    g = np.random.default_rng(3)
    checked = 0
    for _ in range(400):
        na, nb = (int(x) for x in np.exp(g.uniform(math.log(fp[k.P_NMIN]), math.log(1e7), 2)))
        states = [_state(spec, n, g.normal(), g.exponential()) for n in (na, nb)]
        c = k.pair_threshold_kernel(spec.code, fp, spec.table, 0.0, na, nb, *states)
        terms = []
        for n in (na, nb):
            cn, dn = k.box_constants(float(n), fp[k.P_LBOX], fp[k.P_S], fp[k.P_ETA0])
            terms.append(n * (cn / dn if fam == "ev-bob" else math.log1p(cn / dn)))
        box = 0.5 * sum(terms)
        if math.isfinite(c):
            checked += 1
            assert c <= box * (1.0 + 1e-12), (na, nb, c, box)
    assert checked > 100


@settings(max_examples=200, deadline=None)
@given(
    fam=st.sampled_from(["student", "ev-student"]),
    lid=st.floats(0.1, 40.0),
    K=st.integers(2, 50),
    s=st.floats(1.05, 4.0),
    data=st.data(),
)
def test_frozen_arm_lower_bound(fam, lid, K, s, data):
    """With one arm below ``P_LB_NMIN`` and its count unchanged, the Student threshold does not
    decrease as the other arm's count grows from ``P_LB_NMIN`` on (D349)."""
    spec = make_threshold(fam, K, log_inv_delta=lid, params=ThresholdParams(s=s))
    fp = spec.fparams
    n_star = fp[k.P_LB_NMIN]
    if not math.isfinite(n_star) or n_star <= fp[k.P_NMIN]:
        return
    na = data.draw(st.integers(int(fp[k.P_NMIN]), int(n_star) - 1))
    nb = data.draw(st.integers(int(n_star), 2**30))
    nb2 = data.draw(st.integers(nb, min(2**30, nb + data.draw(st.sampled_from([1, 5, 10**9])))))
    st0 = k.new_state()
    c = k.pair_threshold_kernel(spec.code, fp, spec.table, 0.0, na, nb, st0, st0)
    c2 = k.pair_threshold_kernel(spec.code, fp, spec.table, 0.0, na, nb2, st0, st0)
    assert c2 >= c - k.LB_MARGIN * (1.0 + abs(c)), (na, nb, nb2, c, c2)


def _starved(fam):
    """EV-TCI on the standard instance, n0 = 2, a run that starves an arm (seed 25: arm 2
    keeps its two samples) and four other runs, to 60 000 samples."""
    s = RunSettings(threshold=fam, delta=0.01, max_samples=60_000)
    out = []
    for r in (25, 0, 1, 2, 3):
        res = simulate_run(STANDARD, "EV-TCI", settings=s, rng=np.random.default_rng(r))
        out.append((res["stopping_time"], res["recommendation"], list(res["counts"])))
    return out


@pytest.mark.parametrize("fam", ["ev-box", "ev-bob", "ev-student", "ev-heuristic-student"])
def test_starved_runs_same_without_cached_bounds(monkeypatch, fam):
    """The runs where an arm is starved (the regime the bounds are for: one pair fails on a
    bound for ever, the others pass) are the same without the bounds; the starved run is
    truncated with an arm at its two samples."""
    a = _starved(fam)
    with without_cached_bounds(monkeypatch):
        b = _starved(fam)
    assert a == b
    assert a[0][0] == 60_000 and min(a[0][2]) == 2


@settings(max_examples=200, deadline=None)
@given(
    lid=st.floats(0.01, 60.0),
    K=st.integers(2, 50),
    m=st.integers(2, 10**6),
    data=st.data(),
)
def test_student_calibrated_heuristic_frozen_smaller_arm(lid, K, m, data):
    """With the smaller count unchanged, the Student-calibrated heuristic does not decrease
    as the other count grows (D349)."""
    spec = make_threshold("ev-heuristic-student", K, log_inv_delta=lid)
    nb = data.draw(st.integers(m, 2**30))
    nb2 = data.draw(st.integers(nb, min(2**30, nb + data.draw(st.sampled_from([1, 7, 10**9])))))
    st0 = k.new_state()
    c = k.pair_threshold_kernel(spec.code, spec.fparams, spec.table, 0.0, m, nb, st0, st0)
    c2 = k.pair_threshold_kernel(spec.code, spec.fparams, spec.table, 0.0, nb2, m, st0, st0)
    assert c2 >= c - k.LB_MARGIN * (1.0 + abs(c)), (m, nb, nb2, c, c2)
