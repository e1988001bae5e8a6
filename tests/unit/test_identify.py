"""Ask/tell API: ``baiuv.BestArmIdentifier`` (decisions D72-D74)."""

import copy
import math

import numpy as np
import pytest
from scipy.optimize import minimize_scalar

from baiuv import EASY, STANDARD, BestArmIdentifier, GaussianInstance
from baiuv.simulation import RunSettings, simulate_run
from baiuv.simulation.identify import SAMPLING_RULES, IdentifierError
from baiuv.thresholds import pair_threshold

INST3 = GaussianInstance(np.array([1.0, 0.5, 0.3]), np.array([1.0, 0.5, 2.0]), "inst3")

PAIRS = [
    ("tci", "bob"),
    ("ev-tci", "ev-bob"),
    ("tas", "box"),
    ("ev-tas", "ev-box"),
    ("dkm", "kl"),
    ("ev-dkm", "ev-student"),
    ("fws", "student"),
    ("ev-fws", "heuristic"),
    ("uniform", "heuristic"),
]


def drive(idf, inst, gen):
    """Answer every request with ``mu_a + sigma_a Z``, ``Z`` from ``gen``."""
    sd = np.sqrt(inst.sigma2)
    while not idf.done:
        a = idf.next_arm()
        idf.observe(a, inst.mu[a] + sd[a] * gen.standard_normal())
    return idf


def test_registry_covers_every_glr_rule():
    from baiuv.registry import selection

    builtin = ["tas", "ev-tas", "tci", "ev-tci", "dkm", "ev-dkm", "fws", "ev-fws", "uniform"]
    assert set(builtin) <= set(SAMPLING_RULES) and "fixed" not in SAMPLING_RULES
    assert set(SAMPLING_RULES) == {n.lower() for n in selection("glr_algorithms")}


@pytest.mark.parametrize("sampling,threshold", PAIRS)
def test_identifier_reproduces_the_simulator(sampling, threshold):
    """Same seed, same generator for the coins and the draws -> the simulator's run."""
    inst = EASY if sampling.startswith("ev") else INST3
    for seed in range(3):
        s = RunSettings(threshold=threshold, delta=0.05)
        r = simulate_run(
            inst, SAMPLING_RULES[sampling], settings=s, rng=np.random.default_rng(seed)
        )
        g = np.random.default_rng(seed)
        idf = drive(BestArmIdentifier(inst.K, 0.05, sampling, threshold, rng=g), inst, g)
        assert idf.n_samples == r["stopping_time"]
        assert idf.summary()["counts"] == r["counts"]
        assert idf.recommendation == r["recommendation"]
        assert idf.stop_reason == ("budget" if r["truncated"] else "glr")


@pytest.mark.parametrize("lazy", [None, 1.3])
def test_identifier_reproduces_lazy_and_budget_runs(lazy):
    for seed, cap in [(0, 60), (1, 10**7)]:
        s = RunSettings(threshold="box", delta=0.01, max_samples=cap, lazy_ratio=lazy)
        r = simulate_run(STANDARD, "TCI", settings=s, rng=np.random.default_rng(seed))
        g = np.random.default_rng(seed)
        idf = BestArmIdentifier(5, 0.01, "tci", "box", rng=g, max_samples=cap, lazy_ratio=lazy)
        drive(idf, STANDARD, g)
        assert (idf.n_samples, idf.summary()["counts"], idf.recommendation) == (
            r["stopping_time"],
            r["counts"],
            r["recommendation"],
        )
        assert (idf.stop_reason == "budget") == r["truncated"]
    assert idf.stop_reason == "glr"


def test_initialisation_round_robin_and_no_early_stop():
    """n0 rounds of 0, 1, ..., K-1; the rule is only evaluated after n0 K samples even with
    the heuristic threshold and a huge gap."""
    idf = BestArmIdentifier(3, 0.1, "tci", "heuristic", n0=3, rng=0)
    asked = []
    for i in range(9):
        assert idf.in_initialisation and not idf.done and idf.recommendation is None
        a = idf.next_arm()
        asked.append(a)
        idf.observe(a, [100.0, 0.0, 0.0][a] + 0.01 * (-1) ** i)
    assert asked == [0, 1, 2] * 3
    assert not idf.in_initialisation
    assert idf.done and idf.stop_reason == "glr" and idf.recommendation == 0
    assert idf.n_samples == 9


def test_next_arm_is_idempotent_and_draws_no_coin():
    g = np.random.default_rng(5)
    idf = BestArmIdentifier(3, 0.05, "tci", "box", rng=g)
    for a in range(3):
        for _ in range(2):
            idf.observe(idf.next_arm(), float(a) + g.standard_normal())
    a1 = idf.next_arm()
    state = copy.deepcopy(g.bit_generator.state)
    assert idf.next_arm() == a1 and idf.pending == a1
    assert g.bit_generator.state == state


def _snapshot(idf):
    d = {k: copy.deepcopy(v) for k, v in vars(idf).items() if k != "_rng"}
    d["rng"] = copy.deepcopy(idf._rng.bit_generator.state)
    return d


def _same(a, b, key="state"):
    if isinstance(a, dict):
        assert a.keys() == b.keys()
        for k in a:
            _same(a[k], b[k], k)
    elif isinstance(a, np.ndarray):
        np.testing.assert_array_equal(a, b, err_msg=key)
    elif isinstance(a, tuple):
        assert len(a) == len(b), key
        for x, y in zip(a, b, strict=True):
            _same(x, y, key)
    elif hasattr(a, "__dict__"):
        assert type(a) is type(b), key
        _same(vars(a), vars(b), key)
    else:
        assert a == b, key


def _started(**kw):
    g = np.random.default_rng(3)
    idf = BestArmIdentifier(3, 0.05, "tci", "kl", rng=g, **kw)
    for _ in range(7):
        idf.observe(idf.next_arm(), g.standard_normal())
    idf.next_arm()
    return idf


@pytest.mark.parametrize(
    "arm_fn,value,match",
    [
        (lambda p: p, math.nan, "value must be finite"),
        (lambda p: p, math.inf, "value must be finite"),
        (lambda p: p, -math.inf, "value must be finite"),
        (lambda p: p, np.float64("nan"), "value must be finite"),
        (lambda p: p, "1.0", "value must be a finite real"),
        (lambda p: p, None, "value must be a finite real"),
        (lambda p: p, True, "value must be a finite real"),
        (lambda p: 3, 0.0, r"arm must be in \[0, 3\)"),
        (lambda p: -1, 0.0, r"arm must be in \[0, 3\)"),
        (lambda p: 1.0, 0.0, "arm must be an integer"),
        (lambda p: "0", 0.0, "arm must be an integer"),
        (lambda p: True, 0.0, "arm must be an integer"),
        (lambda p: (p + 1) % 3, 0.0, "was requested"),
    ],
)
def test_bad_observation_raises_and_leaves_state_unchanged(arm_fn, value, match):
    idf = _started()
    before = _snapshot(idf)
    with pytest.raises(ValueError, match=match):
        idf.observe(arm_fn(idf.pending), value)
    _same(before, _snapshot(idf))
    # and the identifier still works: the pending request is still the same
    idf.observe(idf.pending, 0.1)


def test_observe_without_pending_request_strict():
    idf = BestArmIdentifier(2, 0.05, "uniform", "box", rng=0)
    before = _snapshot(idf)
    with pytest.raises(IdentifierError, match="without a pending request"):
        idf.observe(0, 1.0)
    _same(before, _snapshot(idf))
    assert isinstance(IdentifierError("x"), ValueError)


def test_observation_after_stop_is_rejected():
    idf = BestArmIdentifier(2, 0.1, "uniform", "heuristic", rng=0)
    for i in range(4):
        idf.observe(idf.next_arm(), [10.0, 0.0][i % 2] + 0.1 * i)
    assert idf.done
    before = _snapshot(idf)
    with pytest.raises(IdentifierError, match="stopped"):
        idf.observe(0, 1.0)
    with pytest.raises(IdentifierError, match="stopped"):
        idf.next_arm()
    _same(before, _snapshot(idf))


def _glr_brute(counts, means, var, plug_in):
    """Independent GLR statistics: scipy minimisation over the common mean lambda."""
    best = int(np.argmax(means))
    Z = np.full(counts.size, np.inf)
    for a in range(counts.size):
        if a == best:
            continue
        if plug_in:
            Z[a] = (means[best] - means[a]) ** 2 / (
                2 * (var[a] / counts[a] + var[best] / counts[best])
            )
            continue

        def f(lam, a=a):
            return sum(
                counts[b] / 2 * math.log1p((means[b] - lam) ** 2 / var[b]) for b in (a, best)
            )

        res = minimize_scalar(
            f, bounds=(means[a], means[best]), method="bounded", options={"xatol": 1e-12}
        )
        Z[a] = res.fun
    return best, Z


@pytest.mark.parametrize(
    # scipy's GLR at each of 4000 steps: the EV case in the quick suite
    "sampling,threshold",
    [pytest.param("uniform", "box", marks=pytest.mark.slow), ("ev-tci", "ev-student")],
)
def test_stopping_rule_against_independent_computation(sampling, threshold):
    """Non-strict feeding in a fixed order: at every step after initialisation the
    identifier stops iff every challenger's GLR (scipy) exceeds its threshold
    (``pair_threshold``), eqs. def_stopping_rule_glrt / def_stopping_rule_evglrt."""
    rng = np.random.default_rng(8)
    mu, sd = np.array([0.6, 0.0, -0.2]), np.array([1.0, 0.7, 1.2])
    idf = BestArmIdentifier(3, 0.1, sampling, threshold, strict=False, rng=0)
    obs = [[], [], []]
    plug_in = sampling.startswith("ev")
    seen_both = [False, False]
    for t in range(1, 4000):
        a = [0, 0, 1, 2][t % 4] if t > 6 else t % 3
        x = mu[a] + sd[a] * rng.standard_normal()
        obs[a].append(x)
        done = idf.observe(a, x)
        counts = np.array([len(o) for o in obs], float)
        if counts.min() < 2:
            assert not done
            continue
        means = np.array([np.mean(o) for o in obs])
        var = np.array([np.var(o) for o in obs])
        np.testing.assert_allclose(idf.means, means, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(idf.variances, var, rtol=1e-9)
        best, Z = _glr_brute(counts, means, var, plug_in)
        thr = [
            pair_threshold(
                threshold, n_a=int(counts[best]), n_b=int(counts[b]), t=t, K=3, delta=0.1
            )
            for b in range(3)
        ]
        margins = [Z[b] - thr[b] for b in range(3) if b != best]
        if min(abs(m) for m in margins) < 1e-6:
            continue  # too close to call with a numerical minimiser
        expect = all(m > 0 for m in margins)
        assert done == expect, (t, Z, thr)
        s = idf.summary()
        for b in range(3):
            if b != best and math.isfinite(thr[b]):
                assert s["glr"][b] == pytest.approx(Z[b], rel=1e-7)
                assert s["thresholds"][b] == pytest.approx(thr[b], rel=1e-12)
        seen_both[expect] = True
        if done:
            break
    assert all(seen_both)
    assert idf.done and idf.recommendation == 0


def test_non_strict_accepts_unrequested_arms_and_cancels_the_request():
    idf = BestArmIdentifier(3, 0.05, "tci", "box", strict=False, rng=0)
    assert idf.next_arm() == 0
    idf.observe(2, 0.3)  # not the requested arm
    assert idf.pending is None and idf.counts.tolist() == [0, 0, 1]
    assert idf.next_arm() == 0  # initialisation: fewest observations first
    idf.observe(1, 0.1)
    idf.observe(1, 0.2)  # no pending request: accepted
    assert idf.counts.tolist() == [0, 2, 1]


def test_summary_and_repr():
    g = np.random.default_rng(2)
    idf = drive(BestArmIdentifier(5, 0.01, "tci", "bob", rng=g), EASY, g)
    s = idf.summary()
    assert s["done"] and s["stop_reason"] == "glr" and s["recommendation"] == 0
    assert sum(s["counts"]) == s["n_samples"] == idf.n_samples
    assert s["glr"][0] is None or s["glr"][0] == math.inf
    for b in range(1, 5):
        assert s["margin"][b] > 0 and s["glr"][b] > s["thresholds"][b]
    text = idf.format_summary()
    assert "recommended arm: 0" in text and "bob" in text
    assert "stopped (glr)" in repr(idf)


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"n_arms": 1}, "n_arms"),
        ({"n_arms": 2.0}, "n_arms"),
        ({"delta": 0.0}, "delta"),
        ({"delta": 1.5}, "delta"),
        ({"sampling": "fixed"}, "sampling"),
        ({"sampling": "FHN2"}, "sampling"),
        ({"threshold": "nope"}, "threshold"),
        ({"threshold": "ev-bob"}, "GLR version"),
        ({"sampling": "ev-tci", "threshold": "bob"}, "ev-bob"),
        ({"max_samples": 0}, "max_samples"),
        ({"lazy_ratio": 1.0}, "lazy_ratio"),
        ({"n0": 1}, "n0"),
        ({"beta": 1.0}, "beta"),
        ({"strict": "yes"}, "strict"),
        ({"rng": "seed"}, "rng"),
        ({"threshold_params": {"s": 0.5}}, "s must be"),
        ({"threshold_params": {"bogus": 1}}, "threshold_params"),
    ],
)
def test_bad_constructor_arguments(kwargs, match):
    args = {"n_arms": 3, "delta": 0.05, "sampling": "tci", "threshold": "bob", **kwargs}
    with pytest.raises(ValueError, match=match):
        BestArmIdentifier(**args)


def test_case_insensitive_sampling_and_generator_not_copied():
    g = np.random.default_rng(0)
    idf = BestArmIdentifier(2, 0.05, "EV-TaS", "ev-box", rng=g)
    assert idf.sampling == "EV-TaS" and idf.stopping_rule == "EV-GLR"
    assert idf._rng is g
