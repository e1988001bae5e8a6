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
