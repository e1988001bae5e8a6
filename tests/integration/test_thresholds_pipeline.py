"""Threshold rules of the pipeline on the tiny test config, and the experiment helpers."""

import numpy as np
import pytest

from baiuv.experiments.thresholds import initial_times, threshold_curves
from baiuv.pipeline.io import read_table


def test_initial_times_table_values():
    df = initial_times([0.1, 0.001]).set_index(["delta", "family"])
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
        f"figures/thresholds_{w}.{e}" for w in ("glr", "evglr", "all") for e in ("pdf", "png")
    ]
    targets += ["results/tables/threshold_initial_times.md", "results/tables/threshold_costs.md"]
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
