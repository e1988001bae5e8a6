"""Helpers for end-to-end pipeline tests: private repository copies, runs, comparisons.

Every pipeline test works in a fresh copy of the repository (sources, workflow, configs,
profiles; no results, logs, caches or ``.snakemake``), so tests never touch the
developer's ``results/`` and can run side by side. ``PYTHONPATH`` points at the copy's
``src`` so the jobs run the copied package even though the venv holds an editable install
of the original checkout.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

REPO = Path(__file__).resolve().parents[1]

# Simulation part of the tiny configuration (config/test.yaml), run by the session fixture
# ``tiny_pipeline`` (tests/conftest.py) and restricted to by the crash and SLURM tests.
_TINY_SIM = yaml.safe_load((REPO / "config" / "test.yaml").read_text())["simulation"]
TINY_EXPERIMENTS = list(_TINY_SIM["experiments"])
TINY_SHARDS = len(TINY_EXPERIMENTS) * len(_TINY_SIM["algorithms"]) * int(_TINY_SIM["shards"])
TINY_SIM_TARGETS = [f"results/simulations/{e}.parquet" for e in TINY_EXPERIMENTS]

_IGNORE_TOP = {
    ".venv",
    ".git",
    ".snakemake",
    "results",
    "logs",
    ".numba_cache",
    ".pytest_cache",
    ".ruff_cache",
    ".hypothesis",
    "report.html",
}
_IGNORE_ANY = {"__pycache__", "build"}

# Columns that measure wall-clock time: they legitimately differ between two runs.
WALL_TIME_COLUMNS = re.compile(r"(wall|elapsed|duration|runtime|seconds|timestamp|hostname)", re.I)


def _ignore(src: str, names: list[str]) -> set[str]:
    rel = Path(src).resolve().relative_to(REPO)
    out = {n for n in names if n in _IGNORE_ANY or n.endswith(".egg-info")}
    if rel == Path("."):
        out |= {n for n in names if n in _IGNORE_TOP}
    if rel == Path("benchmarks"):
        out |= {"out"} & set(names)
    if rel == Path("figures"):  # keep the folder, drop generated figures
        out |= set(names)
    return out


def copy_repo(dst: Path) -> Path:
    """Copy the repository (without generated files) to ``dst`` and return it."""
    shutil.copytree(REPO, dst, ignore=_ignore, symlinks=True)
    (dst / "figures").mkdir(exist_ok=True)
    return dst


def snakemake_cmd(*args: str) -> list[str]:
    """The snakemake command line of the running interpreter's environment."""
    return [sys.executable, "-m", "snakemake", *args]


def job_env(workdir: Path, **extra: str) -> dict[str, str]:
    """Environment for a run in ``workdir``: its own package sources first on the path."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(workdir / "src")] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else [])
    )
    env.pop("BAIUV_NUMBA_CACHE_DIR", None)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env.update(extra)
    return env


def run_snakemake(
    workdir: Path, *args: str, timeout: float = 1800, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess:
    """Run snakemake in ``workdir``; stdout and stderr are captured together."""
    proc = subprocess.Popen(
        snakemake_cmd(*args),
        cwd=workdir,
        env=env or job_env(workdir),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        kill_group(proc)
        out, _ = proc.communicate()
        raise AssertionError(f"snakemake timed out after {timeout} s:\n{out[-5000:]}") from None
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, None)


def kill_group(proc: subprocess.Popen, grace: float = 10.0) -> None:
    """SIGTERM the process group of ``proc`` (its own session), SIGKILL after ``grace`` s."""
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    try:
        proc.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        pass
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait()


def result_tables(workdir: Path, under: str = "results") -> dict[str, pd.DataFrame]:
    """Every Parquet result under ``workdir/under``, wall-time columns dropped."""
    out = {}
    for f in sorted((workdir / under).rglob("*.parquet")):
        df = pd.read_parquet(f)
        df = df.drop(columns=[c for c in df.columns if WALL_TIME_COLUMNS.search(str(c))])
        for c in df.columns:  # array-valued cells (e.g. allocations): compare as tuples
            if df[c].dtype == object:
                df[c] = [
                    tuple(np.ravel(v)) if isinstance(v, list | np.ndarray) else v for v in df[c]
                ]
        out[str(f.relative_to(workdir))] = df
    return out


def assert_same_results(a: Path, b: Path, under: str = "results") -> int:
    """Assert the Parquet results of two runs are equal value for value; return the count.

    Only files under ``under`` (relative to each run directory, default every result)
    are compared; both runs must have the same files there.
    """
    ta, tb = result_tables(a, under), result_tables(b, under)
    assert ta, f"no Parquet results under {a}/{under}"
    assert sorted(ta) == sorted(tb), (
        f"different result files: only in {a}: {sorted(set(ta) - set(tb))}, "
        f"only in {b}: {sorted(set(tb) - set(ta))}"
    )
    for name in ta:
        pd.testing.assert_frame_equal(
            ta[name].reset_index(drop=True),
            tb[name].reset_index(drop=True),
            check_exact=True,
            obj=name,
        )
    return len(ta)


def tree_state(workdir: Path, *folders: str) -> dict[str, tuple[int, int]]:
    """``{relative path: (mtime_ns, size)}`` of every file under ``folders`` of ``workdir``."""
    state = {}
    for folder in folders:
        root = workdir / folder
        if not root.exists():
            continue
        for f in root.rglob("*"):
            if f.is_file() or f.is_symlink():
                st = f.lstat()
                state[str(f.relative_to(workdir))] = (st.st_mtime_ns, st.st_size)
    return state


def run_dir(tiny: Path, dst: Path) -> Path:
    """A fresh working directory for the workflow of the run directory ``tiny``.

    It holds the configuration and a copy of the numba cache of ``tiny`` (no results, logs
    or ``.snakemake``). Runs in it pass ``sim_args(tiny)`` (``--snakefile <tiny>/Snakefile``)
    and ``job_env(tiny)``, so jobs import the sources of ``tiny`` and numba, whose cache
    entries are keyed by the absolute path of the source files, finds every kernel already
    compiled (decision D65).
    """
    dst.mkdir(parents=True)
    shutil.copytree(tiny / "config", dst / "config")
    if (tiny / ".numba_cache").is_dir():
        shutil.copytree(tiny / ".numba_cache", dst / ".numba_cache")
    return dst


def sim_args(tiny: Path, *targets: str) -> tuple[str, ...]:
    """Snakemake arguments building the simulation targets of the tiny config (and
    ``targets``) with the Snakefile of the run directory ``tiny`` (see ``run_dir``)."""
    # targets before --configfile, which takes several values
    return (
        "--snakefile",
        str(tiny / "Snakefile"),
        *TINY_SIM_TARGETS,
        *targets,
        "--configfile",
        "config/test.yaml",
    )
