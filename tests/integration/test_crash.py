"""Crash safety: a pipeline killed mid-simulation and rerun gives the uninterrupted results.

The simulation targets of the tiny configuration (``config/test.yaml``) are started in a
fresh working directory, and as soon as the first simulation shard is written and
Snakemake has registered it as finished (some, not all, of them are done; others are
running) Snakemake's whole process group is killed: SIGTERM, then SIGKILL after a grace
period (``pipeline_helpers.kill_group``). Then:

* every result file left behind is a complete, readable table (atomic writes: data go to a
  temporary file that is renamed into place, ``baiuv.storage.io``);
* rerunning as a user would (``snakemake --unlock`` if a lock was left behind, then the
  same command with ``--rerun-incomplete``) completes;
* the results equal, value for value, the same files of the session's uninterrupted
  tiny-config run (``tiny_pipeline``).

The crashed run uses the Snakefile (and so the package sources) of the ``tiny_pipeline``
copy, with a copy of its numba cache, so no kernel is compiled again (decision D65).

The edited-science rerun trigger (``params: code=SRC_HASH``) is tested here too, by dry
runs in a copy of the complete tiny run: nothing to do; touching a source file without
changing it reruns nothing; changing a source file reruns the compute rules, and
Snakemake's reason is the changed parameters.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from pipeline_helpers import (
    TINY_EXPERIMENTS,
    TINY_SHARDS,
    TINY_SIM_TARGETS,
    assert_same_results,
    job_env,
    kill_group,
    run_dir,
    run_snakemake,
    sim_args,
    snakemake_cmd,
)

from baiuv.storage.io import read_table

pytestmark = [pytest.mark.pipeline, pytest.mark.slow]


# a finished shard job: one shard (cluster) or a batch of shards (local runs, D226)
_FINISHED_SHARD = re.compile(
    r"^Finished jobid: \d+ \(Rule: (?:sim_shard|simulations_batch_\d+)\)", re.M
)


def _shards(root: Path) -> list[Path]:
    return sorted((root / "results" / "simulations").rglob("shard_*.parquet"))


def test_killed_pipeline_reruns_to_identical_results(tiny_pipeline, tmp_path):
    root = run_dir(tiny_pipeline, tmp_path / "crashed")
    # three one-core batch jobs (D226): one of them can finish, and be registered, while the
    # others still run (with `auto` the family is a single job)
    args = (*sim_args(tiny_pipeline), "--config", "shard_batches=3", "--cores", "2")
    log_path = tmp_path / "killed_run.log"
    with open(log_path, "w") as log:
        proc = subprocess.Popen(
            snakemake_cmd(*args),
            cwd=root,
            env=job_env(tiny_pipeline),
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            # kill once Snakemake has registered a finished shard (its file survives the
            # kill) while the other shards are still to run or running
            deadline = time.monotonic() + 900
            while not (_shards(root) and _FINISHED_SHARD.search(log_path.read_text())):
                assert proc.poll() is None, "the pipeline ended before any shard finished"
                assert time.monotonic() < deadline, "no finished shard after 900 s"
                time.sleep(0.05)
            done_at_kill = len(_shards(root))
            kill_group(proc, grace=10)  # SIGTERM to the group, SIGKILL after 10 s
        finally:
            if proc.poll() is None:
                kill_group(proc, grace=0)
    assert 0 < done_at_kill < TINY_SHARDS, "every shard finished before the kill"
    assert len(_shards(root)) < TINY_SHARDS, "every shard finished before the kill"
    # Snakemake finishes its running jobs on SIGTERM, so the aggregate of an experiment whose
    # shards were all written may have been built: never one with a shard missing
    per_experiment = TINY_SHARDS // len(TINY_EXPERIMENTS)
    built = []
    for experiment, target in zip(TINY_EXPERIMENTS, TINY_SIM_TARGETS, strict=True):
        if (root / target).exists():
            built.append(target)
            shards = list((root / "results" / "simulations" / experiment).rglob("shard_*.parquet"))
            assert len(shards) == per_experiment, f"{target} built with a shard missing"
    assert len(built) < len(TINY_SIM_TARGETS), "every aggregate built before the kill"

    # whatever survived the kill is a complete table (no truncated Parquet file)
    survivors = list((root / "results").rglob("*.parquet"))
    assert survivors
    for f in survivors:
        df, params = read_table(f)
        assert params, f"{f}: written without its parameters"
        assert len(df) > 0

    # as a user would after a crash: remove a stale lock if one is left, rerun
    locks = root / ".snakemake" / "locks"
    if locks.is_dir() and any(locks.iterdir()):
        run_snakemake(root, "--unlock", *args, env=job_env(tiny_pipeline), check=True)
    run_snakemake(root, "--rerun-incomplete", *args, env=job_env(tiny_pipeline), check=True)
    assert len(_shards(root)) == TINY_SHARDS
    n = assert_same_results(root, tiny_pipeline, under="results/simulations")
    assert n == TINY_SHARDS + len(TINY_EXPERIMENTS)


_JOB = re.compile(r"^(?:local)?rule (\w+):$", re.M)
_REASON = re.compile(r"^\s+reason: (.*)$", re.M)


def _dry_run(root: Path) -> dict[str, set[str]]:
    """``{rule: reasons}`` of the jobs a dry run of the whole tiny config would run."""
    res = run_snakemake(root, "-n", "--cores", "2", "--configfile", "config/test.yaml", check=True)
    jobs: dict[str, set[str]] = {}
    blocks = _JOB.split(res.stdout)[1:]
    for rule, body in zip(blocks[::2], blocks[1::2], strict=True):
        jobs.setdefault(rule, set()).update(_REASON.findall(body))
    if not jobs:
        assert "Nothing to be done" in res.stdout, res.stdout[-5000:]
    return jobs


def test_source_edits_rerun_compute_rules_and_touches_do_not(tiny_pipeline, tmp_path):
    root = tmp_path / "edits"
    shutil.copytree(
        tiny_pipeline,
        root,
        symlinks=True,
        ignore=shutil.ignore_patterns(".numba_cache", "__pycache__"),
    )
    assert _dry_run(root) == {}

    src = root / "src" / "baiuv" / "simulation" / "engine.py"
    src.touch()  # newer mtime, same content
    assert _dry_run(root) == {}

    src.write_text(src.read_text() + "\n# a changed line of science\n")
    rerun = _dry_run(root)
    # rules reading only the config rerun because their `code` parameter changed, the
    # rules downstream of them because their input will be rebuilt (the shards run in
    # batches locally, D226: rules simulations_batch_<b>, which wait for the kernels' rules,
    # D211, and the characteristic-time rules, which wait for the kernels' rules part, D220:
    # the rules with no job upstream are the kernels' parts and the threshold curves)
    batches = {r for r in rerun if re.fullmatch(r"simulations_batch_\d+", r)}
    assert batches, sorted(rerun)
    leaves = {"kernels_part", "threshold_curves"}
    downstream = batches | {"kernels", "characteristic_time_sweep", "sim_aggregate", "sim_figure"}
    assert leaves | downstream <= set(rerun), sorted(rerun)
    for rule in leaves:
        assert any(r.startswith("Params have changed") for r in rerun[rule]), rerun[rule]
    for rule, reasons in rerun.items():
        for r in reasons:
            assert r.startswith(("Params have changed", "Input files updated by another job")), (
                rule,
                r,
            )
