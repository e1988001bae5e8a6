"""``BestArmIdentifier.observe_many``: one compiled call, the result of one-by-one ``observe``."""

import copy
import itertools

import numpy as np
import pytest

from baiuv import BestArmIdentifier
from baiuv.simulation.identify import SAMPLING_RULES, IdentifierError
from baiuv.thresholds import EV_FAMILIES, GLR_FAMILIES

COMBOS = [
    (rule, family)
    for rule in sorted(SAMPLING_RULES)
    for family in (EV_FAMILIES if rule.startswith("ev-") else GLR_FAMILIES)
]


def rows(n, seed, mu=(1.0, 0.0, 0.4), sd=(1.0, 0.7, 2.0), order="random"):
    """``n`` observations of arms chosen at random (not by any sampling rule)."""
    g = np.random.default_rng(seed)
    K = len(mu)
    arms = g.integers(0, K, n) if order == "random" else np.arange(n) % K
    values = np.asarray(mu)[arms] + np.asarray(sd)[arms] * g.standard_normal(n)
    return arms.astype(np.int64), values


def one_by_one(idf, arms, values):
    used = 0
    for a, x in zip(arms.tolist(), values.tolist(), strict=True):
        used += 1
        if idf.observe(a, x):
            break
    return used


def same(va, vb) -> bool:
    """Deep equality: arrays bit for bit (nan = nan), generators by state."""
    if isinstance(va, np.ndarray):
        return va.dtype == vb.dtype and np.array_equal(va, vb, equal_nan=True)
    if isinstance(va, np.random.Generator):
        return va.bit_generator.state == vb.bit_generator.state
    if isinstance(va, dict):
        return va.keys() == vb.keys() and all(same(va[k], vb[k]) for k in va)
    if isinstance(va, list | tuple):
        return len(va) == len(vb) and all(same(x, y) for x, y in zip(va, vb, strict=True))
    if hasattr(va, "__dataclass_fields__"):
        return type(va) is type(vb) and same(vars(va), vars(vb))
    return va == vb


#: The p-value counts every check of observe() but only the last row's check of a batch
#: read in the compiled loop (decision D270; tests/unit/test_p_value.py).
P_VALUE = ("p_value", "p_value_recommendation")


def assert_same_state(a, b):
    """Every attribute of two identifiers equal (the p-value's tracker apart)."""
    assert a.__dict__.keys() == b.__dict__.keys()
    for key, va in a.__dict__.items():
        if key != "_pv":
            assert same(va, b.__dict__[key]), key
    sa, sb = a.summary(), b.summary()
    assert {k: v for k, v in sa.items() if k not in P_VALUE} == {
        k: v for k, v in sb.items() if k not in P_VALUE
    }


def pair(*args, **kwargs):
    return BestArmIdentifier(*args, **kwargs), BestArmIdentifier(*args, **kwargs)


@pytest.mark.parametrize("sampling,threshold", COMBOS)
def test_same_stop_and_state_as_one_by_one(sampling, threshold):
    """Every rule and threshold family: the batch stops at the same row with the same
    statistics, and the next request (the sampling rule's choice, its coins) is the same."""
    stopped = 0
    for seed, n in ((0, 3000), (1, 3000), (2, 40)):
        arms, values = rows(n, seed, mu=(2.0, 0.0, 0.5), sd=(1.0, 0.7, 1.5))
        ref, idf = pair(3, 0.05, sampling, threshold, strict=False, rng=seed)
        used = one_by_one(ref, arms, values)
        assert idf.observe_many(arms, values) == used
        assert_same_state(ref, idf)
        stopped += ref.done
        if not ref.done:
            assert ref.next_arm() == idf.next_arm()
            assert_same_state(ref, idf)
    assert stopped == 2  # the stopping row itself, and data that run out


@pytest.mark.parametrize("lazy,cap", [(None, 6), (None, 50), (1.4, None), (1.4, 40)])
def test_lazy_rule_budget_and_pieces(lazy, cap):
    """Lazy stopping grid, the budget (inside and after the initialisation), and a batch
    cut into pieces at arbitrary rows, mixed with single observations."""
    in_init = 0
    for seed in range(4):
        arms, values = rows(2000, seed, order="random" if seed % 2 else "round robin")
        kw = dict(strict=False, rng=seed, lazy_ratio=lazy, max_samples=cap, n0=2)
        ref, idf = pair(3, 0.1, "tci", "box", **kw)
        used = one_by_one(ref, arms, values)
        cuts = sorted(np.random.default_rng(seed).choice(np.arange(1, 2000), 6, replace=False))
        pos = 0
        for lo, hi in itertools.pairwise([0, *cuts, 2000]):
            if idf.done:
                break
            if hi - lo == 1 or lo == 5:
                idf.observe(int(arms[lo]), float(values[lo]))
                pos += 1
                if idf.done:
                    break
                lo += 1
            pos += idf.observe_many(arms[lo:hi], values[lo:hi])
        assert pos == used
        assert_same_state(ref, idf)
        assert idf.done or cap is None
        if cap == 6:
            assert idf.stop_reason == "budget"
            in_init += idf.in_initialisation
    # unrequested arms used the whole budget before the end of initialisation
    assert in_init >= 1 or cap != 6


def test_degenerate_and_tied_data():
    """Constant arms (forced exploration, decision D120), repeated values (the data
    warnings' value counts and the 64-value cap), signed zeros."""
    g = np.random.default_rng(3)
    arms = g.integers(0, 2, 5000)
    values = np.where(arms == 0, g.integers(0, 3, 5000) * 0.5, g.integers(0, 200, 5000) * 1.0)
    values[:40:3] = -0.0
    values[1:40:3] = 0.0
    for plug in ("tci", "ev-tci"):
        ref, idf = pair(2, 0.01, plug, "heuristic", strict=False, rng=0)
        const = np.where(arms == 0, 1.0, 2.0)
        assert one_by_one(ref, arms, const) == idf.observe_many(arms, const) == 5000
        assert_same_state(ref, idf)
        assert idf.summary()["forced_exploration"]
        ref, idf = pair(2, 0.01, plug, "heuristic", strict=False, rng=0)
        assert one_by_one(ref, arms, values) == idf.observe_many(arms, values)
        assert_same_state(ref, idf)
        assert idf.data_warnings()


def test_input_dtypes_and_integer_values():
    ref, idf = pair(2, 0.05, "tci", "student", strict=False, rng=0)
    arms, values = rows(500, 1, mu=(0.0, 3.0), sd=(1.0, 1.0))
    ints = np.round(values * 10).astype(np.int32)
    used = one_by_one(ref, arms, ints.astype(float))
    assert idf.observe_many(arms.astype(np.uint8).tolist(), ints) == used
    assert_same_state(ref, idf)


@pytest.mark.parametrize(
    "arms,values,match",
    [
        ([0, 1, 2], [0.0, 1.0, 2.0], r"arms\[2\]: arm must be in \[0, 2\), got 2"),
        ([0, -1], [0.0, 1.0], r"arms\[1\]: arm must be in"),
        ([0, 1, 0], [0.0, 1.0, np.nan], r"values\[2\]: value must be finite, got nan"),
        ([0, 1], [np.inf, 1.0], r"values\[0\]: value must be finite, got inf"),
        ([0, 1], [0.0], "same length"),
        ([[0, 1]], [[0.0, 1.0]], "1-D"),
        ([0.0, 1.0], [0.0, 1.0], "arms must be an array of integers"),
        ([0, 1], ["a", "b"], "values must be an array of real numbers"),
        ([0, 1], [1j, 2j], "values must be an array of real numbers"),
        ([True, False], [0.0, 1.0], "arms must be an array of integers"),
    ],
)
def test_bad_batches_are_refused_before_any_change(arms, values, match):
    idf = BestArmIdentifier(2, 0.05, "tci", "box", strict=False, rng=0)
    idf.observe_many([0, 1, 0, 1], [0.1, 0.2, 0.3, 0.5])
    before = copy.deepcopy(idf.__dict__)
    with pytest.raises(ValueError, match=match):
        idf.observe_many(arms, values)
    after = BestArmIdentifier(2, 0.05, "tci", "box", strict=False, rng=0)
    after.__dict__ = before
    assert_same_state(after, idf)


def test_strict_protocol_and_after_the_stop():
    idf = BestArmIdentifier(2, 0.05, "tci", "heuristic", rng=0)
    assert idf.observe_many([], []) == 0
    with pytest.raises(IdentifierError, match="without a pending request"):
        idf.observe_many([0], [1.0])
    a = idf.next_arm()
    with pytest.raises(IdentifierError, match="row 1 would be observed"):
        idf.observe_many([a, a], [1.0, 2.0])
    assert idf.n_samples == 0 and idf.pending == a
    assert idf.observe_many([a], [1.0]) == 1 and idf.pending is None
    loose = BestArmIdentifier(2, 0.05, "tci", "heuristic", strict=False, rng=0)
    arms, values = rows(5000, 0, mu=(0.0, 5.0), sd=(1.0, 1.0))
    used = loose.observe_many(arms, values)
    assert loose.done and used < 5000 and loose.recommendation == 1
    with pytest.raises(IdentifierError, match="has stopped"):
        loose.observe_many(arms[:1], values[:1])


@pytest.mark.parametrize(
    "sampling,threshold", [("tci", "heuristic"), ("tci", "box"), ("ev-tci", "heuristic")]
)
def test_thresholds_of_the_last_check_when_a_challenger_fails(sampling, threshold):
    """The first challenger fails, so the stopping check stops there: the thresholds of
    the later challengers stay nan, as ``glr_stop_check`` leaves them."""
    arms, values = rows(600, 4, mu=(1.0, 0.97, -3.0), sd=(1.0, 1.0, 1.0))
    ref, idf = pair(3, 1e-6, sampling, threshold, strict=False, rng=0)
    assert one_by_one(ref, arms, values) == idf.observe_many(arms, values) == 600
    assert_same_state(ref, idf)
    first = 1 - idf.empirical_best  # the first challenger (arm 2 is far below)
    assert not idf.done and not np.isnan(idf._thr[first]) and np.isnan(idf._thr[2])
