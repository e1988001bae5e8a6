"""Rows of the paper's stated settings (D316) and FHN's n0 (D317)."""

import math

import pandas as pd
import pytest

from baiuv.claims import DIFFERS, NOT_CHECKABLE, REPRODUCED
from baiuv.experiments.settings_claims import fhn_n0_claim, settings_claims


def _settings(**over):
    s = {
        "instances": [
            {
                "name": "standard",
                "mu": [1.0, 0.85, 0.8, 0.7, 0.65],
                "sigma2": [1.0, 0.6, 0.5, 0.4, 0.35],
            },
            {"name": "easy", "mu": [1.0, 0.2, 0.15, 0.1, 0.05], "sigma2": [1.0] + [0.05] * 4},
        ],
        "thresholds": {"s": 2.0, "gamma": 1.2, "eta0": None, "eta1": None},
        "simulation": {
            "delta": 0.01,
            "n0": 2,
            "beta": 0.5,
            "experiments": {
                "random": {
                    "kind": "random",
                    "n_instances": 3,
                    "K": 10,
                    "gap_range": [0.2, 1.0],
                    "var_range": [0.1, 10.0],
                },
                "standard": {"kind": "named", "instance": "standard", "runs": 6},
                "easy": {"kind": "named", "instance": "easy", "runs": 6},
            },
        },
        "delta_correct": {"beta": 0.5},
        "asymptotic": None,
    }
    for k, v in over.items():
        if isinstance(v, dict) and isinstance(s.get(k), dict):
            s[k] = {**s[k], **v}
        else:
            s[k] = v
    return s


def _by_claim(rows, words):
    found = [r for r in rows if words in r.claim]
    assert len(found) == 1, [r.claim for r in rows]
    return found[0]


def test_settings_rows_follow_the_configuration():
    """Each stated value against the configuration: equal gives reproduced, any other
    value in any section gives differs naming it; η = None is 1/ln(1/δ), and an explicit
    1/ln(1/δ) is the same setting."""
    rows = settings_claims(_settings(), delta=0.01, fhn_n0=47)
    assert all(r.verdict == REPRODUCED for r in rows if "FHN" not in r.claim)
    assert {r.topic for r in rows} == {rows[0].topic} and "settings" in rows[0].topic
    assert not any(r.beyond_paper for r in rows)
    thr = _by_claim(rows, "s=2, γ=1.2")
    assert "threshold figures: s = 2, γ = 1.2, 1/ln(1/δ)" in thr.ours
    assert "simulated runs" in thr.ours
    assert "runit.jl" in _by_claim(rows, "n0 ≥ 2").ours
    assert len([r for r in rows if "instance" in r.claim]) == 3  # standard, easy, random

    eta = 1.0 / math.log(100.0)
    same = settings_claims(_settings(thresholds={"eta0": eta, "eta1": eta}), delta=0.01, fhn_n0=47)
    assert _by_claim(same, "s=2, γ=1.2").verdict == REPRODUCED
    for over, words, why in [
        ({"thresholds": {"gamma": 1.5}}, "s=2, γ=1.2", "threshold figures"),
        ({"thresholds": {"eta0": 0.5}}, "s=2, γ=1.2", "threshold figures"),
        ({"simulation": {"beta": 0.7}}, "β = 0.5", "Figure 2's runs"),
        ({"delta_correct": {"beta": 0.3}}, "β = 0.5", "delta correct"),
        ({"simulation": {"n0": 1}}, "n0 ≥ 2", "n0 = 1 < 2"),
    ]:
        row = _by_claim(settings_claims(_settings(**over), delta=0.01, fhn_n0=47), words)
        assert row.verdict == DIFFERS and why in row.reason, (over, row)
    assert (
        _by_claim(settings_claims(_settings(), delta=0.05, fhn_n0=30), "δ=0.01").verdict == DIFFERS
    )
    bad = _settings()
    bad["instances"][1]["sigma2"] = [1.0, 0.05, 0.05, 0.05, 0.06]
    assert _by_claim(settings_claims(bad, delta=0.01, fhn_n0=47), "easy").verdict == DIFFERS
    rnd = _settings()
    rnd["simulation"]["experiments"]["random"]["var_range"] = [0.1, 5.0]
    row = _by_claim(settings_claims(rnd, delta=0.01, fhn_n0=47), "random instances")
    assert row.verdict == DIFFERS and "var_range" in row.reason


def _fhn_runs(min_count, K=5, tau=None, n0=47):
    rows = []
    for r in range(4):
        counts = [n0 + 10] * K
        counts[-1] = min_count if r == 0 else n0 + 10
        rows.append(
            dict(
                algorithm="FHN2",
                experiment="easy",
                K=K,
                stopping_time=sum(counts) if tau is None else tau,
                counts=counts,
            )
        )
    rows.append(dict(algorithm="TaS", experiment="easy", K=K, stopping_time=3, counts=[1] * K))
    return pd.DataFrame(rows)


def test_fhn_n0_row_reads_the_runs():
    """FHN's n0 = max(2, ⌈10 ln(1/δ)⌉) = 47 at δ = 0.01 (D45): the configured value and the
    runs (every arm ≥ n0 samples, τ ≥ n0·K) decide; the other rules' runs never count."""
    assert math.ceil(10 * math.log(100)) == 47
    ok = fhn_n0_claim(_fhn_runs(47), fhn_n0=47, delta=0.01)
    assert ok.verdict == REPRODUCED and "smallest per-arm count 47" in ok.ours
    assert "46.05" in ok.paper and "47" in ok.paper
    wrong_config = fhn_n0_claim(_fhn_runs(47), fhn_n0=46, delta=0.01)
    assert wrong_config.verdict == DIFFERS and "46 ≠ 47" in wrong_config.reason
    short = fhn_n0_claim(_fhn_runs(20), fhn_n0=47, delta=0.01)
    assert short.verdict == DIFFERS and "fewer than n0" in short.reason
    early = fhn_n0_claim(_fhn_runs(47, tau=100), fhn_n0=47, delta=0.01)
    assert early.verdict == DIFFERS and "before n0·K" in early.reason
    none = fhn_n0_claim(_fhn_runs(47).query("algorithm == 'TaS'"), fhn_n0=47, delta=0.01)
    assert none.verdict == NOT_CHECKABLE
    assert fhn_n0_claim(None, fhn_n0=47, delta=0.01).verdict == NOT_CHECKABLE


@pytest.mark.parametrize("delta, n0", [(0.5, 7), (0.9, 2)])
def test_fhn_n0_row_at_other_levels(delta, n0):
    """max(2, ·) binds for δ near 1; the rounding is up."""
    assert fhn_n0_claim(_fhn_runs(n0, n0=n0), fhn_n0=n0, delta=delta).verdict == REPRODUCED
