"""The pipeline on a real (single-node) SLURM cluster gives the same results as locally.

The test brings up its own cluster with ``tests/slurm/cluster.sh`` (munged, slurmctld and
slurmd from Debian's ``slurm-wlm``/``munge``, accounting off, ``MinJobAge`` large) when it
runs as root, runs the tiny configuration through ``--workflow-profile profiles/slurm``
(status from ``squeue``, no account), runs it again locally in another copy of the
repository, and compares every Parquet result value for value (wall-time columns aside).
Everything it started is stopped by process id. It installs nothing: ``.ci/run`` calls
``tests/slurm/install.sh`` first when it is root.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from pipeline_helpers import REPO, assert_same_results, copy_repo, job_env, run_snakemake

pytestmark = [pytest.mark.slurm, pytest.mark.pipeline, pytest.mark.slow]

CLUSTER = REPO / "tests" / "slurm" / "cluster.sh"


def _skip_reason() -> str | None:
    if os.name != "posix" or shutil.which("bash") is None:
        return "needs a POSIX system with bash"
    check = subprocess.run(["bash", str(CLUSTER), "check"], capture_output=True, text=True)
    if check.returncode != 0:
        return check.stderr.strip() or "tests/slurm/cluster.sh check failed"
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


def test_slurm_run_equals_local_run(cluster, tmp_path):
    conf = cluster / "slurm.conf"
    slurm_repo = copy_repo(tmp_path / "slurm")
    local_repo = copy_repo(tmp_path / "local")

    env = job_env(slurm_repo, SLURM_CONF=str(conf))
    res = run_snakemake(
        slurm_repo,
        "--workflow-profile",
        "profiles/slurm",
        "--configfile",
        "config/test.yaml",
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
    slurm_logs = list((slurm_repo / ".snakemake" / "slurm_logs").rglob("*.log"))
    assert slurm_logs, "no SLURM job logs: did the run use the slurm executor?"
    assert "has been submitted with SLURM jobid" in res.stdout
    squeue = subprocess.run(
        ["squeue", "-h", "-t", "all", "-o", "%i %T"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    states = [line.split()[1] for line in squeue.stdout.splitlines()]
    assert states and all(s == "COMPLETED" for s in states), squeue.stdout

    res = run_snakemake(local_repo, "--cores", "2", "--configfile", "config/test.yaml")
    assert res.returncode == 0, res.stdout[-8000:]

    n = assert_same_results(slurm_repo, local_repo)
    assert n >= 1
    for md in (local_repo / "results" / "tables").glob("*.md"):
        assert (slurm_repo / md.relative_to(local_repo)).read_text() == md.read_text(), md.name
