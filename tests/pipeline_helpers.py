"""Helpers for end-to-end pipeline tests: private repository copies, runs, comparisons.

Every pipeline test works in a fresh copy of the repository (sources, workflow, configs,
profiles; no results, logs, caches or ``.snakemake``), so tests never touch the
developer's ``results/`` and can run side by side. ``PYTHONPATH`` points at the copy's
``src`` so the jobs run the copied package even though the venv holds an editable install
of the original checkout.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import signal
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import yaml

from baiuv.pipeline.timings import is_timing_file

REPO = Path(__file__).resolve().parents[1]

# Folders holding a run's outputs (compared whole between two runs, timing files aside).
OUTPUT_FOLDERS = ("results", "figures")

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

# Temporary files of baiuv.storage.io's atomic writes (".<name>.<random>.tmp"): a job killed while
# writing may leave one behind; nothing ever reads them.
PARTIAL = re.compile(r"^\..+\.tmp$")


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


#: The running test (set by ``tests/conftest.py`` before its fixtures), ``None`` outside pytest.
CURRENT_TEST = None


def _check_marked() -> None:
    """A test that runs Snakemake must be marked ``pipeline`` (hence ``slow``)."""
    test = CURRENT_TEST
    if test is not None and test.get_closest_marker("pipeline") is None:
        raise AssertionError(
            f"{test.nodeid} runs Snakemake: mark it with @pytest.mark.pipeline (or use the "
            "tiny_pipeline fixture), so that it is left out of -m 'not slow'"
        )


def run_snakemake(
    workdir: Path,
    *args: str,
    timeout: float = 1800,
    env: dict[str, str] | None = None,
    check: bool = False,
) -> subprocess.CompletedProcess:
    """Run snakemake in ``workdir``; stdout and stderr are captured together. ``check``:
    ``AssertionError`` with the end of the output when it fails. Only in a test marked
    ``pipeline`` (:func:`_check_marked`)."""
    _check_marked()
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
    if check and proc.returncode != 0:
        raise AssertionError(f"snakemake {' '.join(args)} failed:\n{out[-8000:]}")
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


def output_files(workdir: Path, under: str | Sequence[str] = OUTPUT_FOLDERS) -> dict[str, str]:
    """``{relative path: sha256}`` of every output file under ``under`` (folders relative to
    ``workdir``), except the documented timing files (``baiuv.pipeline.timings``, decision D131) and
    the temporary files of interrupted atomic writes (:data:`PARTIAL`)."""
    folders = [under] if isinstance(under, str) else list(under)
    out = {}
    for folder in folders:
        root = workdir / folder
        if not root.exists():
            continue
        for f in sorted(root.rglob("*")):
            rel = f.relative_to(workdir).as_posix()
            if f.is_dir() or PARTIAL.match(f.name) or is_timing_file(rel):
                continue
            out[rel] = hashlib.sha256(f.read_bytes()).hexdigest()
    return out


def assert_same_results(a: Path, b: Path, under: str | Sequence[str] = OUTPUT_FOLDERS) -> int:
    """Assert two runs wrote byte-identical output files; return how many were compared.

    Every file under ``under`` (default: ``results/`` and ``figures/``) is compared whole,
    except the documented timing files (:func:`output_files`); both runs must have the same
    files there.
    """
    fa, fb = output_files(a, under), output_files(b, under)
    assert fa, f"no output files under {a}/{under}"
    assert sorted(fa) == sorted(fb), (
        f"different output files: only in {a}: {sorted(set(fa) - set(fb))}, "
        f"only in {b}: {sorted(set(fb) - set(fa))}"
    )
    differ = [name for name in fa if fa[name] != fb[name]]
    assert not differ, f"{len(differ)} of {len(fa)} files differ between {a} and {b}: {differ}"
    return len(fa)


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
