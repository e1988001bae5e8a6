"""Threshold rules of the pipeline on the tiny test config, and the experiment helpers."""

import numpy as np
import pytest

from baiuv.experiments.thresholds import initial_times, threshold_curves
from baiuv.storage.io import read_table


def test_initial_times_table_values():
    df = initial_times([0.1, 0.001]).set_index(["delta", "family"])
    # t^m alone: first count 3 ("after 2 samples", Sec. ssec:beyond_box), BoB at delta/2
    assert df.loc[(0.1, "kl"), "monotonicity_count"] == 3
    assert df.loc[(0.001, "bob"), "monotonicity_count"] == 3
    assert np.isnan(df.loc[(0.1, "box"), "monotonicity_count"])
    assert df.loc[(0.1, "box"), "statement_count"] == 16
    assert df.loc[(0.001, "box"), "statement_count"] == 19
    # D16: KL finite later than its statement's initial time at delta = 0.1
    assert df.loc[(0.1, "kl"), "statement_count"] == 17
    assert df.loc[(0.1, "kl"), "first_finite_count"] == 19
    assert (df["first_finite_count"] >= df["statement_count"]).all()


def test_curves_shapes_and_reproducibility():
    kw = dict(families=("box", "kl"), times=[40, 400], streams=2, seed=3)
    a = threshold_curves("time", **kw)
    b = threshold_curves("time", **kw)
    assert a.equals(b)
    assert set(a.family) == {"box", "kl"}
    assert (a[a.family == "box"].stream == -1).all() and set(a[a.family == "kl"].stream) == {0, 1}
    with pytest.raises(ValueError, match="axis"):
        threshold_curves("space", **kw)


@pytest.mark.pipeline
def test_threshold_targets_with_test_config(tiny_pipeline):
    """Threshold outputs of the session's tiny-config run (decision D64)."""
    work = tiny_pipeline
    targets = [
        f"results/figures/thresholds_{w}.{e}"
        for w in ("glr", "evglr", "all")
        for e in ("pdf", "png")
    ]
    targets += ["results/tables/threshold_initial_times.md", "results/timings/threshold_costs.md"]
    for t in targets:
        assert (work / t).stat().st_size > 0
    df, params = read_table(work / "results/thresholds/curves_time.parquet")
    assert params["gamma"] == 1.2 and set(df.family) >= {"bob", "ev-bob", "heuristic"}
    fin = df[np.isfinite(df.value)]
    glr = fin[fin.family == "bob"].groupby("x").value.mean()
    ev = fin[fin.family == "ev-bob"].groupby("x").value.mean()
    assert (ev.loc[glr.index] >= glr).all()
    table = (work / "results/tables/threshold_initial_times.md").read_text()
    assert "| box | 16 | 19 |" in table
    # BoB slope study and Ipopt agreement are pipeline outputs (D171, D172)
    for t in (
        "results/tables/bob_slope.md",
        "results/figures/bob_slope.png",
        "results/tables/ipopt_agreement.md",
    ):
        assert (work / t).stat().st_size > 0
    agree, _ = read_table(work / "results/thresholds/ipopt_agreement.parquet")
    assert set(agree.family) == {"bob", "ev-bob"} and set(agree.axis) == {"delta", "time"}
    assert (agree.rel_diff.abs() < 1e-5).all()
    costs = (work / "results/timings/threshold_costs.md").read_text()
    assert "exact global solver" in costs


def test_ipopt_agreement_and_summary():
    """Ipopt agrees with the exact solver on a small grid; a value below the exact one is
    counted as a local maximum and a failure as a failure."""
    from baiuv.experiments.thresholds import agreement_summary, ipopt_agreement
    from baiuv.thresholds.bob import ipopt_backend

    if ipopt_backend() is None:
        pytest.skip("no Ipopt backend")
    df = ipopt_agreement("time", times=[200, 2000], streams=1, seed=1)
    assert set(df.family) == {"bob", "ev-bob"} and len(df) == 4
    # the exact values are the thresholds of the curves (same streams)
    cur = threshold_curves("time", families=("bob", "ev-bob"), times=[200, 2000], streams=1, seed=1)
    merged = df.merge(cur, on=["family", "x", "stream"])
    np.testing.assert_allclose(merged["exact"], merged["value"], rtol=1e-12)
    s = agreement_summary(df).set_index("family")
    assert (s["local_maxima"] == 0).all() and (s["max_abs_rel_diff"] < 1e-5).all()
    broken = df.copy()
    broken.loc[0, "ipopt"] = broken.loc[0, "exact"] * 0.9
    broken.loc[0, "rel_diff"] = 0.1
    broken.loc[0, "local_max"] = True
    broken.loc[1, "ipopt"] = np.nan
    s2 = agreement_summary(broken)
    assert s2["local_maxima"].sum() == 1 and s2["failures"].sum() == 1
    with pytest.raises(ValueError, match="families"):
        ipopt_agreement("time", families=("kl",), times=[200])
