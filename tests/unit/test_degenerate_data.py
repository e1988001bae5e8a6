"""Degenerate, messy and non-Gaussian data never crash, hang or starve the identifier
(decision D120: zero variance, NaN/inf GLR, equal constant arms; D121: warnings).

Matrix: every sampling rule x every threshold family it accepts x eight kinds of streams
(constant arms, two equal constant arms, zero-inflated lognormal up to 95% zeros, integer
ratings 1-5, data rounded to 0.01, one outlier of 1e12, Student-t with 2 degrees of
freedom, identical arms). Every run must end (stop or reach ``max_samples``) without an
exception, ``next_arm()`` must always answer an arm in range, and the summary must be
well defined. A hypothesis property drives random mixtures of these streams.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from baiuv import BestArmIdentifier
from baiuv.simulation import rules
from baiuv.simulation.engine import RunSettings, _fresh_states, level_arrays, rule_params
from baiuv.simulation.identify import SAMPLING_RULES
from baiuv.thresholds import EV_FAMILIES, GLR_FAMILIES

COMBOS = [
    (rule, fam)
    for rule in sorted(SAMPLING_RULES)
    for fam in (EV_FAMILIES if rule.startswith("ev-") else GLR_FAMILIES)
]


def _arm_sampler(kind: str, arm: int):
    """A function ``g -> value`` drawing one observation of ``arm`` for a stream ``kind``."""
    if kind == "constant":
        return lambda g: float(arm)
    if kind == "equal-constant":
        return lambda g: 3.0 if arm < 2 else float(arm)
    if kind == "zero-inflated":
        p0 = (0.8, 0.9, 0.95)[arm % 3]
        return lambda g: 0.0 if g.random() < p0 else float(g.lognormal(1.0, 1.0))
    if kind == "ratings":
        p = np.roll([0.1, 0.15, 0.2, 0.25, 0.3], arm)
        return lambda g: float(g.choice(5, p=p) + 1)
    if kind == "rounded":
        return lambda g: round(0.1 * arm + g.standard_normal(), 2)
    if kind == "outlier":
        state = {"done": False}

        def f(g):
            if arm == 1 and not state["done"]:
                state["done"] = True
                return 1e12
            return 0.2 * arm + g.standard_normal()

        return f
    if kind == "student-t":
        return lambda g: 0.3 * arm + float(g.standard_t(2))
    if kind == "identical":
        return lambda g: float(g.standard_normal())
    raise ValueError(kind)


KINDS = [
    "constant",
    "equal-constant",
    "zero-inflated",
    "ratings",
    "rounded",
    "outlier",
    "student-t",
    "identical",
]


def _drive(idf: BestArmIdentifier, samplers, g, limit: int) -> None:
    for _ in range(limit):
        if idf.done:
            return
        arm = idf.next_arm()
        assert isinstance(arm, int) and 0 <= arm < idf.n_arms
        idf.observe(arm, samplers[arm](g))
    raise AssertionError(f"no stop after {limit} observations: {idf!r}")


@pytest.mark.parametrize("kind", KINDS)
def test_every_rule_and_threshold_ends_on_messy_data(kind):
    for i, (rule, fam) in enumerate(COMBOS):
        g = np.random.default_rng(i)
        samplers = [_arm_sampler(kind, a) for a in range(3)]
        idf = BestArmIdentifier(3, 0.1, rule, fam, max_samples=150, rng=i)
        _drive(idf, samplers, g, 151)
        assert idf.stop_reason in ("glr", "budget")
        assert idf.n_samples <= 150 and idf.counts.sum() == idf.n_samples
        s = idf.summary()
        json.dumps(s)  # plain values only
        assert idf.format_summary()
        if kind in ("constant", "equal-constant"):
            # no stop on zero-variance evidence; forced exploration keeps arms balanced
            assert idf.stop_reason == "budget", (rule, fam)
            assert idf.counts.max() - idf.counts.min() <= 1, (rule, fam, idf.counts)
            assert s["warnings"] and "equal" in s["warnings"][0]


def test_zero_variance_arm_is_explored_until_it_varies():
    """An arm whose first observations are equal is asked for until its variance is
    positive (it is never starved), then the sampling rule takes over."""
    for rule in ("tci", "dkm", "fws", "ev-tci", "ev-dkm", "ev-fws", "tas"):
        thr = "ev-bob" if rule.startswith("ev-") else "bob"
        idf = BestArmIdentifier(3, 0.1, rule, thr, rng=0, max_samples=5000)
        g = np.random.default_rng(0)
        for arm, x in [(0, 0.0), (1, 0.5), (2, 1.0), (0, 0.1), (1, 0.5), (2, 1.2)]:
            assert idf.next_arm() == arm
            idf.observe(arm, x)
        assert idf.variances[1] == 0.0
        assert idf.summary()["forced_exploration"]
        assert idf.next_arm() == 1  # least sampled on a tie of counts: the zero-variance arm
        idf.observe(1, 0.5)
        assert idf.next_arm() in (0, 2)  # then least sampled, arm 1 is not favoured forever
        idf.observe(idf.next_arm(), 0.05 + g.standard_normal())
        idf.observe(idf.next_arm(), 1.0 + g.standard_normal())
        assert idf.next_arm() == 1
        idf.observe(1, 0.7)
        assert not idf.summary()["forced_exploration"]
        _drive(idf, [lambda g, m=m: m + 0.3 * g.standard_normal() for m in (0, 0.5, 1)], g, 5001)
        assert idf.counts.min() >= 4


def test_no_stop_on_zero_variance_even_with_the_heuristic_threshold():
    """Two equal observations would give an infinite GLR statistic: never a stop."""
    idf = BestArmIdentifier(2, 0.1, "tci", "heuristic", rng=0, max_samples=1000)
    g = np.random.default_rng(0)
    _drive(idf, [lambda g: 0.0, lambda g: 10.0 + g.standard_normal()], g, 1001)
    assert idf.stop_reason == "budget" and idf.counts.tolist() == [500, 500]


@pytest.mark.parametrize("plug_in,rule", [(False, r) for r in range(6)] + [(True, 3), (True, 4)])
def test_simulator_loop_uses_the_same_guard(plug_in, rule):
    """``run_glr`` with zero true variances (constant arms, two of them equal; only
    reachable by calling the kernel directly) ends at the budget with balanced counts, and
    the identifier fed the same draws takes the same path."""
    mu = np.array([1.0, 1.0, 0.0])
    sigma2 = np.array([0.0, 0.0, 0.0])
    fam = "ev-bob" if plug_in else "bob"
    params = rule_params(RunSettings(threshold=fam))
    taus, recs, counts, truncs, _, _ = rules.run_glr(
        rule,
        plug_in,
        (mu, sigma2),
        level_arrays([RunSettings(threshold=fam, log_inv_delta=0.1)], 3),
        _fresh_states(3)[None],
        (params, np.full(3, 1 / 3)),
        np.random.default_rng(0),
        (2, 90),
    )
    tau, rec, counts, trunc = taus[0], recs[0], counts[0], truncs[0]
    assert trunc and tau == 90 and counts.tolist() == [30, 30, 30]
    if rule == rules.RULE_FIXED:
        return
    name = {v: k for k, v in SAMPLING_RULES.items()}
    sampling = [k for k, v in SAMPLING_RULES.items() if _rule_of(v) == (rule, plug_in)][0]
    del name
    idf = BestArmIdentifier(3, 0.1, sampling, fam, max_samples=90, rng=0)
    _drive(idf, [lambda g, m=m: m for m in mu], None, 91)
    assert idf.counts.tolist() == counts.tolist() and idf.recommendation == rec


def _rule_of(name):
    from baiuv.simulation.engine import ALGORITHMS

    return ALGORITHMS[name].rule, ALGORITHMS[name].plug_in


def test_warnings_name_the_problem_once_and_stay_silent_on_gaussian_data():
    g = np.random.default_rng(3)
    idf = BestArmIdentifier(3, 0.1, "uniform", "box", max_samples=300, rng=0)
    _drive(idf, [lambda g, m=m: m + g.standard_normal() for m in (0, 0.2, 0.4)], g, 301)
    assert idf.summary()["warnings"] == []
    assert "warning" not in idf.format_summary()
    samplers = [
        _arm_sampler("ratings", 0),
        _arm_sampler("zero-inflated", 1),
        lambda g: float(g.lognormal(0.0, 1.5)),
    ]
    idf = BestArmIdentifier(3, 0.1, "uniform", "box", max_samples=300, rng=0)
    _drive(idf, samplers, g, 301)
    (w,) = idf.summary()["warnings"]
    assert "arm 0: only 5 distinct values" in w
    assert "arm 1:" in w and "% of the observations equal 0" in w
    assert "arm 2: strongly skewed" in w
    assert idf.format_summary().count("warning:") == 1


def _stream_strategy():
    return st.lists(st.sampled_from(KINDS), min_size=2, max_size=4)


@given(
    kinds=_stream_strategy(),
    combo=st.sampled_from(COMBOS),
    seed=st.integers(0, 2**32 - 1),
    cap=st.integers(1, 120),
    n0=st.integers(2, 4),
    strict=st.booleans(),
)
def test_random_messy_streams_never_crash_or_hang(kinds, combo, seed, cap, n0, strict):
    """Per arm a random kind of stream; non-strict runs feed some unrequested arms too."""
    rule, fam = combo
    g = np.random.default_rng(seed)
    samplers = [_arm_sampler(k, a) for a, k in enumerate(kinds)]
    K = len(kinds)
    cap = max(cap, n0 * K)
    idf = BestArmIdentifier(K, 0.05, rule, fam, n0=n0, max_samples=cap, strict=strict, rng=seed)
    for _ in range(cap + 1):
        if idf.done:
            break
        arm = idf.next_arm()
        assert 0 <= arm < K
        if not strict and g.random() < 0.3:
            arm = int(g.integers(K))
        idf.observe(arm, samplers[arm](g))
    assert idf.done and idf.n_samples <= cap
    json.dumps(idf.summary())


def test_budget_below_the_initialisation_is_refused():
    with pytest.raises(ValueError, match=r"max_samples .*n0 \* n_arms = 6"):
        BestArmIdentifier(3, 0.1, max_samples=5)
