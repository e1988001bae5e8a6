"""Reproduction report: claims, verdicts and rendering."""

import numpy as np
import pandas as pd
import pytest

from baiuv.experiments.characteristic_times import instance_summary, ratio_sweep
from baiuv.report.reproduction import (
    DIFFERS,
    NOT_CHECKABLE,
    REPRODUCED,
    Claim,
    characteristic_claims,
    decisions,
    experiment_claims,
    render,
    slopes_in_log_inv_delta,
)


def test_claim_requires_reason_unless_reproduced():
    Claim("t", "c", "w", "1", "1", REPRODUCED)
    with pytest.raises(ValueError, match="reason"):
        Claim("t", "c", "w", "1", "2", DIFFERS)
    with pytest.raises(ValueError, match="verdict"):
        Claim("t", "c", "w", "1", "2", "maybe", "x")


def test_characteristic_claims_on_real_sweeps():
    inst = pd.DataFrame(
        [
            instance_summary("standard", [1.0, 0.85, 0.8, 0.7, 0.65], [1.0, 0.6, 0.5, 0.4, 0.35]),
            instance_summary("easy", [1.0, 0.2, 0.15, 0.1, 0.05], [1.0, 0.05, 0.05, 0.05, 0.05]),
        ]
    )
    gap = ratio_sweep("gap", np.geomspace(0.01, 100, 15), 0.5)
    var = ratio_sweep("variance", np.geomspace(1e-3, 1e3, 15), 0.2)
    claims = {c.claim: c for c in characteristic_claims(inst, gap, var)}
    assert claims["T*(μ,σ²)/T*_σ²(μ) on the easy instance"].verdict == REPRODUCED
    assert claims["T*(μ,σ²)/T*_σ²(μ) on the standard instance"].verdict == DIFFERS
    assert claims["1 < T*/T*_σ² ≤ d/ln(1+d) over the sweeps"].verdict == REPRODUCED
    # a sweep whose ratio exceeds the bound must be flagged
    broken = gap.copy()
    broken.loc[3, "ratio"] = broken.loc[3, "bound"] * 1.5
    claims = {c.claim: c for c in characteristic_claims(inst, broken, var)}
    assert claims["1 < T*/T*_σ² ≤ d/ln(1+d) over the sweeps"].verdict == DIFFERS


def test_slopes():
    x = np.linspace(1, 10, 10)
    df = pd.concat(
        [
            pd.DataFrame({"family": "kl", "x": x, "value": 1.0 * x + 5}),
            pd.DataFrame({"family": "box", "x": x, "value": 2.5 * x}),
        ]
    )
    s = slopes_in_log_inv_delta(df)
    assert s["kl"] == pytest.approx(1.0) and s["box"] == pytest.approx(2.5)


def _times(means, exp="easy"):
    return pd.DataFrame(
        [
            {
                "experiment": exp,
                "algorithm": a,
                "mean": m,
                "se": 1.0,
                "ratio_to_bound": 2.0,
                "lower_bound": 10.0,
            }
            for a, m in means.items()
        ]
    )


def test_experiment_claims_verdicts():
    errors = pd.DataFrame(
        [
            {"experiment": "easy", "algorithm": "TaS", "error_rate": 0.0, "wilson_low": 0.0},
            {"experiment": "easy", "algorithm": "TCI", "error_rate": 0.05, "wilson_low": 0.03},
        ]
    )
    means = {
        "TaS": 50,
        "EV-TaS": 45,
        "TCI": 52,
        "EV-TCI": 48,
        "uniform": 90,
        "fixed": 49,
        "FHN2": 200,
    }
    claims = {c.claim: c for c in experiment_claims(errors, _times(means), 0.01)}
    err = claims["empirical error below δ for every algorithm (heuristic threshold)"]
    assert err.verdict == DIFFERS and "TCI@easy" in err.reason
    assert claims["wrapped algorithms beat uniform sampling (easy)"].verdict == REPRODUCED
    assert claims["wrapped algorithms on par with the 'fixed' oracle (easy)"].verdict == REPRODUCED
    assert (
        claims["EV wrappers slightly better than adapted ones on the easy instance"].verdict
        == REPRODUCED
    )
    assert claims["FHN2 wastes samples on the easy instance"].verdict == REPRODUCED
    means2 = dict(means, TaS=89.5, FHN2=40, **{"EV-TCI": 60})
    claims = {c.claim: c for c in experiment_claims(errors, _times(means2), 0.01)}
    assert claims["wrapped algorithms beat uniform sampling (easy)"].verdict == DIFFERS
    assert claims["FHN2 wastes samples on the easy instance"].verdict == DIFFERS
    assert (
        claims["EV wrappers slightly better than adapted ones on the easy instance"].verdict
        == DIFFERS
    )


def test_render_and_decisions():
    md = "# x\n\n## D1: first\ntext\n## D12: second one\n"
    assert decisions(md) == [("D1", "first"), ("D12", "second one")]
    text = render(
        [Claim("thresholds", "c", "w", "1", "2", NOT_CHECKABLE, "machine")], decisions(md), "cfg"
    )
    assert "| c | w | 1 | 2 | not checkable | machine |" in text
    assert "**D12**: second one" in text
