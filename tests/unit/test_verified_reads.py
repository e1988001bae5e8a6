"""Every result file is verified when read: a content digest written with the data
(``baiuv.storage.io``) and the provenance a shard records (``baiuv.storage.shards``), so a
corrupted, truncated or swapped file stops the run with a message naming it."""

from __future__ import annotations

import logging
import os

import numpy as np
import pandas as pd
import pytest

from baiuv.storage.io import CorruptResultError, read_table, write_table
from baiuv.storage.shards import read_shards, write_shard


def _frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "experiment": ["easy", "easy", "easy"],
            "algorithm": ["TCI", "TCI", "TCI"],
            "run": [0, 1, 2],
            "stopping_time": [120, 87, 301],
            "correct": [True, False, True],
            "mu": [np.array([1.0, 0.5]), np.array([1.0, 0.5]), np.array([1.0, 0.5])],
        }
    )


def _same(a: pd.DataFrame, b: pd.DataFrame) -> bool:
    try:
        pd.testing.assert_frame_equal(a, b)
    except AssertionError:
        return False
    return True


def test_every_single_byte_flip_is_refused_or_harmless(tmp_path):
    """Flip each byte of a small result file in turn: reading it either raises an error
    naming the file, or gives back exactly the table and parameters written (a flip in
    bytes nothing reads); never different values without an error."""
    path = write_table(_frame(), tmp_path / "shard_0.parquet", {"experiment": "easy"})
    good = path.read_bytes()
    ref_df, ref_params = read_table(path)
    silent = []
    for i in range(len(good)):
        bad = bytearray(good)
        bad[i] ^= 0x01
        path.write_bytes(bytes(bad))
        try:
            df, params = read_table(path)
        except CorruptResultError as exc:
            assert str(path) in str(exc) and "delete" in str(exc)
            continue
        if not (_same(df, ref_df) and params == ref_params):
            silent.append(i)
    assert not silent, f"{len(silent)} flips of {len(good)} changed the data silently"


def test_truncated_file_is_refused_naming_it(tmp_path):
    path = write_table(_frame(), tmp_path / "shard_0.parquet", {"experiment": "easy"})
    data = path.read_bytes()
    for keep in (0, 8, len(data) // 2, len(data) - 1):
        path.write_bytes(data[:keep])
        with pytest.raises(CorruptResultError, match=r"shard_0\.parquet.*delete it"):
            read_table(path)


def test_file_without_digest_is_refused(tmp_path):
    path = tmp_path / "foreign.parquet"
    _frame().to_parquet(path)
    with pytest.raises(CorruptResultError, match="foreign.parquet.*no content digest"):
        read_table(path)


def test_digest_keeps_files_byte_identical(tmp_path):
    a = write_table(_frame(), tmp_path / "a.parquet", {"seed": 1})
    b = write_table(_frame(), tmp_path / "b.parquet", {"seed": 1})
    assert a.read_bytes() == b.read_bytes()
    c = write_table(_frame().assign(run=[0, 1, 3]), tmp_path / "c.parquet", {"seed": 1})
    assert c.read_bytes() != a.read_bytes()


def _shard(tmp_path, experiment: str, shard: int = 0):
    df = _frame().assign(experiment=experiment, wall_time=[0.1, 0.2, 0.3])
    meta = {"experiment": experiment, "algorithm": "TCI", "shard": shard, "seed": 7}
    meta["spec"] = {"kind": "named", "instance": experiment}
    path = tmp_path / experiment / "TCI" / f"shard_{shard}.parquet"
    timing = tmp_path / "timings" / experiment / "TCI" / f"shard_{shard}.parquet"
    write_shard(df, path, meta, logging.getLogger("t"), "x", timing)
    return path


def test_swapped_shard_is_refused(tmp_path):
    """A valid shard of another cell copied over a shard (modification time kept) is
    refused by its consumer, naming the file and the field that differs."""
    standard = _shard(tmp_path, "standard")
    easy = _shard(tmp_path, "easy")
    expect = [{"experiment": "standard", "algorithm": "TCI", "shard": 0, "seed": 7}]
    frames, _ = read_shards([standard], expected=expect)
    assert len(frames[0]) == 3
    st = standard.stat()
    standard.write_bytes(easy.read_bytes())
    os.utime(standard, ns=(st.st_atime_ns, st.st_mtime_ns))
    with pytest.raises(CorruptResultError, match=r"standard/TCI/shard_0\.parquet.*experiment"):
        read_shards([standard], expected=expect)


def test_provenance_compares_nested_fields(tmp_path):
    path = _shard(tmp_path, "standard")
    ok = {"spec.kind": "named", "spec.instance": "standard", "seed": 7}
    read_shards([path], expected=[ok])
    for bad in ({"spec.instance": "easy"}, {"seed": 8}, {"n_shards": 2}):
        with pytest.raises(CorruptResultError, match="shard_0.parquet"):
            read_shards([path], expected=[bad])
    with pytest.raises(ValueError, match="1 expectations for 2 files"):
        read_shards([path, path], expected=[ok])


def test_temporaries_of_dead_writers_are_removed_by_the_next_write(tmp_path):
    """A job killed mid-write (SIGKILL) leaves ``.<name>.<pid>.<random>.tmp``; writing the
    same file again removes it, and only it (a live writer's temporary stays)."""
    import subprocess
    import sys

    proc = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        text=True,
        capture_output=True,
        check=True,
    )
    dead = int(proc.stdout)
    left = tmp_path / f".shard_0.parquet.{dead}.k1l2.tmp"
    live = tmp_path / f".shard_0.parquet.{os.getppid()}.m3n4.tmp"
    other = tmp_path / f".shard_1.parquet.{dead}.o5p6.tmp"
    for f in (left, live, other):
        f.write_bytes(b"")
    write_table(_frame(), tmp_path / "shard_0.parquet", {"experiment": "easy"})
    assert not left.exists()
    assert live.exists() and other.exists()
    assert sorted(f.name for f in tmp_path.iterdir()) == sorted(
        ["shard_0.parquet", live.name, other.name]
    )


def test_digest_of_columns_with_nulls_is_the_same_in_another_process(tmp_path):
    """Nullable booleans, integers and strings hash by value (never by object address):
    a file written here reads back in a fresh process, and a second write is identical."""
    import subprocess
    import sys

    df = pd.DataFrame(
        {
            "flag": pd.array([True, None, False], dtype="boolean"),
            "n": pd.array([1, None, 3], dtype="Int64"),
            "name": ["a", None, "c"],
            "x": [0.5, np.nan, -0.0],
        }
    )
    a = write_table(df, tmp_path / "a.parquet", {"k": 1})
    b = write_table(df.copy(), tmp_path / "b.parquet", {"k": 1})
    assert a.read_bytes() == b.read_bytes()
    code = "import sys; from baiuv.storage.io import read_table; read_table(sys.argv[1])"
    subprocess.run([sys.executable, "-c", code, str(a)], check=True)
    back, _ = read_table(a)
    pd.testing.assert_frame_equal(back, df)
