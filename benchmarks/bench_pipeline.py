"""How much of a pipeline run's CPU time the simulated runs themselves take.

Copies the tracked files of this checkout (with their uncommitted edits), or those of a
given commit (``--revision``, to measure an earlier version on the same machine), into a
temporary directory, runs Snakemake there on the given targets and configuration, and prints, from
measurements taken in this run:

* the wall time and the CPU time of the whole run (Snakemake and every job it started,
  ``getrusage`` of the waited-for child processes);
* the runs' own time: the sum of the wall times of the simulated runs, read from the
  shards' timing files (``results/timings/**/shard_*.parquet``, decision D131);
* their ratio, the share of the pipeline's CPU spent in runs, and the rest: start-up,
  compilation, aggregates, tables, figures and Snakemake itself;
* the CPU time of the local batch jobs that ran the shards (their processes and workers
  from start to end, as their logs state it), and the share of it spent in runs: what the
  jobs that simulate spend on anything else (start-up, kernel loading, writing files).

The first run starts from an empty numba cache (the copy's ``.numba_cache``), so it
includes the compilation of the kernels; the second (``--runs 2``, the default) starts
again from nothing but the cache, as a second checkout on the same machine would.

Usage::

    .venv/bin/python benchmarks/bench_pipeline.py                       # default config, all
    .venv/bin/python benchmarks/bench_pipeline.py results/figures/stopping_times.pdf \\
        --configfile config/paper.yaml                                  # paper-scale Figure 2
    .venv/bin/python benchmarks/bench_pipeline.py --revision <commit>   # an earlier commit
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def copy_checkout(dest: Path) -> None:
    """Copy the tracked files of the checkout (as they are on disk) into ``dest``."""
    files = subprocess.run(
        ["git", "-C", str(ROOT), "ls-files", "-z"], check=True, capture_output=True
    ).stdout.split(b"\0")
    for name in filter(None, files):
        src = ROOT / os.fsdecode(name)
        if not src.exists():  # deleted in the working tree
            continue
        target = dest / os.fsdecode(name)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, target, follow_symlinks=False)


def extract_revision(rev: str, dest: Path, *paths: str) -> str:
    """Copy the tracked files of commit ``rev`` (those under ``paths``, or all) into
    ``dest``; returns its full id."""
    sha = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--verify", f"{rev}^{{commit}}"],
        capture_output=True,
        text=True,
    )
    if sha.returncode != 0:
        sys.exit(f"revision {rev!r} is not a commit of {ROOT}")
    archive = subprocess.Popen(
        ["git", "-C", str(ROOT), "archive", "--format=tar", sha.stdout.strip(), *paths],
        stdout=subprocess.PIPE,
    )
    # the "data" filter where this Python has it (3.11.4 and later); the archive is our own
    safe = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
    with tarfile.open(fileobj=archive.stdout, mode="r|") as t:
        t.extractall(dest, **safe)
    if archive.wait() != 0:
        sys.exit(f"git archive {rev} failed")
    return sha.stdout.strip()


def children_cpu() -> float:
    """CPU seconds of every child process waited for so far."""
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def runs_time(work: Path) -> tuple[float, int]:
    """Sum of the runs' wall times over the shards' timing files, and the number of runs."""
    import pandas as pd

    total, n = 0.0, 0
    for f in sorted((work / "results" / "timings").rglob("shard_*.parquet")):
        w = pd.read_parquet(f, columns=["wall_time"])["wall_time"]
        total += float(w.sum())
        n += len(w)
    return total, n


_JOB_CPU = re.compile(r"this job ([0-9.]+) CPU s since its start")


def shard_jobs_cpu(work: Path) -> float | None:
    """CPU seconds of the batch jobs that ran the shards, from their logs
    (``logs/batches/*.log``: the whole process and its workers, start-up included); ``None``
    when no batch job ran (one job per shard, ``shard_batches: off``)."""
    total = [
        float(m.group(1))
        for f in sorted((work / "logs" / "batches").glob("*.log"))
        for m in _JOB_CPU.finditer(f.read_text())
    ]
    return sum(total) if total else None


def run_pipeline(work: Path, args: argparse.Namespace) -> dict:
    """One Snakemake run in ``work`` after removing its results (the numba cache stays)."""
    for d in ("results", "logs", ".snakemake", "benchmarks/out"):
        shutil.rmtree(work / d, ignore_errors=True)
    env = dict(os.environ)
    for var in ("NUMBA_CACHE_DIR", "BAIUV_NUMBA_CACHE_DIR"):  # the copy's own cache
        env.pop(var, None)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(work / "src"), env.get("PYTHONPATH")]))
    cmd = [sys.executable, "-m", "snakemake", *args.targets, "--cores", str(args.cores), "-q"]
    if args.configfile:
        cmd += ["--configfile", args.configfile]
    cpu0, t0 = children_cpu(), time.perf_counter()
    res = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True)
    wall, cpu = time.perf_counter() - t0, children_cpu() - cpu0
    if res.returncode != 0:
        sys.exit(f"snakemake failed ({res.returncode}):\n{res.stdout[-3000:]}{res.stderr[-3000:]}")
    runs, n_runs = runs_time(work)
    return {"wall": wall, "cpu": cpu, "runs": runs, "n_runs": n_runs, "jobs": shard_jobs_cpu(work)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("targets", nargs="*", help="Snakemake targets (default: the default rule)")
    ap.add_argument("--configfile", help="extra configuration, e.g. config/paper.yaml")
    ap.add_argument("--cores", type=int, default=2, help="--cores of the runs (default 2)")
    ap.add_argument(
        "--runs", type=int, default=2, help="1: empty numba cache only; 2 (default): then cached"
    )
    ap.add_argument(
        "--revision",
        help="measure this commit's tracked files instead of the checkout (e.g. HEAD~10)",
    )
    args = ap.parse_args(argv)
    if args.cores < 1:
        ap.error(f"--cores must be >= 1, got {args.cores}")
    if args.runs not in (1, 2):
        ap.error(f"--runs must be 1 or 2, got {args.runs}")
    what = " ".join(args.targets) or "default target"
    print(
        f"pipeline: {what}, config {args.configfile or 'config/config.yaml'}, --cores {args.cores}"
    )
    with tempfile.TemporaryDirectory(prefix="bench-pipeline-") as tmp:
        work = Path(tmp)
        if args.revision:
            print(f"code: commit {extract_revision(args.revision, work)}")
        else:
            copy_checkout(work)
        measure(work, args)
    print("target: runs >= 90% of the pipeline's CPU time (start-up overhead <= 10%)")
    return 0


def measure(work: Path, args: argparse.Namespace) -> None:
    """Run the pipeline in ``work`` (``--runs`` times) and print a line per run."""
    print(
        f"{'numba cache':<12} {'wall s':>8} {'CPU s':>8} {'runs s':>8} {'runs':>8} {'runs/CPU':>9}"
        f" {'shard jobs CPU s':>17} {'runs/their CPU':>15}"
    )
    for label in ("empty", "filled")[: args.runs]:
        r = run_pipeline(work, args)
        share = r["runs"] / r["cpu"] if r["cpu"] > 0 else float("nan")
        jobs = (
            f"{r['jobs']:17.1f} {r['runs'] / r['jobs']:15.1%}"
            if r["jobs"]
            else f"{'(no batch job)':>17} {'-':>15}"
        )
        print(
            f"{label:<12} {r['wall']:8.1f} {r['cpu']:8.1f} {r['runs']:8.1f} "
            f"{r['n_runs']:8d} {share:9.1%} {jobs}",
            flush=True,
        )


if __name__ == "__main__":
    sys.exit(main())
