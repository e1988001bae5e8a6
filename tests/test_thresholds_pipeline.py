"""Threshold rules of the pipeline on the tiny test config, and the experiment helpers."""

import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from baiuv.io import read_table
from baiuv.thresholds.experiments import grid_values, initial_times, threshold_curves

ROOT = Path(__file__).resolve().parents[1]


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
    assert list(grid_values({"min": 10, "max": 1000, "num": 3}, integer=True)) == [10, 100, 1000]


@pytest.mark.slow
@pytest.mark.pipeline
def test_threshold_targets_with_test_config(tmp_path):
    snakemake = Path(sys.executable).with_name("snakemake")
    if not snakemake.exists():
        pytest.skip("snakemake not installed")
    (tmp_path / "config").mkdir()
    shutil.copy(ROOT / "config" / "test.yaml", tmp_path / "config" / "config.yaml")
    targets = [
        f"figures/thresholds_{w}.{e}" for w in ("glr", "evglr", "all") for e in ("pdf", "png")
    ]
    targets += ["results/tables/threshold_initial_times.md", "results/tables/threshold_costs.md"]
    cmd = [
        str(snakemake),
        "--cores",
        "2",
        "-s",
        str(ROOT / "Snakefile"),
        "--directory",
        str(tmp_path),
        *targets,
        "--configfile",
        str(tmp_path / "config" / "config.yaml"),
    ]
    res = subprocess.run(cmd, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr[-3000:]
    for t in targets:
        assert (tmp_path / t).stat().st_size > 0
    df, params = read_table(tmp_path / "results/thresholds/curves_time.parquet")
    assert params["gamma"] == 1.2 and set(df.family) >= {"bob", "ev-bob", "heuristic"}
    fin = df[np.isfinite(df.value)]
    glr = fin[fin.family == "bob"].groupby("x").value.mean()
    ev = fin[fin.family == "ev-bob"].groupby("x").value.mean()
    assert (ev.loc[glr.index] >= glr).all()
    table = (tmp_path / "results/tables/threshold_initial_times.md").read_text()
    assert "| box | 16 | 19 |" in table
