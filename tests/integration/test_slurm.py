"""The README's SLURM command, run as written on a real single-node SLURM cluster.

Every test here brings up its own throw-away cluster with ``tests/integration/slurm/cluster.sh`` (root
only; Debian's ``slurm-wlm``, ``munge``, ``slurmdbd`` and ``mariadb-server``, installed by
``tests/integration/slurm/install.sh``, which ``.ci/run`` calls) and tears it down by process id. Two
kinds of cluster (decision D130):

* accounting off (``AccountingStorageType=accounting_storage/none``, ``sacct`` fails,
  ``MinJobAge`` = one day): the run must follow its jobs with ``squeue``; with a short
  ``MinJobAge`` it must stop at once, before submitting anything, with one line naming it;
* accounting on (``slurmdbd`` backed by a private MariaDB server, ``sacct`` answers,
  SLURM's default ``MinJobAge``): the run keeps ``sacct``.

The command is taken from the README (the line running ``config/test.yaml`` through
``profiles/slurm``) and run unchanged in a fresh copy of the repository, with only the
site settings the README lists (partition, and an account on the cluster that has
accounts). Every output file must be byte-identical to the local tiny run
(``tiny_pipeline``) except the documented timing files (``baiuv.pipeline.timings``, decision D131).
An interrupted run (jobs cancelled with ``scancel``, Snakemake interrupted with SIGINT)
must complete when the same command is run again, with the same files; it builds one
experiment's simulations (a target added to the command), the uninterrupted run builds
everything.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest
from pipeline_helpers import (
    PARTIAL,
    REPO,
    TINY_SHARDS,
    assert_same_results,
    copy_repo,
    job_env,
    kill_group,
    snakemake_cmd,
)

from baiuv.storage.io import read_table

pytestmark = [pytest.mark.slurm, pytest.mark.pipeline, pytest.mark.slow]

CLUSTER = REPO / "tests" / "integration" / "slurm" / "cluster.sh"
README = REPO / "README.md"
PARTITION = "debug"  # the test cluster's only partition (cluster.sh)
ACCOUNT = "baiuv"  # created on the accounting cluster, as a site would have one
GENERATED = ("results", "logs", ".snakemake", "benchmarks/out")
# The experiment the interrupted run builds (12 shard jobs of the tiny configuration).
EXPERIMENT = "standard"
TARGET = f"results/simulations/{EXPERIMENT}.parquet"


def readme_slurm_command() -> list[str]:
    """The README's SLURM command for the tiny configuration, as an argument list."""
    text = README.read_text(encoding="utf-8")
    section = text.split("## On a SLURM cluster", 1)[1]
    section = section.split("\n## ", 1)[0]
    lines = [
        ln.split("#", 1)[0].strip()
        for block in re.findall(r"```bash\n(.*?)```", section, re.S)
        for ln in block.splitlines()
    ]
    found = [ln for ln in lines if "profiles/slurm" in ln and "config/test.yaml" in ln]
    assert len(found) == 1, f"expected one SLURM command for config/test.yaml, got {found}"
    argv = shlex.split(found[0])
    assert argv[0] == "snakemake", found[0]
    return argv


def test_readme_command_has_no_executor_flags():
    """What users run: the profile and the config, nothing about status commands."""
    argv = readme_slurm_command()
    assert argv == [
        "snakemake",
        "--workflow-profile",
        "profiles/slurm",
        "--configfile",
        "config/test.yaml",
    ]
    profile = (REPO / "profiles" / "slurm" / "config.yaml").read_text()
    assert not re.search(r"^\s*slurm-status-command", profile, re.M)
    for key in ("slurm_partition", "slurm_account"):  # the README's site settings
        assert re.search(rf"^\s*# {key}: ", profile, re.M), key


def test_a_dangling_link_to_a_test_cluster_is_stale_and_nothing_else(tmp_path):
    """A link left by a killed test cluster does not count as a SLURM installation; a real
    file, a live link and a dangling link elsewhere do."""
    gone = tmp_path / "slurm1" / "cluster" / "slurm.conf"  # never created
    link = tmp_path / "link.conf"
    link.symlink_to(gone)
    assert stale_test_link(link)
    other = tmp_path / "other.conf"
    other.symlink_to(tmp_path / "site" / "slurm.conf.d")
    assert not stale_test_link(other)
    gone.parent.mkdir(parents=True)
    gone.write_text("ClusterName=x\n")
    assert not stale_test_link(link)  # its cluster is up
    assert not stale_test_link(gone)  # a file


# ------------------------------------------------------------------------------ cluster
def _skip_reason(accounting: bool) -> str | None:
    if os.name != "posix" or shutil.which("bash") is None:
        return "needs a POSIX system with bash"
    args = ["bash", str(CLUSTER), "check"] + (["--accounting"] if accounting else [])
    check = subprocess.run(args, capture_output=True, text=True)
    if check.returncode != 0:
        return check.stderr.strip() or "tests/integration/slurm/cluster.sh check failed"
    conf = Path("/etc/slurm/slurm.conf")
    if conf.exists() or (conf.is_symlink() and not stale_test_link(conf)):
        return f"{conf} exists: a SLURM installation is configured here, not starting a test one"
    return None


def stale_test_link(conf: Path) -> bool:
    """Whether ``conf`` is a dangling link to a test cluster's ``slurm.conf``, left by a test
    cluster killed before ``cluster.sh down``: ``cluster.sh up`` removes it."""
    return (
        conf.is_symlink()
        and not conf.exists()
        and os.readlink(conf).endswith("/cluster/slurm.conf")
    )


class Cluster:
    """A running test cluster: its directory and the environment its clients need."""

    def __init__(self, path: Path, accounting: bool):
        self.path, self.accounting = path, accounting
        self.env = {"SLURM_CONF": str(path / "slurm.conf")}

    def run(self, *cmd: str, check: bool = True) -> subprocess.CompletedProcess:
        env = {**os.environ, **self.env}
        return subprocess.run(cmd, capture_output=True, text=True, env=env, check=check)

    def jobs(self) -> dict[str, str]:
        """``{job id: state}`` of every job the controller still lists."""
        out = self.run("squeue", "-h", "-t", "all", "-o", "%i %T").stdout
        return dict(line.split() for line in out.splitlines())

    def accounted(self) -> dict[str, tuple[str, str]]:
        """``{job id: (state, account)}`` from the accounting database (``sacct``)."""
        out = self.run(
            "sacct", "-X", "-n", "-P", "-o", "JobIDRaw,State,Account", "-S", "2000-01-01"
        ).stdout
        rows = [line.split("|") for line in out.splitlines() if line]
        return {r[0]: (r[1], r[2]) for r in rows}

    def accounted_jobs(self, ids: list[str], wait: float = 60.0) -> dict[str, tuple[str, str]]:
        """:meth:`accounted`, once the database lists every job of ``ids`` (the controller
        sends a job's record to ``slurmdbd`` some time after the job ends or is cancelled)."""
        deadline = time.monotonic() + wait
        while True:
            acct = self.accounted()
            if set(ids) <= set(acct) or time.monotonic() > deadline:
                return acct
            time.sleep(1)

    def set_partition_state(self, state: str) -> None:
        """``DOWN``: the test partition queues new jobs and starts none; ``UP``: it runs them."""
        self.run("scontrol", "update", f"PartitionName={PARTITION}", f"State={state}")

    def hold(self, *ids: str) -> None:
        """Keep queued jobs from starting (a job that started meanwhile is left to run)."""
        for i in ids:
            self.run("scontrol", "hold", i, check=False)

    def set_min_job_age(self, seconds: int) -> None:
        conf = self.path / "slurm.conf"
        conf.write_text(
            re.sub(r"^MinJobAge=\d+", f"MinJobAge={seconds}", conf.read_text(), flags=re.M)
        )
        self.run("scontrol", "reconfigure")
        for _ in range(50):
            if (
                f"MinJobAge               = {seconds} sec"
                in self.run("scontrol", "show", "config").stdout
            ):
                return
            time.sleep(0.2)
        raise AssertionError(f"MinJobAge did not become {seconds} s")


def _cluster(tmp_path_factory, accounting: bool):
    reason = _skip_reason(accounting)
    if reason:
        print(f"SKIP test_slurm: {reason}")
        pytest.skip(reason)
    d = tmp_path_factory.mktemp("slurm") / "cluster"
    args = ["bash", str(CLUSTER), "up", str(d)] + (["--accounting"] if accounting else [])
    up = subprocess.run(args, capture_output=True, text=True)
    if up.returncode != 0:
        subprocess.run(["bash", str(CLUSTER), "down", str(d)], capture_output=True)
        pytest.fail(f"could not start the test cluster:\n{up.stdout}\n{up.stderr}")
    try:
        yield Cluster(d, accounting)
    finally:
        down = subprocess.run(
            ["bash", str(CLUSTER), "down", str(d)], capture_output=True, text=True
        )
        assert down.returncode == 0, down.stderr


@pytest.fixture
def cluster_without_accounting(tmp_path_factory):
    yield from _cluster(tmp_path_factory, accounting=False)


@pytest.fixture
def cluster_with_accounting(tmp_path_factory):
    yield from _cluster(tmp_path_factory, accounting=True)


# ----------------------------------------------------------------------------- checkout
@pytest.fixture(scope="module")
def checkout(tmp_path_factory) -> Path:
    """A fresh copy of the repository, shared by the runs of this module (each test starts
    from a clean tree: :func:`clean`). One copy, so numba compiles its kernels once."""
    return copy_repo(tmp_path_factory.mktemp("slurm_checkout") / "baiuv")


def clean(root: Path) -> None:
    """Remove everything a run generated (results, logs, figures, Snakemake's state)."""
    for name in GENERATED:
        shutil.rmtree(root / name, ignore_errors=True)
    for f in (root / "figures").iterdir():
        f.unlink()
    shutil.copy2(REPO / "docs" / "reproduction.md", root / "docs" / "reproduction.md")


def set_site_settings(root: Path, partition: str, account: str | None = None) -> None:
    """Do what the README tells a user: uncomment the partition (and account) lines of
    ``profiles/slurm/config.yaml`` and fill in the site's values."""
    profile = root / "profiles" / "slurm" / "config.yaml"
    text = (REPO / "profiles" / "slurm" / "config.yaml").read_text()
    text, n = re.subn(r"# (slurm_partition): .*", rf'\1: "{partition}"', text)
    assert n == 1, "no slurm_partition line in profiles/slurm/config.yaml"
    if account is not None:
        text, n = re.subn(r"# (slurm_account): .*", rf'\1: "{account}"', text)
        assert n == 1, "no slurm_account line in profiles/slurm/config.yaml"
    profile.write_text(text)


def start(
    root: Path,
    cluster: Cluster,
    *extra: str,
    targets: tuple[str, ...] = (),
    env: dict[str, str] | None = None,
) -> subprocess.Popen:
    """Start the README's command in ``root`` (``snakemake`` of this environment), with
    ``targets`` before its arguments (``--configfile`` takes several values) and ``extra``
    after them, ``env`` added to its environment; its output goes to ``proc.log`` (read it
    with :func:`output`)."""
    argv = readme_slurm_command()
    log = root.parent / f"snakemake-{time.monotonic_ns()}.log"
    # A user's Ctrl-C reaches a Snakemake whose SIGINT has its default action. A test run
    # started in the background of a non-interactive shell (`cmd &`) ignores SIGINT, and
    # an ignored signal stays ignored through exec, so Snakemake would ignore the test's
    # SIGINT; a handled one is reset to the default in the child.
    if signal.getsignal(signal.SIGINT) in (signal.SIG_IGN, None):
        signal.signal(signal.SIGINT, signal.default_int_handler)
    with open(log, "w") as fh:
        proc = subprocess.Popen(
            snakemake_cmd(*targets, *argv[1:], *extra),
            cwd=root,
            env=job_env(root, **cluster.env, **(env or {})),
            stdout=fh,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
    proc.log = log
    return proc


def output(proc: subprocess.Popen) -> str:
    return proc.log.read_text(errors="replace")


def finish(proc: subprocess.Popen, timeout: float) -> str:
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        kill_group(proc)
        raise AssertionError(
            f"snakemake did not end within {timeout} s:\n{output(proc)[-5000:]}"
        ) from None
    return output(proc)


def run_readme_command(
    root: Path,
    cluster: Cluster,
    *extra: str,
    targets: tuple[str, ...] = (),
    timeout: float = 3600,
    env: dict[str, str] | None = None,
) -> str:
    proc = start(root, cluster, *extra, targets=targets, env=env)
    out = finish(proc, timeout)
    assert proc.returncode == 0, out[-8000:]
    return out


def interrupt(proc: subprocess.Popen, every: float = 5.0, tries: int = 24) -> None:
    """SIGINT to Snakemake's process group, again every ``every`` seconds until it says it
    is terminating or ends, as a user presses Ctrl-C again when nothing seems to happen."""
    for _ in range(tries):
        os.killpg(proc.pid, signal.SIGINT)
        deadline = time.monotonic() + every
        while time.monotonic() < deadline:
            if proc.poll() is not None or "Terminating processes on user request" in output(proc):
                return
            time.sleep(0.5)


def submitted(out: str) -> list[str]:
    return re.findall(r"has been submitted with SLURM jobid (\d+)", out)


_JOB = re.compile(
    r"^(?:local)?rule \w+:\n(?:    input: .*\n)?    output: (.*)\n(?:    .*\n)*?    jobid: (\d+)$",
    re.M,
)


def finished_outputs(out: str) -> set[str]:
    """Output files of the jobs Snakemake reported finished in its log ``out``."""
    outputs = {m.group(2): [f.strip() for f in m.group(1).split(",")] for m in _JOB.finditer(out)}
    done = re.findall(r"^Finished jobid: (\d+)", out, re.M)
    return {f for j in done for f in outputs.get(j, [])}


# -------------------------------------------------------------------------------- tests
def test_stops_at_once_when_no_status_command_can_follow_jobs(cluster_without_accounting, checkout):
    """No accounting and a short MinJobAge: one clear line naming the setting, nothing
    submitted, within seconds (not a silent wait)."""
    cl = cluster_without_accounting
    clean(checkout)
    set_site_settings(checkout, PARTITION)
    cl.set_min_job_age(60)
    try:
        t0 = time.monotonic()
        proc = start(checkout, cl)
        out = finish(proc, timeout=300)
        elapsed = time.monotonic() - t0
    finally:
        cl.set_min_job_age(86400)
    assert proc.returncode != 0, out[-5000:]
    lines = [ln for ln in out.splitlines() if "cannot follow SLURM jobs" in ln]
    assert len(lines) == 1, out[-5000:]
    assert "Slurm accounting storage is disabled" in lines[0]
    assert "MinJobAge = 60 s" in lines[0] and "MinJobAge=240" in lines[0], lines[0]
    assert not submitted(out) and not cl.jobs(), out[-5000:]
    assert elapsed < 240, f"took {elapsed:.0f} s to stop"
    print(f"stopped after {elapsed:.0f} s: {lines[0]}")


def test_readme_command_on_a_cluster_without_accounting(
    cluster_without_accounting, checkout, tiny_pipeline
):
    """Completes with squeue status, every job through SLURM, files equal to the local run;
    the node keeps one copy of numba's cache per stage of the kernels' compilation, in
    ``$TMPDIR`` (D60)."""
    cl = cluster_without_accounting
    clean(checkout)
    set_site_settings(checkout, PARTITION)
    node_tmp = checkout.parent / "node-tmp"
    shutil.rmtree(node_tmp, ignore_errors=True)
    node_tmp.mkdir()
    t0 = time.monotonic()
    out = run_readme_command(checkout, cl, env={"TMPDIR": str(node_tmp)})
    elapsed = time.monotonic() - t0
    assert "SLURM job status from squeue: job accounting does not answer" in out, out[-5000:]
    jobs = cl.jobs()
    ids = submitted(out)
    assert len(ids) >= TINY_SHARDS, "fewer SLURM jobs than simulation shards"
    assert {jobs.get(i) for i in ids} == {"COMPLETED"}, jobs
    assert re.search(r"^localrule sim_figure:", out, re.M), "no local rule ran"
    n = assert_same_results(checkout, tiny_pipeline)
    copies = sorted(p.name for p in node_tmp.glob("baiuv-numba-*"))
    assert 1 <= len(copies) <= 4, copies
    print(
        f"SLURM run without accounting: {len(ids)} jobs, {elapsed:.0f} s, {n} files equal, "
        f"{len(copies)} copies of numba's cache on the node"
    )
    # nothing left to do afterwards
    dry = run_readme_command(checkout, cl, "-n", timeout=600)
    assert "Nothing to be done" in dry, dry[-3000:]


def test_interrupted_readme_command_on_a_cluster_with_accounting(
    cluster_with_accounting, checkout, tiny_pipeline
):
    """sacct status; jobs cancelled with scancel and Snakemake interrupted (SIGINT) in the
    middle; the same command completes, reruns nothing that was finished, and every file
    equals the local run's (no half-written file accepted).

    The command builds one experiment's simulations (its aggregate named as the target,
    the only argument added to the README's command): what is claimed here is about
    cancelled jobs and resumed shards, which its shard jobs show; every rule of the tiny
    configuration runs through SLURM, with files equal to the local run's, in
    :func:`test_readme_command_on_a_cluster_without_accounting`."""
    cl = cluster_with_accounting
    cl.run("sacctmgr", "-i", "add", "account", ACCOUNT)
    cl.run("sacctmgr", "-i", "add", "user", "root", f"account={ACCOUNT}")
    clean(checkout)
    set_site_settings(checkout, PARTITION, ACCOUNT)

    def done_shards(out: str) -> list[str]:
        return sorted(f for f in finished_outputs(out) if f.startswith("results/simulations/"))

    # The cluster is paced, so the interruption falls in the middle however fast a shard
    # is: the partition takes jobs but starts none until the first four are chosen; every
    # later job is held, so some are still queued when Snakemake has seen four finish.
    cl.set_partition_state("DOWN")
    t0 = time.monotonic()
    proc = start(checkout, cl, targets=(TARGET,))
    try:
        deadline = time.monotonic() + 3000
        released: set[str] = set()
        while time.monotonic() < deadline and proc.poll() is None:
            pending = sorted(
                (i for i, s in cl.jobs().items() if s == "PENDING" and i not in released), key=int
            )
            if not released and len(pending) > 4:
                released = set(pending[:4])
                cl.hold(*pending[4:])
                cl.set_partition_state("UP")
            elif released:
                cl.hold(*pending)
                if len(done_shards(output(proc))) >= 4:
                    break
            time.sleep(0.2)
        assert proc.poll() is None, "the run ended before it could be interrupted"
        queued = [i for i, s in cl.jobs().items() if s in ("RUNNING", "PENDING")]
        assert queued, "no job queued or running at the deadline"
        cl.run("scancel", *queued)
        time.sleep(2)
        interrupt(proc)
        out1 = finish(proc, timeout=600)
    finally:
        if proc.poll() is None:
            kill_group(proc, grace=0)
        cl.set_partition_state("UP")
    interrupted_after = time.monotonic() - t0
    assert proc.returncode != 0, out1[-5000:]
    assert "SLURM job status from sacct (job accounting answers)" in out1, out1[-5000:]
    before = {f: (checkout / f).stat().st_mtime_ns for f in done_shards(out1)}
    assert len(before) >= 4
    states = cl.jobs()
    assert all(states[i] == "CANCELLED" for i in queued), states
    # the accounting lists every job that started (a job held until cancelled never does)
    started = [i for i in submitted(out1) if i not in queued]
    acct = cl.accounted_jobs(started)
    assert all(acct[i] == ("COMPLETED", ACCOUNT) for i in started), acct  # the site setting
    assert not [i for i, s in cl.jobs().items() if s in ("RUNNING", "PENDING")]
    # what the interruption left: complete result files (and maybe temporary files)
    for f in (checkout / "results").rglob("*.parquet"):
        df, params = read_table(f)
        assert params, f"{f}: written without its parameters"

    t1 = time.monotonic()
    out2 = run_readme_command(checkout, cl, targets=(TARGET,))
    elapsed = time.monotonic() - t1
    assert "SLURM job status from sacct (job accounting answers)" in out2, out2[-5000:]
    ids = submitted(out2)
    acct = cl.accounted_jobs(ids)
    assert ids and {acct[i][0] for i in ids} == {"COMPLETED"}, acct
    for f, mtime in before.items():  # finished before the interruption: not rerun
        assert (checkout / f).stat().st_mtime_ns == mtime, f"{f} was computed again"
    n = assert_same_results(checkout, tiny_pipeline, under=f"results/simulations/{EXPERIMENT}")
    assert (checkout / TARGET).read_bytes() == (tiny_pipeline / TARGET).read_bytes(), TARGET
    leftovers = [p for p in (checkout / "results").rglob("*") if PARTIAL.match(p.name)]
    print(
        f"SLURM run with accounting: interrupted after {interrupted_after:.0f} s "
        f"({len(before)} shards done, {len(queued)} jobs cancelled), rerun {len(ids)} jobs in "
        f"{elapsed:.0f} s, {n} files equal to the local run; {len(leftovers)} temporary "
        "files of killed writes (never read)"
    )
