"""The cached lower bounds of the pair thresholds (decision D254): the runs are the same
with and without them, and the monotonicity they rest on holds over the families'
parameter ranges."""

from __future__ import annotations

import math

import numpy as np
import pytest
from cache_bounds import without_cached_bounds
from hypothesis import given, settings
from hypothesis import strategies as st

from baiuv import BestArmIdentifier, GaussianInstance
from baiuv.model.instance import STANDARD
from baiuv.simulation import ALGORITHMS, RunSettings
from baiuv.simulation.engine import simulate_run
from baiuv.thresholds import EV_FAMILIES, GLR_FAMILIES, ThresholdParams, make_threshold
from baiuv.thresholds import kernels as k

INSTANCES = {
    "standard": STANDARD,
    "close3": GaussianInstance([1.0, 0.95, 0.2], [0.5, 2.0, 0.05], "close3"),
    # nearly equal arms: no stop, counts well past every family's lower-bound count
    "flat": GaussianInstance([1e-3, 0.0], [1.0, 1.0], "flat"),
}
SETTINGS = {
    "eager": {"delta": 0.05, "max_samples": 20_000},
    "lazy": {"delta": 0.05, "max_samples": 20_000, "lazy_ratio": 1.2},
    "small-delta": {"delta": 1e-8, "max_samples": 20_000, "n0": 3},
}


def _runs(alg, fam):
    out = []
    for iname, inst in INSTANCES.items():
        for sname, kw in SETTINGS.items():
            s = RunSettings(threshold=fam, **kw)
            for r in range(2):
                res = simulate_run(inst, alg, settings=s, seed=11, experiment=sname, run=r)
                out.append(
                    (
                        iname,
                        sname,
                        r,
                        res["stopping_time"],
                        res["recommendation"],
                        list(res["counts"]),
                        res["truncated"],
                    )
                )
    return out


def _glr_cases():
    for alg, a in ALGORITHMS.items():
        if a.kernel != "glr":
            continue
        for fam in EV_FAMILIES if a.plug_in else GLR_FAMILIES:
            if fam != "heuristic":
                yield alg, fam


@pytest.mark.parametrize(("alg", "fam"), list(_glr_cases()))
def test_every_rule_and_family_same_runs_without_cached_bounds(monkeypatch, alg, fam):
    """Stopping times, recommendations, counts and truncation of every rule x δ-correct
    family (eager, lazy, two levels, three instances) equal the runs whose thresholds are
    all computed."""
    with_cache = _runs(alg, fam)
    with without_cached_bounds(monkeypatch):
        without = _runs(alg, fam)
    assert with_cache == without


def _replay(rule, fam, arms, values):
    idf = BestArmIdentifier(2, 1e-6, rule, fam, strict=False, rng=0)
    used = idf.observe_many(arms, values)
    return (
        used,
        idf.n_samples,
        idf.stop_reason,
        idf.recommendation,
        idf.counts.tolist(),
        repr(idf.thresholds().tolist()),
        repr(idf.glr().tolist()),
    )


@pytest.mark.parametrize(
    ("rule", "fam"),
    [("tci", f) for f in GLR_FAMILIES if f != "heuristic"]
    + [("ev-tci", f) for f in EV_FAMILIES if f != "heuristic"],
)
def test_replay_same_without_cached_bounds(monkeypatch, rule, fam):
    """The batched replay stops at the same row with the same state."""
    g = np.random.default_rng(5)
    for mu1 in (0.0, 0.6):
        arms = g.integers(0, 2, 30_000).astype(np.int64)
        values = np.where(arms == 0, 0.5, 0.5 - mu1) + g.standard_normal(arms.shape[0])
        a = _replay(rule, fam, arms, values)
        with without_cached_bounds(monkeypatch):
            b = _replay(rule, fam, arms, values)
        assert a == b


def test_lower_bound_counts_are_where_the_families_are_monotone():
    """KL from its initial count, Student and EV-Student from a count past their small-count
    descent; the families that decrease over most counts have none."""
    for lid in (math.log(10.0), math.log(1e4), 30.0):
        for K in (2, 5, 20):
            nmin = {
                f: make_threshold(f, K, log_inv_delta=lid).fparams[k.P_LB_NMIN]
                for f in GLR_FAMILIES + EV_FAMILIES
            }
            assert nmin["kl"] == make_threshold("kl", K, log_inv_delta=lid).fparams[k.P_NMIN]
            assert 2 < nmin["student"] < 100
            assert 2 < nmin["ev-student"] < 5000
            for f in ("box", "ev-box"):
                spec = make_threshold(f, K, log_inv_delta=lid)
                assert spec.fparams[k.P_NMIN] < nmin[f] < 1e9, f
                assert spec.fparams[k.P_LB_MODE] == k.LB_WINDOW
            for f in ("heuristic", "bob", "ev-bob", "ev-heuristic-student"):
                assert nmin[f] == math.inf, f
            for f in GLR_FAMILIES + EV_FAMILIES:
                mode = make_threshold(f, K, log_inv_delta=lid).fparams[k.P_LB_MODE]
                if f == "ev-heuristic-student":
                    assert mode == k.LB_FLOOR
                elif f in ("bob", "ev-bob"):
                    assert mode == k.LB_PROGRAM
                elif f not in ("box", "ev-box"):
                    assert mode == k.LB_NONE


def _g(spec, n):
    """The pair threshold at equal counts ``n`` (the per-arm term of Student, EV-Student)."""
    st0 = k.new_state()
    return k.pair_threshold_kernel(spec.code, spec.fparams, spec.table, 0.0, n, n, st0, st0)


@settings(max_examples=60, deadline=None)
@given(
    fam=st.sampled_from(["student", "ev-student"]),
    lid=st.floats(0.1, 60.0),
    K=st.integers(2, 50),
    s=st.floats(1.05, 4.0),
    n_table=st.integers(2**10, 2**13),
    data=st.data(),
)
def test_student_families_non_decreasing_past_their_lower_bound_count(
    fam, lid, K, s, n_table, data
):
    """``g(n) <= g(n')`` (with the cache's margin) for ``P_LB_NMIN <= n < n'``, in the table
    and beyond it (the closed-form bound, up to ``LB_MAX_COUNT``)."""
    try:
        spec = make_threshold(
            fam, K, log_inv_delta=lid, params=ThresholdParams(s=s), n_table=n_table
        )
    except ValueError:  # delta below the table's support
        return
    n0 = spec.fparams[k.P_LB_NMIN]
    if math.isinf(n0):
        return
    n0 = int(n0)
    lo = data.draw(st.integers(n0, 2**30))
    hi = data.draw(st.integers(lo, 2**30))
    near = min(lo + data.draw(st.integers(1, 3)), 2**30)
    for a, b in ((lo, hi), (lo, near), (n_table - 1, n_table)):
        if a < n0:
            continue
        ga, gb = _g(spec, a), _g(spec, b)
        assert gb >= ga - k.LB_MARGIN * (1.0 + abs(ga)), (a, b, ga, gb)
    # every count of the table from n0 on
    ns = np.arange(n0, n_table + 4)
    g = np.array([_g(spec, int(n)) for n in ns])
    assert np.all(g[1:] >= g[:-1] - k.LB_MARGIN * (1.0 + np.abs(g[:-1])))


@settings(max_examples=60, deadline=None)
@given(
    lid=st.floats(0.1, 60.0),
    K=st.integers(2, 50),
    s=st.floats(1.05, 4.0),
    gamma=st.floats(1.01, 3.0),
    mv=st.tuples(st.floats(-5, 5), st.floats(1e-3, 1e3), st.floats(-5, 5), st.floats(1e-3, 1e3)),
    data=st.data(),
)
def test_kl_non_decreasing_at_fixed_levels(lid, K, s, gamma, mv, data):
    """The KL threshold does not decrease as the counts grow while both arms' states stay
    at their peeling levels."""
    spec = make_threshold("kl", K, log_inv_delta=lid, params=ThresholdParams(s=s, gamma=gamma))
    n0 = int(spec.fparams[k.P_LB_NMIN])
    counts = []
    states = []
    for j in range(2):
        lvl = k.peeling_level(float(data.draw(st.integers(n0, 10**9))), gamma)
        first = max(n0, math.ceil(gamma**lvl))
        last = max(first, math.ceil(gamma ** (lvl + 1)) - 1)
        while k.peeling_level(float(last), gamma) > lvl:
            last -= 1
        a = data.draw(st.integers(first, max(first, last)))
        b = data.draw(st.integers(a, max(a, last)))
        if k.peeling_level(float(a), gamma) != k.peeling_level(float(b), gamma):
            return
        state = k.new_state()
        k.update_state(spec.code, spec.fparams, state, a, mv[2 * j], mv[2 * j + 1])
        counts.append((a, b))
        states.append(state)
    (a0, a1), (b0, b1) = counts
    c0 = k.pair_threshold_kernel(spec.code, spec.fparams, spec.table, 0.0, a0, b0, *states)
    c1 = k.pair_threshold_kernel(spec.code, spec.fparams, spec.table, 0.0, a1, b1, *states)
    if math.isfinite(c0):
        assert c1 >= c0 - k.LB_MARGIN * (1.0 + abs(c0))


@settings(max_examples=60, deadline=None)
@given(
    fam=st.sampled_from(["box", "ev-box"]),
    lid=st.floats(0.1, 60.0),
    K=st.integers(2, 50),
    s=st.floats(1.05, 4.0),
    eta0=st.one_of(st.none(), st.floats(0.01, 5.0)),
    data=st.data(),
)
def test_box_families_decrease_then_increase(fam, lid, K, s, eta0, data):
    """The Box term ``h`` (the threshold at equal counts) does not increase from the initial
    count to ``P_LB_NMIN`` and does not decrease after it (with the cache's margin), so
    that the threshold at a window's larger counts bounds it over the window."""
    spec = make_threshold(fam, K, log_inv_delta=lid, params=ThresholdParams(s=s, eta0=eta0))
    n_star = spec.fparams[k.P_LB_NMIN]
    n0 = int(spec.fparams[k.P_NMIN])
    assert math.isfinite(n_star)
    n_star = int(n_star)
    a = data.draw(st.integers(n0, n_star))
    b = data.draw(st.integers(a, min(n_star, a + data.draw(st.sampled_from([1, 2, 17, 10**9])))))
    ha, hb = _g(spec, a), _g(spec, b)
    assert hb <= ha + k.LB_MARGIN * (1.0 + abs(hb)), (a, b, ha, hb)
    a = data.draw(st.integers(n_star, 2**30))
    b = data.draw(st.integers(a, min(2**30, a + data.draw(st.sampled_from([1, 2, 17, 2**30])))))
    ha, hb = _g(spec, a), _g(spec, b)
    assert hb >= ha - k.LB_MARGIN * (1.0 + abs(ha)), (a, b, ha, hb)
    # a pair window: the threshold at the window's larger counts is below every pair inside
    na = data.draw(st.integers(n0, n_star))
    nb = data.draw(st.integers(n0, 2**30))
    pa, hia = k.lower_bound_window(na, spec.fparams)
    pb, hib = k.lower_bound_window(nb, spec.fparams)
    st0 = k.new_state()
    lb = k.pair_threshold_kernel(spec.code, spec.fparams, spec.table, 0.0, pa, pb, st0, st0)
    xa = data.draw(st.integers(na, int(min(hia, 2**30))))
    xb = data.draw(st.integers(nb, int(min(hib, 2**30))))
    c = k.pair_threshold_kernel(spec.code, spec.fparams, spec.table, 0.0, xa, xb, st0, st0)
    assert c >= lb - k.LB_MARGIN * (1.0 + abs(lb))


@settings(max_examples=200, deadline=None)
@given(
    lid=st.floats(0.01, 700.0),
    K=st.integers(2, 50),
    n_a=st.integers(1, 2**30),
    n_b=st.integers(1, 2**30),
)
def test_student_calibrated_heuristic_above_its_floor(lid, K, n_a, n_b):
    """The Student-calibrated heuristic is at least ``ln(1 + ln(N_a + N_b)) + ln(1/delta)``
    (the floor is non-decreasing in the counts by its form)."""
    spec = make_threshold("ev-heuristic-student", K, log_inv_delta=lid)
    st0 = k.new_state()
    c = k.pair_threshold_kernel(spec.code, spec.fparams, spec.table, 0.0, n_a, n_b, st0, st0)
    floor = k.lower_bound_floor(n_a + n_b, spec.fparams)
    assert c >= floor - k.LB_MARGIN * (1.0 + abs(floor))


@settings(max_examples=80, deadline=None)
@given(
    fam=st.sampled_from(["bob", "ev-bob"]),
    lid=st.floats(0.1, 60.0),
    K=st.integers(2, 20),
    gamma=st.floats(1.05, 2.0),
    mv=st.tuples(st.floats(-3, 3), st.floats(1e-2, 1e2), st.floats(-3, 3), st.floats(1e-2, 1e2)),
    data=st.data(),
)
def test_bob_program_bound_below_every_pair_of_its_window(fam, lid, K, gamma, mv, data):
    """``program_lower_bound`` is at most the BoB (EV-BoB) threshold at every pair of counts
    of its window whose states stay at their levels; the box bounds it rests on are
    monotone (``C`` does not increase with the count, ``D`` does not decrease)."""
    spec = make_threshold(fam, K, log_inv_delta=lid, params=ThresholdParams(gamma=gamma))
    fp = spec.fparams
    n0 = int(fp[k.P_NMIN_KL])
    ns, states = [], []
    for j in range(2):
        n = data.draw(st.integers(n0, 10**7))
        state = k.new_state()
        k.update_state(spec.code, fp, state, n, mv[2 * j], mv[2 * j + 1])
        ns.append(n)
        states.append(state)
    lb, hi_a, hi_b = k.program_lower_bound(spec.code, fp, ns[0], ns[1], states[0], states[1])
    assert hi_a > ns[0] and hi_b > ns[1]
    xs = []
    for n, hi in zip(ns, (hi_a, hi_b), strict=True):
        x = data.draw(st.integers(n, int(hi)))
        if k.peeling_level(float(x), gamma) != k.peeling_level(float(n), gamma):
            x = n
        xs.append(x)
    c = k.pair_threshold_kernel(spec.code, fp, spec.table, 0.0, xs[0], xs[1], *states)
    assert c >= lb - k.LB_MARGIN * (1.0 + abs(lb)), (ns, xs, lb, c)
    L, sp, e0 = fp[k.P_LBOX], fp[k.P_S], fp[k.P_ETA0]
    n = data.draw(st.integers(int(fp[k.P_NMIN]), 2**30))
    m = data.draw(st.integers(n, 2**30))
    cn, dn = k.box_constants(float(n), L, sp, e0)
    cm, dm = k.box_constants(float(m), L, sp, e0)
    assert cm <= cn * (1.0 + 1e-12) and dm >= dn - 1e-12, (n, m, cn, cm, dn, dm)


@settings(max_examples=80, deadline=None)
@given(
    fam=st.sampled_from(["bob", "ev-bob"]),
    lid=st.floats(0.1, 60.0),
    K=st.integers(2, 20),
    data=st.data(),
)
def test_bob_program_bound_below_the_initial_count(fam, lid, K, data):
    """With an arm below the initial count, ``program_lower_bound`` is finite, and the
    threshold is ``+inf`` at every pair of counts of its window (D412: the arm stays below
    the initial count)."""
    spec = make_threshold(fam, K, log_inv_delta=lid)
    fp = spec.fparams
    nmin = int(fp[k.P_NMIN])
    if nmin <= 1:
        return
    below = data.draw(st.integers(1, nmin - 1))
    other = data.draw(st.integers(1, 10**7))
    ns = [below, other] if data.draw(st.booleans()) else [other, below]
    states = [k.new_state() for _ in ns]
    for n, state in zip(ns, states, strict=True):
        k.update_state(spec.code, fp, state, n, 0.0, 1.0)
    lb, hi_a, hi_b = k.program_lower_bound(spec.code, fp, ns[0], ns[1], states[0], states[1])
    assert math.isfinite(lb) and lb - k.LB_MARGIN * (1.0 + abs(lb)) > 1e299
    for n, hi in zip(ns, (hi_a, hi_b), strict=True):
        assert hi >= n and (n >= nmin or hi < nmin)
    xs = [
        data.draw(st.integers(n, int(min(hi, n + 10**6))))
        for n, hi in zip(ns, (hi_a, hi_b), strict=True)
    ]
    for x, state in zip(xs, states, strict=True):
        k.update_state(spec.code, fp, state, x, 0.0, 1.0)
    c = k.pair_threshold_kernel(spec.code, fp, spec.table, 0.0, xs[0], xs[1], *states)
    assert c == math.inf, (ns, xs, c)


@settings(max_examples=300, deadline=None)
@given(gamma=st.floats(1.01, 3.0), n=st.integers(1, 2**31), steps=st.integers(1, 300))
def test_update_state_keeps_the_level_peeling_level_gives(gamma, n, steps):
    """The level is ``i`` with ``gamma^i <= n < gamma^(i + 1)`` (the powers as
    ``peeling_level`` computes them; ``i = 0`` from ``n = 1``), which ``update_state``
    checks before computing it (D413): after every count of a run of counts the state
    holds ``peeling_level``'s level, recorded at the level's first count of the run."""
    spec = make_threshold("kl", 3, log_inv_delta=3.0, params=ThresholdParams(gamma=gamma))
    fp = spec.fparams
    i = k.peeling_level(float(n), gamma)
    assert gamma**i <= n < gamma ** (i + 1) or (i == 0 and n < gamma)
    state = k.new_state()
    first = {}
    for m in range(n, n + steps):
        k.update_state(spec.code, fp, state, m, float(m), 1.0)
        lvl = k.peeling_level(float(m), gamma)
        first.setdefault(lvl, m)
        assert state[k.S_LEVEL] == lvl and state[k.S_COUNT] == first[lvl], (m, lvl, state)
