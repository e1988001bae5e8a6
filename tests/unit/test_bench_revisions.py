"""The revision comparison of ``benchmarks/bench_revisions.py``."""

import json

import pytest
from bench_helpers import load_benchmark


def _bench():
    return load_benchmark("bench_revisions")


def test_extract_holds_the_sources_of_the_commit(tmp_path):
    sha = _bench().extract_revision("HEAD", tmp_path, "src")
    assert len(sha) == 40
    assert (tmp_path / "src" / "baiuv" / "simulation" / "engine.py").is_file()
    assert not (tmp_path / "tests").exists()  # the sources only


def test_unknown_revision_is_named(tmp_path):
    with pytest.raises(SystemExit, match="'no-such-revision' is not a commit"):
        _bench().extract_revision("no-such-revision", tmp_path, "src")
    assert not any(tmp_path.iterdir())


def test_worker_times_every_cell_and_records_its_runs(capsys):
    """One cell per (rule, K), the EV-GLR round robin included; the runs' digest is the same
    on a second call (what the comparison of two revisions relies on)."""
    bench = _bench()
    bench.worker(1)
    first = json.loads(capsys.readouterr().out)
    bench.worker(1)
    second = json.loads(capsys.readouterr().out)
    from baiuv.simulation import ALGORITHMS

    assert set(first) == {f"{a}|{K}" for a in [*ALGORITHMS, "EV-uniform"] for K in (5, 10, 20)}
    for cell, v in first.items():
        assert v["runs"] == 1 and v["ns"] > 0
        assert second[cell]["digest"] == v["digest"]
    assert first["TCI|5"]["digest"] != first["EV-TCI|5"]["digest"]


def test_paired_ratio_interval_against_a_hand_computation():
    """Geometric mean of after/before and the Student interval on the logarithms, computed
    here by hand for three pairs (ratios 1.1, 1.0, 0.9)."""
    import math

    from scipy.stats import t

    g, lo, hi = _bench().paired_ratio_interval([10.0, 20.0, 30.0], [11.0, 20.0, 27.0])
    logs = [math.log(1.1), 0.0, math.log(0.9)]
    m = sum(logs) / 3
    sd = math.sqrt(sum((x - m) ** 2 for x in logs) / 2)
    half = t.ppf(0.975, 2) * sd / math.sqrt(3)
    assert g == pytest.approx(math.exp(m), rel=1e-12)
    assert (lo, hi) == pytest.approx((math.exp(m - half), math.exp(m + half)), rel=1e-12)
    assert lo < 1.0 < hi


def test_paired_ratio_interval_refuses_unpaired_input():
    with pytest.raises(ValueError, match="same length"):
        _bench().paired_ratio_interval([1.0, 2.0], [1.0])
    g, lo, hi = _bench().paired_ratio_interval([2.0], [3.0])
    assert g == pytest.approx(1.5) and lo != lo and hi != hi  # one pair: no interval


def test_marked_worker_calls_getppid_before_each_cell_and_after_the_last(capsys, monkeypatch):
    """The dump points of the counted run: one file of counts per cell, in the printed order."""
    import os

    calls = []
    monkeypatch.setattr(os, "getppid", lambda: calls.append(len(calls)) or 1)
    _bench().worker(1, ["uniform", "EV-TCI"], marks=True)
    cells = json.loads(capsys.readouterr().out)
    assert set(cells) == {f"{r}|{K}" for r in ("uniform", "EV-TCI") for K in (5, 10, 20)}
    assert len(calls) == len(cells) + 1
    assert all(v["samples"] >= 1 and v["runs"] == 1 for v in cells.values())


_DUMP = """# callgrind format
version: 1
creator: callgrind-3.19.0
events: Ir Bc Bcm Bi Bim
summary: {ir} 500 {bcm} 40 {bim}
fn=(1) main
0 {ir} 500 {bcm} 40 {bim}
totals: {ir} 500 {bcm} 40 {bim}
"""


def _dumps(tmp_path, counts):
    paths = []
    for k, (ir, bcm, bim) in enumerate(counts, start=1):
        p = tmp_path / f"cg.out.{k}"
        p.write_text(_DUMP.format(ir=ir, bcm=bcm, bim=bim))
        paths.append(p)
    return paths


def test_callgrind_totals_are_read_by_event_name(tmp_path):
    (path,) = _dumps(tmp_path, [(123456, 7, 3)])
    assert _bench().read_callgrind_totals(path) == {
        "Ir": 123456, "Bc": 500, "Bcm": 7, "Bi": 40, "Bim": 3
    }  # fmt: skip
    bad = tmp_path / "other.txt"
    bad.write_text("not a profile\n")
    with pytest.raises(ValueError, match="not a callgrind output file"):
        _bench().read_callgrind_totals(bad)


def test_cell_counts_skip_the_start_up_and_divide_by_the_samples(tmp_path):
    """File 1 is the start-up (imports, compilation check); file k + 1 is cell k."""
    dumps = _dumps(tmp_path, [(10**9, 1, 1), (4000, 10, 2), (9000, 30, 0)])
    cells = {"a|5": {"samples": 4, "runs": 1}, "a|10": {"samples": 3, "runs": 1}}
    got = _bench().cell_counts(cells, dumps)
    assert got["a|5"]["ir"] == 1000.0 and got["a|5"]["mispredicts"] == 3.0
    assert got["a|10"]["ir"] == 3000.0 and got["a|10"]["mispredicts"] == 10.0
    with pytest.raises(ValueError, match="expected 3 callgrind files"):
        _bench().cell_counts(cells, dumps[:2])


def test_counts_take_no_repeats(capsys):
    with pytest.raises(SystemExit):
        _bench().main(["HEAD~1", "--instructions", "--repeats", "3"])
    assert "--repeats does not apply to --instructions" in capsys.readouterr().err
