"""Timings apart from results (decision D131): shard files split, the list of timing files."""

from __future__ import annotations

import logging

import pandas as pd
import pytest

from baiuv.pipeline.timings import is_timing_file
from baiuv.storage.io import read_table
from baiuv.storage.shards import (
    RUN_KEY_COLUMNS,
    TIMING_COLUMNS,
    aggregate_timings,
    split_timings,
    write_shard,
)


def _runs(wall, runs=(0, 1, 2)):
    return pd.DataFrame(
        {
            "algorithm": "TCI",
            "experiment": "e",
            "instance_index": 0,
            "run": list(runs),
            "stopping_time": [10, 20, 30],
            "correct": [True, True, False],
            "truncated": False,
            "wall_time": wall,
        }
    )


def test_split_timings_keeps_keys_and_drops_timing_from_results():
    res, tim = split_timings(_runs([0.1, 0.2, 0.3]))
    assert not set(TIMING_COLUMNS) & set(res.columns)
    assert list(tim.columns) == ["experiment", "instance_index", "algorithm", "run", "wall_time"]
    assert set(tim.columns) - set(TIMING_COLUMNS) <= set(RUN_KEY_COLUMNS)
    assert tim["wall_time"].tolist() == [0.1, 0.2, 0.3]
    with pytest.raises(ValueError, match="timing columns"):
        split_timings(res)
    with pytest.raises(ValueError, match="run key columns"):
        split_timings(pd.DataFrame({"wall_time": [1.0]}))


def test_shard_result_files_do_not_depend_on_wall_times(tmp_path):
    log = logging.getLogger("test")
    params = {"seed": 1}
    write_shard(_runs([0.1, 0.2, 0.3]), tmp_path / "a.parquet", params, log, "a", tmp_path / "ta")
    write_shard(_runs([5.0, 6.0, 7.0]), tmp_path / "b.parquet", params, log, "b", tmp_path / "tb")
    assert (tmp_path / "a.parquet").read_bytes() == (tmp_path / "b.parquet").read_bytes()
    assert (tmp_path / "ta").read_bytes() != (tmp_path / "tb").read_bytes()
    df, meta = read_table(tmp_path / "ta")
    assert meta == params and df["wall_time"].tolist() == [0.1, 0.2, 0.3]


def test_aggregate_timings_concatenates_sorted_and_refuses_duplicates(tmp_path):
    log = logging.getLogger("test")
    paths = []
    for k, (runs, wall) in enumerate((((3, 4, 5), [3.0, 4.0, 5.0]), ((0, 1, 2), [0.0, 1.0, 2.0]))):
        paths.append(tmp_path / f"t{k}")
        write_shard(_runs(wall, runs), tmp_path / f"r{k}", {}, log, "s", paths[-1])
    df = aggregate_timings(paths, tmp_path / "all.parquet", {"x": 1})
    assert df["run"].tolist() == list(range(6))
    assert df["wall_time"].tolist() == [float(r) for r in range(6)]
    assert read_table(tmp_path / "all.parquet")[1] == {"x": 1}
    with pytest.raises(ValueError, match="duplicated"):
        aggregate_timings([paths[0], paths[0]], tmp_path / "dup.parquet")
    assert not (tmp_path / "dup.parquet").exists()


@pytest.mark.parametrize(
    ("path", "timing"),
    [
        ("results/timings/simulations/standard.parquet", True),
        ("results/timings/delta_correct.md", True),
        ("results/thresholds/costs.parquet", False),
        ("results/timings/threshold_costs.parquet", True),
        ("results/tables/threshold_costs.md", False),
        ("results/timings/threshold_costs.md", True),
        ("results/simulations/standard.parquet", False),
        ("results/thresholds/curves_delta.parquet", False),
        ("results/tables/delta_correct.md", False),
        ("results/reproduction.md", False),
        ("figures/stopping_times.pdf", False),
        ("results/timingsX/a.parquet", False),
    ],
)
def test_timing_files_are_exactly_the_documented_ones(path, timing):
    assert is_timing_file(path) is timing


def test_timing_keys_separate_levels_where_delta_underflows(tmp_path):
    """ln(1/delta) = 800 and 1000 both have delta = 0.0 (underflow); the timing files keep
    the level itself as a run key, so their aggregate holds two runs, not a duplicate."""
    log = logging.getLogger("test")
    paths = []
    for lid in (800.0, 1000.0):
        df = _runs([0.1, 0.2, 0.3]).assign(delta=0.0, log_inv_delta=lid)
        paths.append(tmp_path / f"t{lid:g}")
        write_shard(df, tmp_path / f"r{lid:g}", {}, log, "x", paths[-1])
    out = aggregate_timings(paths, tmp_path / "all")
    assert sorted(set(out["log_inv_delta"])) == [800.0, 1000.0] and len(out) == 6
