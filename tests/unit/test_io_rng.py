"""Atomic result files (usual permissions, byte-deterministic figures) and deterministic
seeds."""

import os
import stat
import subprocess
import sys
import textwrap

import numpy as np
import pandas as pd
import pytest

from baiuv.simulation.rng import run_generator, run_seed, stable_int
from baiuv.storage.io import copy_file, read_table, write_table, write_text


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


@pytest.mark.parametrize("umask", [0o022, 0o027, 0o077])
def test_atomic_files_get_the_mode_of_open(tmp_path, umask):
    """mkstemp creates 0600; committed files must get what open() gives: 0666 & ~umask
    (0644 under the usual umask 022). Reference: a file created with open() under the same
    umask."""
    old = os.umask(umask)
    try:
        ref = tmp_path / f"ref_{umask:o}"
        ref.write_text("x")
        written = [
            write_text("x\n", tmp_path / f"a_{umask:o}.md"),
            write_table(pd.DataFrame({"a": [1]}), tmp_path / f"t_{umask:o}.parquet"),
            copy_file(ref, tmp_path / f"c_{umask:o}.md"),
        ]
    finally:
        os.umask(old)
    want = stat.S_IMODE(ref.stat().st_mode)
    assert want == 0o666 & ~umask
    for p in written:
        assert stat.S_IMODE(p.stat().st_mode) == want, p.name
    if umask == 0o022:
        assert want == 0o644


_RENDER = textwrap.dedent(
    """
    import sys
    import numpy as np
    import pandas as pd
    from baiuv.storage.io import save_figure
    from baiuv.plotting.characteristic import ratio_figure

    x = np.logspace(-2, 2, 7)
    df = pd.DataFrame({"gap": x, "r": x, "ratio": 1 + 0.1 * np.log1p(x), "bound": 1 + x / 3})
    fig = ratio_figure(df, df, r_fixed=0.5, gap_fixed=0.2)
    save_figure(fig, sys.argv[1:])
    """
)


def _render(paths, **env):
    """Render the figure in a fresh process (environment without SOURCE_DATE_EPOCH + env)."""
    base = {k: v for k, v in os.environ.items() if k != "SOURCE_DATE_EPOCH"}
    subprocess.run(
        [sys.executable, "-c", _RENDER, *map(str, paths)],
        check=True,
        env={**base, **env},
        timeout=300,
    )


@pytest.mark.slow  # two fresh Python processes render a figure
def test_figures_are_byte_deterministic(tmp_path):
    """One figure rendered by two processes (different hash seeds, as two pipeline runs
    would be) gives identical PDF, PNG and SVG bytes; the PDF carries no creation date."""
    outs = []
    for run, seed in (("a", "1"), ("b", "2")):
        paths = [tmp_path / run / f"f.{ext}" for ext in ("pdf", "png", "svg")]
        _render(paths, PYTHONHASHSEED=seed)
        outs.append(paths)
    for a, b in zip(*outs, strict=True):
        assert a.stat().st_size > 1000
        assert a.read_bytes() == b.read_bytes(), a.suffix
    assert b"CreationDate" not in outs[0][0].read_bytes()
    assert b"<dc:date>" not in outs[0][2].read_bytes()


@pytest.mark.slow  # a fresh Python process renders a figure
def test_figure_date_honours_source_date_epoch(tmp_path):
    """With SOURCE_DATE_EPOCH set, the PDF is dated by it (reproducible builds convention)."""
    pdf = tmp_path / "f.pdf"
    _render([pdf], SOURCE_DATE_EPOCH="1676332800")  # 2023-02-14 00:00 UTC
    assert b"/CreationDate (D:20230214000000" in pdf.read_bytes()


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


def test_stable_int_is_the_sha256_prefix():
    """The key of a name is the first four bytes of its SHA-256, little-endian, on every call
    (the hash is kept between calls): the run streams of every published result use it."""
    import hashlib

    names = ["TaS", "EV-TaS", "standard", "random", "K10-3", "", "é", "a" * 300]
    for _ in range(2):
        for k in names:
            h = int.from_bytes(hashlib.sha256(k.encode()).digest()[:4], "little")
            assert stable_int(k) == h
    assert (stable_int("TaS"), stable_int("standard")) == (2143347568, 1748266494)


def test_simulated_run_draws_from_its_run_generator():
    """A run simulated from its keys equals the run given ``run_generator`` of the same keys."""
    from baiuv import STANDARD
    from baiuv.simulation import simulate_run

    keys = dict(seed=5, experiment="standard", instance_id="standard", run=7)
    for alg in ("TCI", "EV-TCI", "FHN1"):
        a = simulate_run(STANDARD, alg, **keys)
        b = simulate_run(
            STANDARD, alg, rng=run_generator(5, "standard", "standard", alg, 7), **keys
        )
        assert (a["stopping_time"], a["counts"]) == (b["stopping_time"], b["counts"])


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
