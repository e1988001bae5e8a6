"""Shared cell / shard helpers (``baiuv.storage.shards``) of the experiments and the adapters."""

import logging

import numpy as np
import pandas as pd
import pytest

from baiuv.model.instance import GaussianInstance
from baiuv.simulation.engine import CellRun, RunSettings, run_cell, simulate_run
from baiuv.storage.io import read_table
from baiuv.storage.shards import concat_runs, read_shards, write_shard

INST = GaussianInstance(np.array([0.0, -0.5]), np.array([1.0, 0.5]), "two")


def test_run_cell_rows_are_simulate_run_results():
    s = RunSettings(delta=0.05, max_samples=100_000)
    cell = {"instance": "two", "label": "x"}
    jobs = [CellRun(INST, "two", r, cell) for r in (3, 1)]
    calls = []
    cols = ["instance", "label", "run", "stopping_time", "correct", "counts"]
    df = run_cell(
        "TCI", s, jobs, seed=7, experiment="e", columns=cols, progress=lambda *a: calls.append(a)
    )
    assert list(df.columns) == cols and list(df["run"]) == [3, 1]
    assert calls == [(1, 2), (2, 2)]
    for row, r in zip(df.itertuples(index=False), (3, 1), strict=True):
        ref = simulate_run(
            INST, "TCI", settings=s, seed=7, experiment="e", instance_id="two", run=r
        )
        assert row.stopping_time == ref["stopping_time"] and row.counts == ref["counts"]
        assert row.label == "x" and row.correct == ref["correct"]
    empty = run_cell("TCI", s, [], seed=7, experiment="e", columns=cols)
    assert empty.empty and list(empty.columns) == cols


def test_write_read_and_concat_shards(tmp_path, caplog):
    a = pd.DataFrame(
        {"k": [2, 1], "run": [0, 0], "stopping_time": [10, 20], "correct": [True, False]}
    )
    a["truncated"] = False
    a["wall_time"] = 0.5
    log = logging.getLogger("test_shards")
    with caplog.at_level(logging.INFO, logger="test_shards"):
        write_shard(a, tmp_path / "a.parquet", {"shard": 0}, log, "cell A", tmp_path / "ta")
        write_shard(
            a.iloc[:0], tmp_path / "b.parquet", {"shard": 1}, log, "cell B", tmp_path / "tb"
        )
    assert "cell A: 2 runs, mean tau 15.0, errors 1, truncated 0, 1.0 s" in caplog.text
    assert "cell B: 0 runs, mean tau nan" in caplog.text
    assert read_table(tmp_path / "a.parquet")[1] == {"shard": 0}
    assert "wall_time" not in read_table(tmp_path / "a.parquet")[0]  # in the timing file
    assert read_table(tmp_path / "ta")[0].columns.tolist() == ["run", "wall_time"]
    frames, metas = read_shards([tmp_path / "a.parquet", tmp_path / "b.parquet"])
    assert metas == [{"shard": 0}, {"shard": 1}]
    out = concat_runs(frames, ["k", "run"], sort_by=["k"])
    assert list(out["k"]) == [1, 2] and list(out.index) == [0, 1]
    assert list(concat_runs(frames, ["k", "run"])["k"]) == [2, 1]
    with pytest.raises(ValueError, match="1 duplicated runs in the test shards"):
        concat_runs([a, a.iloc[:1]], ["k", "run"], what="test shards")
