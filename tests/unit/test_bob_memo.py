"""The BoB programs' per-arm terms memoized in the arms' states (D418): every value and
upper bound computed through the memo equals, bit for bit, the computation without it (the
box constants and the KL value recomputed at each call), over random sequences of counts,
counts that go back to earlier values with the memo of later ones, and a level change that
keeps the memo of another level."""

import math

import numpy as np
import pytest

from baiuv.registry import EV_BOB
from baiuv.simulation.rules import states_at_level
from baiuv.thresholds import kernels as k
from baiuv.thresholds import layout
from baiuv.thresholds.bob_exact import bob_exact
from baiuv.thresholds.builtin.box import box_upper_bound
from baiuv.thresholds.families import ThresholdParams, make_threshold

MEMO = slice(k.S_TAG + 1, k.STATE_SIZE)


def _uncached_value(fp, ev, n_a, n_b, state_a, state_b):
    """The BoB (EV-BoB) value with every per-arm term recomputed."""
    if n_a < fp[k.P_NMIN] or n_b < fp[k.P_NMIN]:
        return math.inf
    L, s, eta0 = fp[k.P_LBOX], fp[k.P_S], fp[k.P_ETA0]
    lgr_a = k.check_state(state_a, n_a, fp)
    lgr_b = k.check_state(state_b, n_b, fp)
    ca, da = k.box_constants(float(n_a), L, s, eta0)
    cb, db = k.box_constants(float(n_b), L, s, eta0)
    if not (da > 0.0) or not (db > 0.0):
        return math.inf
    e = math.inf
    if n_a >= fp[k.P_NMIN_KL] and n_b >= fp[k.P_NMIN_KL]:
        e = k.kl_value(float(n_a), float(n_b), lgr_a, lgr_b, fp[k.P_LMAIN], s, fp[k.P_GAMMA])
    return bob_exact(float(n_a), float(n_b), ca, cb, da, db, e, ev)


def _same(x, y) -> bool:
    return (math.isnan(x) and math.isnan(y)) or x == y


def _check(spec, t, n_a, n_b, state_a, state_b):
    """The memoized value and upper bound against the uncached ones; the memo afterwards
    holds the arms' box constants at their counts."""
    ev = spec.code == EV_BOB
    ref = _uncached_value(spec.fparams, ev, n_a, n_b, state_a.copy(), state_b.copy())
    v = k.pair_threshold_kernel(
        spec.code, spec.fparams, spec.table, float(t), n_a, n_b, state_a, state_b
    )
    assert _same(v, ref), (n_a, n_b, v, ref)
    if n_a >= spec.fparams[k.P_NMIN] and n_b >= spec.fparams[k.P_NMIN]:
        for n, st in ((n_a, state_a), (n_b, state_b)):
            c, d = k.box_constants(float(n), *spec.fparams[[k.P_LBOX, k.P_S, k.P_ETA0]])
            assert st[layout.S_BOX_N] == n and _same(st[layout.S_BOX_C], c)
            assert _same(st[layout.S_BOX_D], d)
    ub = k.pair_upper_bound(spec.code, spec.fparams, spec.table, n_a, n_b, state_a, state_b)
    if n_a >= spec.fparams[k.P_NMIN] and n_b >= spec.fparams[k.P_NMIN]:
        ub_ref = box_upper_bound(ev, spec.fparams, n_a, n_b)
        assert all(_same(x, y) for x, y in zip(ub, ub_ref, strict=True)), (ub, ub_ref)
    return v


def _feed(spec, state, x, n):
    """``state`` after the ``n``-th sample of ``x`` (running mean and 1/n variance)."""
    m = float(np.mean(x[:n]))
    var = float(np.var(x[:n]))
    k.update_state(spec.code, spec.fparams, state, n, m, var)


@pytest.mark.parametrize("name", ["bob", "ev-bob"])
def test_memo_equals_uncached_over_random_counts(name):
    spec = make_threshold(name, 5, delta=0.1)
    rng = np.random.default_rng(7)
    nmin = int(spec.fparams[k.P_NMIN])
    n_max = nmin + 1500
    xs = [rng.normal(0.3, 1.0, n_max + 1), rng.normal(0.0, 2.0, n_max + 1)]
    states = [k.new_state(), k.new_state()]
    n = [0, 0]
    for a in (0, 1):  # both arms up to a random count near the initial count
        for i in range(1, nmin - int(rng.integers(0, 3)) + 1):
            _feed(spec, states[a], xs[a], i)
            n[a] = i
    checked = 0
    while max(n) < n_max:
        if rng.random() < 0.1:  # no sample: the same counts again
            pass
        else:
            a = int(rng.random() < 0.3)  # mostly arm 0, as one arm leads
            n[a] += int(rng.integers(1, 4))
            for i in range(n[a] - 2, n[a] + 1):
                if i >= 1:
                    _feed(spec, states[a], xs[a], i)
        t = n[0] + n[1]
        _check(spec, t, n[0], n[1], states[0], states[1])
        _check(spec, t, n[1], n[0], states[1], states[0])  # the pair the other way round
        checked += 1
    assert checked > 500


#: specs of the states' copy at another level: each changes other inputs of the memo's
#: terms (``delta``: ``P_LBOX`` and ``P_ETA0``; ``K``: ``P_LBOX`` alone; ``eta0``: ``P_ETA0``
#: alone; ``s``: ``P_LBOX`` and ``P_S``)
OTHERS = {
    "delta": dict(K=5, delta=0.01),
    "K": dict(K=10, delta=0.1),
    "eta0": dict(K=5, delta=0.1, params=ThresholdParams(eta0=0.25)),
    "s": dict(K=5, delta=0.1, params=ThresholdParams(s=1.5)),
}


@pytest.mark.parametrize("change", sorted(OTHERS))
@pytest.mark.parametrize("name", ["bob", "ev-bob"])
def test_memo_of_later_counts_and_another_level(name, change):
    spec = make_threshold(name, 5, delta=0.1)
    o = OTHERS[change]
    other = make_threshold(name, o["K"], delta=o["delta"], params=o.get("params"))
    rng = np.random.default_rng(11)
    nmin = int(max(spec.fparams[k.P_NMIN], other.fparams[k.P_NMIN]))
    x = [rng.normal(0.0, 1.0, 4 * nmin), rng.normal(0.5, 1.5, 4 * nmin)]
    early = (nmin + 3, nmin + 10)
    late = (3 * nmin, 2 * nmin + 7)
    at = [k.states_at_counts(spec.code, spec.fparams, x[a], np.array(sorted({early[a], late[a]})))
          for a in (0, 1)]  # fmt: skip
    st_early = [at[0][0].copy(), at[1][0].copy()]
    st_late = [at[0][-1].copy(), at[1][-1].copy()]
    _check(spec, sum(late), late[0], late[1], st_late[0], st_late[1])
    # a count back to an earlier value (a fresh run reusing the arrays): the memo of the
    # later counts stays in the states
    for a in (0, 1):
        st_early[a][MEMO] = st_late[a][MEMO]
    _check(spec, sum(early), early[0], early[1], st_early[0], st_early[1])
    # the same counts at another level (the p-value's states): the memo of the first level
    both = np.stack(st_early)
    moved = np.empty_like(both)
    states_at_level(both, other.fparams, moved)
    assert np.array_equal(moved[:, MEMO], both[:, MEMO], equal_nan=True)
    _check(other, sum(early), early[0], early[1], moved[0], moved[1])
    # and back to the first level, the memo now of the other one
    states_at_level(moved, spec.fparams, both)
    _check(spec, sum(early), early[0], early[1], both[0], both[1])


def test_memo_slots_of_a_fresh_state_never_match():
    st = k.new_state()
    assert st.shape == (k.STATE_SIZE,)
    assert np.all(np.isnan(st[MEMO]))


def test_each_input_keys_the_memo():
    """Each input of a memoized term, changed alone, recomputes it."""
    from baiuv.thresholds.builtin.box import arm_box_constants
    from baiuv.thresholds.builtin.kl import arm_count_term, count_term

    base = (40.0, 9.5, 2.0, 0.2)
    st = k.new_state()
    for i in range(len(base)):
        assert arm_box_constants(st, *base) == k.box_constants(*base)
        changed = list(base)
        changed[i] *= 1.25
        assert arm_box_constants(st, *changed) == k.box_constants(*changed)
        assert arm_box_constants(st, *changed) == k.box_constants(*changed)  # a hit
    for n, gamma in ((40.0, 1.2), (41.0, 1.2), (41.0, 1.25), (41.0, 1.25), (40.0, 1.2)):
        assert arm_count_term(st, n, gamma) == count_term(n, math.log(gamma))
