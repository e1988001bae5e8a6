"""Crash safety: a pipeline killed mid-simulation and rerun gives the uninterrupted results.

The pipeline (default profile, simulation targets of a small configuration derived from
``config/test.yaml``) is started, and as soon as some but not all simulation shards exist,
Snakemake is killed: SIGTERM to Snakemake, then SIGKILL to its whole process group after
a grace period (``sigterm_then_sigkill``), or SIGKILL to the group at once, as a power cut
would (``sigkill``). Then:

* every result file left behind is a complete, readable table (atomic writes: data go to a
  temporary file that is renamed into place, ``baiuv.io``);
* rerunning as a user would (``snakemake --unlock`` if a lock was left behind, then
  ``--rerun-incomplete``) completes;
* the results equal, value for value, those of an uninterrupted run in another copy.

The edited-science rerun trigger (``params: code=SRC_HASH``) is tested here too: after a
complete run nothing reruns, touching a source file without changing it reruns nothing,
and changing a source file reruns the compute rules.
"""

from __future__ import annotations

import copy
import os
import signal
import subprocess
import time

import pytest
import yaml
from pipeline_helpers import (
    REPO,
    assert_same_results,
    copy_repo,
    job_env,
    kill_group,
    run_snakemake,
    snakemake_cmd,
)

from baiuv.io import read_table

pytestmark = [pytest.mark.pipeline, pytest.mark.slow]

TARGETS = ["results/simulations/standard.parquet"]
N_SHARDS = 3
ALGORITHMS = ["TaS", "uniform"]


def _crash_config() -> dict:
    cfg = copy.deepcopy(yaml.safe_load((REPO / "config" / "test.yaml").read_text()))
    sim = cfg["simulation"]
    sim["algorithms"] = ALGORITHMS
    sim["shards"] = N_SHARDS
    sim["experiments"] = {"standard": {"kind": "named", "instance": "standard", "runs": 12}}
    return cfg


def _prepare(root):
    copy_repo(root)
    (root / "config" / "crash.yaml").write_text(yaml.safe_dump(_crash_config(), sort_keys=False))
    return root


ARGS = (*TARGETS, "--cores", "2", "--configfile", "config/crash.yaml")


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    root = _prepare(tmp_path_factory.mktemp("crash") / "reference")
    res = run_snakemake(root, *ARGS)
    assert res.returncode == 0, res.stdout[-5000:]
    return root


def _shards(root):
    return sorted((root / "results" / "simulations").rglob("shard_*.parquet"))


@pytest.mark.parametrize("how", ["sigterm_then_sigkill", "sigkill"])
def test_killed_pipeline_reruns_to_identical_results(reference, tmp_path, how):
    root = _prepare(tmp_path / "crashed")
    total = len(ALGORITHMS) * N_SHARDS
    proc = subprocess.Popen(
        snakemake_cmd(*ARGS),
        cwd=root,
        env=job_env(root),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 900
        while not _shards(root):
            assert proc.poll() is None, "the pipeline ended before any shard was written"
            assert time.monotonic() < deadline, "no shard after 900 s"
            time.sleep(0.1)
        done_at_kill = len(_shards(root))
        assert done_at_kill < total, "every shard finished before the kill: enlarge the config"
        if how == "sigterm_then_sigkill":
            os.kill(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        else:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            kill_group(proc)
    assert not (root / "results" / "simulations" / "standard.parquet").exists()

    # whatever survived the kill is a complete table (no truncated Parquet file)
    for f in (root / "results").rglob("*.parquet"):
        df, params = read_table(f)
        assert params, f"{f}: written without its parameters"
        assert len(df) > 0

    # as a user would after a crash: remove a stale lock if one is left, rerun
    locks = root / ".snakemake" / "locks"
    if locks.is_dir() and any(locks.iterdir()):
        res = run_snakemake(root, "--unlock", *ARGS)
        assert res.returncode == 0, res.stdout[-5000:]
    res = run_snakemake(root, "--rerun-incomplete", *ARGS)
    assert res.returncode == 0, res.stdout[-5000:]
    assert len(_shards(root)) == total
    assert assert_same_results(root, reference) >= total + 1


def _dry_run_jobs(root) -> set[str]:
    res = run_snakemake(root, "-n", *ARGS)
    assert res.returncode == 0, res.stdout[-5000:]
    if "Nothing to be done" in res.stdout:
        return set()
    return {
        line.split()[1].rstrip(":") for line in res.stdout.splitlines() if line.startswith("rule ")
    }


def test_source_edits_rerun_compute_rules_and_touches_do_not(reference, tmp_path):
    import shutil

    root = tmp_path / "edits"
    shutil.copytree(reference, root, symlinks=True)
    assert _dry_run_jobs(root) == set()

    src = root / "src" / "baiuv" / "simulation" / "engine.py"
    os.utime(src, None)  # newer mtime, same content
    assert _dry_run_jobs(root) == set()

    src.write_text(src.read_text() + "\n# a changed line of science\n")
    rerun = _dry_run_jobs(root)
    assert {"sim_shard", "sim_aggregate"} <= rerun, rerun
