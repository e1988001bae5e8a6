"""Atomic result files and deterministic seeds."""

import os

import numpy as np
import pandas as pd
import pytest

from baiuv.pipeline.io import read_table, write_table, write_text
from baiuv.simulation.rng import run_generator, run_seed, stable_int


def test_table_roundtrip_with_params(tmp_path):
    df = pd.DataFrame({"a": [1, 2], "b": [0.5, np.inf]})
    p = write_table(df, tmp_path / "x" / "t.parquet", {"delta": 0.01, "grid": np.arange(3)})
    back, params = read_table(p)
    pd.testing.assert_frame_equal(back, df)
    assert params == {"delta": 0.01, "grid": [0, 1, 2]}
    assert [f.name for f in p.parent.iterdir()] == ["t.parquet"]  # no temporary left


def test_failed_write_leaves_target_untouched(tmp_path):
    target = tmp_path / "t.parquet"
    write_table(pd.DataFrame({"a": [1]}), target, {"v": 1})
    before = target.read_bytes()

    class Boom:  # not serialisable by pyarrow
        pass

    with pytest.raises(Exception):  # noqa: B017
        write_table(pd.DataFrame({"a": [Boom()]}), target, {"v": 2})
    assert target.read_bytes() == before
    assert os.listdir(tmp_path) == ["t.parquet"]


def test_write_text_atomic(tmp_path):
    p = write_text("hello\n", tmp_path / "r.md")
    assert p.read_text() == "hello\n"


def test_seeds_deterministic_and_distinct():
    a = run_generator(1, "standard", "standard", "TaS", 3).normal(size=4)
    b = run_generator(1, "standard", "standard", "TaS", 3).normal(size=4)
    c = run_generator(1, "standard", "standard", "TaS", 4).normal(size=4)
    d = run_generator(1, "standard", "standard", "EV-TaS", 3).normal(size=4)
    np.testing.assert_array_equal(a, b)
    assert not np.allclose(a, c) and not np.allclose(a, d)
    assert run_seed(1, "e", "i", "a", 0).spawn_key == tuple(
        stable_int(k) for k in ("e", "i", "a", 0)
    )
    assert stable_int("TaS") == stable_int("TaS") != stable_int("EV-TaS")
    with pytest.raises(ValueError):
        stable_int(-1)


def test_progress_logs_rate_and_eta(caplog):
    import logging

    from baiuv.pipeline.logs import Progress

    t = [0.0]
    log = logging.getLogger("test-progress")
    p = Progress(log, "exp/alg", every=10.0, clock=lambda: t[0])
    with caplog.at_level(logging.INFO, logger="test-progress"):
        t[0] = 5.0
        p(1, 4)  # too early: nothing
        t[0] = 20.0
        p(2, 4)
        t[0] = 21.0
        p(4, 4)  # the end is always logged
    msgs = [r.getMessage() for r in caplog.records]
    assert len(msgs) == 2
    assert "2/4 runs (50%), 0.10 runs/s, elapsed 20 s, ETA 20 s" in msgs[0]
    assert "4/4 runs (100%)" in msgs[1]
