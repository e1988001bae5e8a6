"""The identifier's anytime-valid p-value (``baiuv.simulation.p_value``): exact against the
heuristic's closed form, against the threshold families' own pair thresholds at the level
found (states rebuilt from the samples), the stopped identifier's p-value, and by Monte
Carlo P(p <= alpha, recommendation wrong) <= alpha for δ-correct families."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from baiuv import BestArmIdentifier
from baiuv.simulation.identify_summary import format_summary
from baiuv.simulation.p_value import L_FLOOR, PValueTracker, is_delta_correct
from baiuv.thresholds import ThresholdParams, arm_state_from_samples, pair_threshold


def _play(K, delta, sampling, family, mu, sd, budget, seed):
    """Run an identifier for at most ``budget`` samples; per check ``(t, counts, Z, best)``
    and the samples of each arm."""
    idf = BestArmIdentifier(K, delta, sampling, family, rng=seed)
    gen = np.random.default_rng(seed + 10_000)
    samples = [[] for _ in range(K)]
    checks = []
    while not idf.done and idf.n_samples < budget:
        a = idf.next_arm()
        x = float(mu[a] + sd[a] * gen.standard_normal())
        samples[a].append(x)
        idf.observe(a, x)
        if not idf.in_initialisation:
            checks.append((idf.n_samples, idf.counts, idf.glr(), int(np.argmax(idf.means))))
    return idf, samples, checks


@pytest.mark.parametrize("K,seed", [(2, 0), (3, 1), (4, 2)])
def test_heuristic_p_value_is_the_closed_form(K, seed):
    mu = np.linspace(0.6, 0.0, K)
    idf, _, checks = _play(K, 1e-9, "tci", "heuristic", mu, np.ones(K), 400, seed)
    best_level, best_arm = 0.0, None
    for t, _, Z, best in checks:
        Zc = min(Z[a] for a in range(K) if a != best)
        level = Zc - math.log1p(math.log(t))  # Z > ln(1 + ln t) + L  <=>  L < level
        if level > best_level and level > L_FLOOR:
            best_level, best_arm = level, best
    assert best_arm is not None
    assert -math.log(idf.p_value) == pytest.approx(best_level, rel=1e-12, abs=1e-12)
    assert idf.p_value_recommendation == best_arm
    assert idf.p_value_valid is False


def _fixed(family, K, delta):
    e0, e1 = ThresholdParams().etas(delta)
    return ThresholdParams(eta0=e0, eta1=e1)


def _stops(family, K, L, t, counts, Z, best, samples, params):
    """The rule at ln(1/delta) = L at one check, from the families' public pair thresholds
    (Student: exact quantiles; BoB: the NLP solver; KL/BoB states replayed from the
    samples at that level)."""
    for a in range(K):
        if a == best:
            continue
        kw = {}
        if family in ("kl", "bob", "ev-bob"):
            kw = {
                "state_a": arm_state_from_samples(
                    family, samples[best][: counts[best]], K=K, log_inv_delta=L, params=params
                ),
                "state_b": arm_state_from_samples(
                    family, samples[a][: counts[a]], K=K, log_inv_delta=L, params=params
                ),
            }
        c = pair_threshold(
            family, n_a=int(counts[best]), n_b=int(counts[a]), t=float(t), K=K,
            log_inv_delta=L, params=params, **kw,
        )  # fmt: skip
        if not Z[a] > c:
            return False
    return True


@pytest.mark.parametrize(
    "family,sampling,delta",
    [
        ("box", "tci", 1e-3),
        ("student", "tci", 1e-3),
        ("kl", "tci", 1e-3),
        ("bob", "tci", 1e-3),
        ("ev-box", "ev-tci", 1e-3),
        ("ev-student", "ev-tci", 1e-3),
        ("ev-bob", "ev-tci", 1e-3),
    ],
)
def test_level_found_is_the_boundary_of_the_pair_thresholds(family, sampling, delta):
    K, mu, sd = 3, np.array([1.0, 0.4, 0.0]), np.array([1.0, 0.8, 1.2])
    idf, samples, checks = _play(K, delta, sampling, family, mu, sd, 3000, 5)
    assert idf.p_value < 1.0 and idf.p_value_valid
    L = -math.log(idf.p_value)
    t, counts, Z, best = next(c for c in checks if c[0] == idf._pv.time)
    assert best == idf.p_value_recommendation
    params = _fixed(family, K, delta)
    # the rule stops just below the level found and not just above it
    assert _stops(family, K, L * (1 - 1e-11), t, counts, Z, best, samples, params)
    assert not _stops(family, K, L * (1 + 1e-11), t, counts, Z, best, samples, params)
    if idf.stop_reason == "glr":  # the stop at delta: p <= delta, attained at the stop
        assert idf.p_value <= delta and idf.p_value_recommendation == idf.recommendation


def test_box_p_value_is_the_minimum_over_every_check():
    K, mu, sd, delta = 2, np.array([1.0, 0.0]), np.array([1.0, 1.0]), 1e-4
    idf, samples, checks = _play(K, delta, "tci", "box", mu, sd, 400, 3)
    L = -math.log(idf.p_value)
    params = _fixed("box", K, delta)
    above = L * (1 + 1e-11)
    assert not any(_stops("box", K, above, t, c, Z, b, samples, params) for t, c, Z, b in checks)
    assert any(_stops("box", K, L, t, c, Z, b, samples, params) for t, c, Z, b in checks)


def test_summary_and_text_carry_the_p_value():
    idf, _, _ = _play(2, 0.05, "tci", "box", [1.0, 0.0], [1.0, 1.0], 10_000, 0)
    s = idf.summary()
    assert s["p_value"] == idf.p_value <= 0.05
    assert s["p_value_recommendation"] == idf.recommendation == 0
    assert s["p_value_valid"] is True
    assert "p-value of 'arm 0 is not the best'" in format_summary(s)
    assert "anytime-valid" in format_summary(s)
    h, _, _ = _play(2, 0.05, "tci", "heuristic", [1.0, 0.0], [1.0, 1.0], 10_000, 0)
    assert "not valid" in h.format_summary()


def test_observe_many_counts_the_check_of_its_last_row():
    gen = np.random.default_rng(7)
    arms = np.tile([0, 1], 300)
    vals = np.where(arms == 0, 0.8, 0.0) + gen.standard_normal(arms.size)
    one = BestArmIdentifier(2, 1e-30, "tci", "box", strict=False)
    many = BestArmIdentifier(2, 1e-30, "tci", "box", strict=False)
    for a, x in zip(arms, vals, strict=True):
        one.observe(int(a), float(x))
    assert many.observe_many(arms, vals) == arms.size and not many.done
    fresh = PValueTracker("box", 2, -math.log(1e-30), {})
    fresh.update(one.n_samples, one.counts, one.glr(), 0, one._states)
    assert many.p_value == fresh.p_value < 1.0
    assert many.p_value_recommendation == 0
    # row by row every check counts: a p-value at most the batch's
    assert one.p_value <= many.p_value


def test_delta_correct_flag_comes_from_the_registry():
    assert not is_delta_correct("heuristic")
    assert all(is_delta_correct(f) for f in ("student", "box", "kl", "bob", "ev-box", "ev-bob"))
    assert PValueTracker("bob", 3, math.log(100), {}).valid


@pytest.mark.parametrize(
    "family,sampling", [("box", "uniform"), ("bob", "uniform"), ("ev-box", "ev-tci")]
)
def test_monte_carlo_anytime_validity(family, sampling):
    """P(p <= alpha and the recommendation it refers to is wrong) <= alpha for several
    alpha, on a hard two-arm instance observed for a fixed budget (the p-value of every
    check counted). The same runs show a naive p-value exp(-max GLR) is not valid."""
    runs, budget = 150, 200
    mu, sd = np.array([0.1, 0.0]), np.array([1.0, 1.0])
    alphas = (0.05, 0.1, 0.2, 0.5)
    bad = dict.fromkeys(alphas, 0)
    naive_bad = dict.fromkeys(alphas, 0)
    for r in range(runs):
        idf, _, checks = _play(2, 1e-12, sampling, family, mu, sd, budget, 1000 + r)
        for al in alphas:
            bad[al] += idf.p_value <= al and idf.p_value_recommendation != 0
        # naive: exp(-Z) of the wrong leader at its largest
        zmax = max((Z[1 - b] for _, _, Z, b in checks if b == 1), default=0.0)
        for al in alphas:
            naive_bad[al] += math.exp(-zmax) <= al
    for al in alphas:
        assert bad[al] / runs <= al, (al, bad[al])
    assert any(naive_bad[al] / runs > al for al in alphas), naive_bad


def test_the_command_prints_the_p_value(capsys):
    import json

    from baiuv import cli

    assert cli.main(["identify", "--simulate", "easy", "--seed", "1", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"p-value of 'arm 0 is not the best': [0-9.e-]+ \(anytime-valid\)", out)
    assert cli.main(["identify", "--simulate", "easy", "--seed", "1", "--quiet", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert 0.0 < d["p_value"] <= d["delta"] and d["p_value_recommendation"] == 0
    assert d["p_value_valid"] is True
