"""The runs' time of ``benchmarks/bench_pipeline.py``."""

import pandas as pd
import pytest
from bench_helpers import load_benchmark


def _bench():
    return load_benchmark("bench_pipeline")


def test_runs_time_sums_the_shards_and_not_their_aggregates(tmp_path):
    """Each run's wall time is counted once: from its shard's timing file, not again from
    the aggregate timing file next to the shards (both live under ``results/timings``)."""
    timings = tmp_path / "results" / "timings" / "simulations"
    shards = {"standard/TaS/shard_0.parquet": [0.5, 0.25], "easy/TCI/shard_3.parquet": [0.125]}
    for name, walls in shards.items():
        (timings / name).parent.mkdir(parents=True, exist_ok=True)
        pd.DataFrame({"run": range(len(walls)), "wall_time": walls}).to_parquet(timings / name)
    pd.DataFrame({"wall_time": [0.5, 0.25]}).to_parquet(timings / "standard.parquet")
    assert _bench().runs_time(tmp_path) == (0.875, 3)


def test_copy_holds_the_tracked_files_only(tmp_path):
    bench = _bench()
    bench.copy_checkout(tmp_path)
    assert (tmp_path / "Snakefile").is_file()
    assert (tmp_path / "src" / "baiuv" / "pipeline" / "batches.py").is_file()
    assert not (tmp_path / ".venv").exists() and not (tmp_path / "results").exists()


def test_shard_jobs_cpu_is_read_from_the_batch_logs(tmp_path):
    bench = _bench()
    assert bench.shard_jobs_cpu(tmp_path) is None  # one job per shard: no batch log
    logs = tmp_path / "logs" / "batches"
    logs.mkdir(parents=True)
    line = (
        "2026-01-01 00:00:00,000 INFO {n} shards in {s} CPU s; this job {j} CPU s since its start\n"
    )
    (logs / "simulations_0.log").write_text("shard 1/3 done\n" + line.format(n=3, s=9.5, j=11.25))
    (logs / "audit_0.log").write_text(line.format(n=2, s=1.0, j=2.5))
    assert bench.shard_jobs_cpu(tmp_path) == 13.75


def test_revision_copy_holds_the_commit_and_an_unknown_one_is_named(tmp_path):
    bench = _bench()
    sha = bench.extract_revision("HEAD", tmp_path / "head")
    assert len(sha) == 40
    assert (tmp_path / "head" / "Snakefile").is_file()
    assert (tmp_path / "head" / "config" / "config.yaml").is_file()
    with pytest.raises(SystemExit, match="'no-such-revision' is not a commit"):
        bench.extract_revision("no-such-revision", tmp_path / "bad")
    assert not (tmp_path / "bad").exists()
