"""The pipeline on a real (single-node) SLURM cluster gives the same results as locally.

The test brings up its own cluster with ``tests/integration/slurm/cluster.sh`` (munged, slurmctld and
slurmd from Debian's ``slurm-wlm``/``munge``, accounting off, ``MinJobAge`` large) when it
runs as root, runs the simulation targets of the tiny configuration and one figure (so a
local rule runs too) through ``--workflow-profile profiles/slurm`` (status from
``squeue``, no account), and compares every simulation result value for value (wall-time
columns aside) with the session's local tiny-config run (``tiny_pipeline``). As in
``tests/integration/test_crash.py``, the run uses the Snakefile of that run's copy and a copy of its
numba cache (decision D65).
Everything it started is stopped by process id. It installs nothing: ``.ci/run`` calls
``tests/integration/slurm/install.sh`` first when it is root.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from pipeline_helpers import (
    REPO,
    TINY_SHARDS,
    TINY_SIM_TARGETS,
    assert_same_results,
    job_env,
    run_dir,
    run_snakemake,
    sim_args,
)

pytestmark = [pytest.mark.slurm, pytest.mark.pipeline, pytest.mark.slow]

CLUSTER = REPO / "tests" / "integration" / "slurm" / "cluster.sh"
FIGURE = "figures/stopping_times.pdf"  # built by a local rule (sim_figure)


def _skip_reason() -> str | None:
    if os.name != "posix" or shutil.which("bash") is None:
        return "needs a POSIX system with bash"
    check = subprocess.run(["bash", str(CLUSTER), "check"], capture_output=True, text=True)
    if check.returncode != 0:
        return check.stderr.strip() or "tests/integration/slurm/cluster.sh check failed"
    conf = Path("/etc/slurm/slurm.conf")
    if conf.exists() or conf.is_symlink():
        return f"{conf} exists: a SLURM installation is configured here, not starting a test one"
    return None


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    reason = _skip_reason()
    if reason:
        print(f"SKIP test_slurm: {reason}")
        pytest.skip(reason)
    d = tmp_path_factory.mktemp("slurm") / "cluster"
    up = subprocess.run(["bash", str(CLUSTER), "up", str(d)], capture_output=True, text=True)
    if up.returncode != 0:
        subprocess.run(["bash", str(CLUSTER), "down", str(d)], capture_output=True)
        pytest.fail(f"could not start the test cluster:\n{up.stdout}\n{up.stderr}")
    try:
        yield d
    finally:
        down = subprocess.run(
            ["bash", str(CLUSTER), "down", str(d)], capture_output=True, text=True
        )
        assert down.returncode == 0, down.stderr


def test_slurm_run_equals_local_run(cluster, tiny_pipeline, tmp_path):
    conf = cluster / "slurm.conf"
    root = run_dir(tiny_pipeline, tmp_path / "slurm")
    env = job_env(tiny_pipeline, SLURM_CONF=str(conf))
    res = run_snakemake(
        root,
        *sim_args(tiny_pipeline, FIGURE),
        "--workflow-profile",
        str(tiny_pipeline / "profiles" / "slurm"),
        "--slurm-status-command",
        "squeue",
        "--slurm-no-account",
        "--slurm-init-seconds-before-status-checks",
        "2",
        "--slurm-keep-successful-logs",
        "--jobs",
        "8",
        env=env,
        timeout=3600,
    )
    assert res.returncode == 0, res.stdout[-8000:]
    # the jobs really went through SLURM: one sbatch log per submitted job
    slurm_logs = list((root / ".snakemake" / "slurm_logs").rglob("*.log"))
    assert len(slurm_logs) >= TINY_SHARDS, "missing SLURM job logs: did the run use the executor?"
    assert "has been submitted with SLURM jobid" in res.stdout
    assert re.search(r"^localrule sim_figure:", res.stdout, re.M), "no local rule ran"
    squeue = subprocess.run(
        ["squeue", "-h", "-t", "all", "-o", "%i %T"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    states = [line.split()[1] for line in squeue.stdout.splitlines()]
    assert len(states) >= TINY_SHARDS and all(s == "COMPLETED" for s in states), squeue.stdout

    # the same values as the local, uninterrupted tiny run (wall-time columns aside)
    n = assert_same_results(root, tiny_pipeline, under="results/simulations")
    assert n == TINY_SHARDS + len(TINY_SIM_TARGETS)
    for ext in ("pdf", "png"):
        assert (root / FIGURE).with_suffix(f".{ext}").stat().st_size > 1000
