"""Per-sample cost of every rule at two revisions of the code, measured in one run.

Extracts the tracked sources of each revision (``git archive``) into a temporary directory
and runs this script's worker once per revision and repeat, in a fresh process whose
``PYTHONPATH`` is that revision's ``src`` (the same interpreter and packages for both), the
revisions alternating (A B A B ...) so that a drift of the machine's speed hits both. Each
revision compiles its kernels into its own numba cache before its first timing.

A worker times :func:`baiuv.simulation.simulate_run` (what an experiment calls per run:
the kernel's arguments, the kernel, the result) over the runs with generators
``numpy.random.default_rng(r)``, ``r = 0, 1, ...``, until ``--min-samples`` samples, for
every registered algorithm and for round robin with the EV-GLR stopping rule
(``EV-uniform``), at K = 5 (standard instance), K = 10 and K = 20 (the fixed random
instances of ``bench_floor.py``: seed 1, the paper's ranges), heuristic threshold,
``delta = 0.01``. It prints, from measurements taken in this run:

* the CPU time per sample of each cell at each revision (minimum over the repeats) and
  their ratio ``x`` = before / after (above 1: the later revision is faster);
* per rule, the paired ratios after / before of the repeats (one pair per repeat and size,
  the two measured one after the other): their geometric mean and its 95 % t-interval on
  the logarithms. A drift of the machine between the pairs widens the interval instead of
  biasing a minimum, so "no rule more than 5 % slower" reads as an upper end below 1.05;
* whether the two revisions' runs are identical: stopping time, recommendation, counts and
  truncation of every timed run (the exactness of every change between the revisions,
  over these runs).

With ``--instructions`` the same cells are counted instead of timed: each revision's
worker runs once under Valgrind's ``callgrind`` (with its branch predictor model), which
writes the counts of each cell to a file of their own (the worker calls ``getppid``
between cells, and ``--dump-before=getppid`` starts a new file there). It prints the
instructions and the mispredicted branches per sample of every cell at each revision and
their ratios. The counts repeat to a fraction of a per mille, whatever the load of the
machine (no repeats), so they tell a change of the work done per sample apart from a
timing noise of a few per cent; they are not times (memory stalls and the host's branch
predictor are not in them). The kernels are compiled for a generic x86-64 processor (``NUMBA_CPU_NAME``)
in this mode, natively before the counted run, with Python's hash seed fixed.

Usage::

    .venv/bin/python benchmarks/bench_revisions.py <commit> [HEAD] [--repeats 2]
        [--min-samples 200000] [--rules TCI,uniform]
    .venv/bin/python benchmarks/bench_revisions.py <commit> [HEAD] --instructions
        [--min-samples 200000] [--rules EV-DKM]

Both revisions must provide ``baiuv.simulation.simulate_run``, ``ALGORITHMS``,
``RunSettings``, ``baiuv.registry.Algorithm`` and ``baiuv.model.instance``; a revision
without them stops the script with its worker's error.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_pipeline import extract_revision

SIZES = (5, 10, 20)
#: The processor the kernels are compiled for when counting (a model Valgrind runs, and the
#: same numba cache key natively and under Valgrind).
GENERIC_CPU = {
    "NUMBA_CPU_NAME": "generic",
    "NUMBA_CPU_FEATURES": "+64bit,+cmov,+cx8,+fxsr,+mmx,+sse,+sse2",
}


def worker(min_samples: int, only: list[str] | None = None, marks: bool = False) -> None:
    """Time every cell of the revision on ``PYTHONPATH`` (of the rules ``only``, when given);
    print one JSON object, the cells in the order they ran. With ``marks``, call ``getppid``
    before each cell and after the last (where ``callgrind --dump-before=getppid`` starts a
    new file of counts)."""
    import numpy as np

    from baiuv.model.instance import STANDARD, random_instance
    from baiuv.registry import RULE_UNIFORM, Algorithm
    from baiuv.simulation import ALGORITHMS, RunSettings, simulate_run

    algorithms = {
        **ALGORITHMS,
        "EV-uniform": Algorithm(
            name="EV-uniform",
            kernel="glr",
            rule=RULE_UNIFORM,
            plug_in=True,
            family="uniform",
            wrapper="EV",
        ),
    }
    instances = {
        5: STANDARD,
        10: random_instance(np.random.default_rng(1), 10, name="K10"),
        20: random_instance(np.random.default_rng(1), 20, name="K20"),
    }
    if only:
        unknown = sorted(set(only) - set(algorithms))
        if unknown:
            sys.exit(f"--rules: unknown rules {unknown}; known: {sorted(algorithms)}")
        algorithms = {k: v for k, v in algorithms.items() if k in only}
    settings = RunSettings(delta=0.01, threshold="heuristic", n0=2)
    for alg in algorithms.values():  # compile outside the timings
        simulate_run(instances[5], alg, settings=settings, rng=np.random.default_rng(0))
    out = {}
    for name, alg in algorithms.items():
        for K in SIZES:
            if marks:
                os.getppid()
            cpu, samples, runs = 0.0, 0, hashlib.sha256()
            r = 0
            while samples < min_samples:
                rng = np.random.default_rng(r)
                t0 = time.process_time()
                res = simulate_run(instances[K], alg, settings=settings, rng=rng)
                cpu += time.process_time() - t0
                samples += int(res["stopping_time"])
                key = (
                    int(res["stopping_time"]),
                    int(res["recommendation"]),
                    [int(c) for c in res["counts"]],
                    bool(res["truncated"]),
                )
                runs.update(repr(key).encode())
                r += 1
            out[f"{name}|{K}"] = {
                "ns": 1e9 * cpu / samples,
                "runs": r,
                "samples": samples,
                "digest": runs.hexdigest(),
            }
    if marks:
        os.getppid()
    json.dump(out, sys.stdout)


def worker_env(src: Path, cache: Path, counting: bool = False) -> dict[str, str]:
    """The environment of a worker process for the sources ``src``, its numba cache in
    ``cache``; for counting, a generic processor and a fixed hash seed."""
    env = dict(os.environ)
    env.pop("BAIUV_NUMBA_CACHE_DIR", None)
    env["NUMBA_CACHE_DIR"] = str(cache)
    env["NUMBA_NUM_THREADS"] = "1"
    env["PYTHONPATH"] = str(src)
    if counting:
        env.update(GENERIC_CPU)
        env["PYTHONHASHSEED"] = "0"
    return env


def worker_cmd(min_samples: int, only: str = "", marks: bool = False) -> list[str]:
    return (
        [sys.executable, __file__, "--worker", "--min-samples", str(min_samples)]
        + (["--rules", only] if only else [])
        + (["--marks"] if marks else [])
    )


def run_worker(
    src: Path, cache: Path, min_samples: int, only: str = "", counting: bool = False
) -> dict:
    res = subprocess.run(
        worker_cmd(min_samples, only),
        env=worker_env(src, cache, counting),
        capture_output=True,
        text=True,
    )
    if res.returncode != 0:
        sys.exit(f"worker for {src} failed ({res.returncode}):\n{res.stderr[-3000:]}")
    return json.loads(res.stdout)


def read_callgrind_totals(path: Path) -> dict[str, int]:
    """The total of each event of a callgrind output file (its ``events:`` line and its
    ``summary:`` or ``totals:`` line)."""
    events = totals = None
    for line in path.read_text(errors="replace").splitlines():
        if line.startswith("events:"):
            events = line.split()[1:]
        elif line.startswith(("summary:", "totals:")) and totals is None:
            totals = [int(v) for v in line.split()[1:]]
    if events is None or totals is None:
        raise ValueError(f"{path}: no events/summary line (not a callgrind output file)")
    return dict(zip(events, totals + [0] * (len(events) - len(totals)), strict=True))


def cell_counts(cells: dict[str, dict], dumps: list[Path]) -> dict[str, dict]:
    """Per sample counts of the worker's ``cells`` (in the order they ran) from the callgrind
    files of its run in dump order: the first holds the start-up, then one per cell."""
    if len(dumps) != len(cells) + 1:
        raise ValueError(
            f"expected {len(cells) + 1} callgrind files (start-up and {len(cells)} cells), "
            f"got {len(dumps)}: something else called getppid"
        )
    out = {}
    for (cell, v), dump in zip(cells.items(), dumps[1:], strict=True):
        ev = read_callgrind_totals(dump)
        n = v["samples"]
        out[cell] = {
            **v,
            "ir": ev["Ir"] / n,
            "mispredicts": (ev.get("Bcm", 0) + ev.get("Bim", 0)) / n,
        }
    return out


def start_count(src: Path, cache: Path, min_samples: int, only: str, out: Path):
    """Compile the revision's kernels natively (a generic processor), then start its worker
    under callgrind, its files in ``out``; returns the process."""
    run_worker(src, cache, 1, only, counting=True)
    env = worker_env(src, cache, counting=True)
    out.mkdir(parents=True)
    cmd = [
        "valgrind",
        "--tool=callgrind",
        "--branch-sim=yes",
        "--dump-before=getppid",
        f"--callgrind-out-file={out / 'cg.out'}",
        *worker_cmd(min_samples, only, marks=True),
    ]
    return subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish_count(proc, src: Path, out: Path) -> dict:
    stdout, stderr = proc.communicate()
    if proc.returncode != 0:
        sys.exit(f"counted worker for {src} failed ({proc.returncode}):\n{stderr[-3000:]}")
    dumps = sorted(out.glob("cg.out.*"), key=lambda p: int(p.suffix[1:]))
    return cell_counts(json.loads(stdout), dumps)


def paired_ratio_interval(before: list[float], after: list[float]) -> tuple[float, float, float]:
    """Geometric mean of the paired ratios ``after[i] / before[i]`` and its 95 % t-interval
    (Student on the logarithms); the interval is ``(nan, nan)`` for fewer than two pairs."""
    import math

    from scipy.stats import t as student

    if len(before) != len(after) or not before:
        raise ValueError("before and after must be non-empty and of the same length")
    logs = [math.log(a / b) for b, a in zip(before, after, strict=True)]
    n = len(logs)
    mean = sum(logs) / n
    if n < 2:
        return math.exp(mean), math.nan, math.nan
    sd = math.sqrt(sum((x - mean) ** 2 for x in logs) / (n - 1))
    half = student.ppf(0.975, n - 1) * sd / math.sqrt(n)
    return math.exp(mean), math.exp(mean - half), math.exp(mean + half)


def paired_summary(every: dict[str, dict], name: str) -> str:
    """One rule's line: the paired ratios after/before over its sizes and repeats."""
    before, after = [], []
    for K in SIZES:
        b, a = every["before"].get(f"{name}|{K}"), every["after"].get(f"{name}|{K}")
        if b is None or a is None:
            continue
        before += b
        after += a
    if not before:
        return "  not in both"
    g, lo, hi = paired_ratio_interval(before, after)
    return f"  {g:.3f} [{lo:.3f}, {hi:.3f}] ({len(before)} pairs)"


def print_table(best: dict[str, dict], key: str, fmt: str) -> bool:
    """One row per rule: the value ``key`` of each cell at both revisions and their ratio
    before/after, and whether the runs are identical; returns whether all are."""
    head = "".join(f"{'K=' + str(K) + ' before':>14} {'after':>9} {'x':>6}" for K in SIZES)
    print(f"{'rule':<11}{head}  runs identical")
    # rules in the order the revisions list them (after first), each once
    cells = dict.fromkeys(c.split("|")[0] for label in ("after", "before") for c in best[label])
    all_same = True
    for name in cells:
        row, same = f"{name:<11}", []
        for K in SIZES:
            b, a = best["before"].get(f"{name}|{K}"), best["after"].get(f"{name}|{K}")
            if b is None or a is None:
                row += f"{'-':>14} {'-':>9} {'-':>6}"
                continue
            row += f"{b[key]:14{fmt}} {a[key]:9{fmt}} {b[key] / a[key]:6.2f}"
            same.append(b["digest"] == a["digest"] and b["runs"] == a["runs"])
        all_same &= all(same)
        print(f"{row}  {('yes' if all(same) else 'NO') if same else 'not in both'}")
    return all_same


def timed(args, revs: dict) -> bool:
    """Time the revisions (alternated repeats); print the tables; whether runs are the same."""
    best: dict[str, dict] = {"before": {}, "after": {}}
    every: dict[str, dict] = {"before": {}, "after": {}}  # cell -> ns of every repeat
    for rep in range(args.repeats):
        for label, (_, src, cache) in revs.items():
            got = run_worker(src, cache, args.min_samples, args.rules)
            for cell, v in got.items():
                every[label].setdefault(cell, []).append(v["ns"])
                old = best[label].get(cell)
                if old is not None and old["digest"] != v["digest"]:
                    sys.exit(f"{label}: {cell} gave different runs in two repeats")
                if old is None or v["ns"] < old["ns"]:
                    best[label][cell] = v
            print(f"repeat {rep + 1}: {label} measured", file=sys.stderr)
    print(
        f"CPU ns per sample, simulate_run, heuristic threshold, delta = 0.01, minimum of "
        f"{args.repeats} alternated repeats, >= {args.min_samples} samples per cell"
    )
    all_same = print_table(best, "ns", ".1f")
    print("\npaired after/before per rule (repeats x sizes): geometric mean [95 % t-interval]")
    for name in dict.fromkeys(c.split("|")[0] for c in best["after"]):
        print(f"{name:<11}{paired_summary(every, name)}")
    n_runs = sum(v["runs"] for v in best["after"].values())
    print(f"timed runs: {n_runs}")
    return all_same


def counted(args, revs: dict, tmp: Path) -> bool:
    """Count the revisions under callgrind, both at once; print the tables; whether runs
    are the same."""
    if shutil.which("valgrind") is None:
        sys.exit("--instructions needs Valgrind (valgrind on PATH; Debian: apt install valgrind)")
    procs = {
        label: start_count(src, cache, args.min_samples, args.rules, tmp / f"cg-{label}")
        for label, (_, src, cache) in revs.items()
    }
    best = {
        label: finish_count(proc, revs[label][1], tmp / f"cg-{label}")
        for label, proc in procs.items()
    }
    common = (
        f"simulate_run, heuristic threshold, delta = 0.01, >= {args.min_samples} samples per "
        "cell, callgrind, kernels compiled for a generic x86-64 processor"
    )
    print(f"instructions per sample, {common}")
    all_same = print_table(best, "ir", ".1f")
    print(f"\nmispredicted branches per sample (callgrind's predictor model), {common}")
    print_table(best, "mispredicts", ".2f")
    print("\nlargest instructions ratio after/before per rule, over the sizes")
    for name in dict.fromkeys(c.split("|")[0] for c in best["after"]):
        ratios = [
            best["after"][c]["ir"] / best["before"][c]["ir"]
            for c in best["after"]
            if c.split("|")[0] == name and c in best["before"]
        ]
        print(f"{name:<11}  {max(ratios):.4f}" if ratios else f"{name:<11}  not in both")
    return all_same


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("before", nargs="?", help="revision measured first (e.g. HEAD~10)")
    ap.add_argument("after", nargs="?", default="HEAD", help="revision compared (default HEAD)")
    ap.add_argument("--repeats", type=int, default=None, help="runs of each revision (default 2)")
    ap.add_argument("--min-samples", type=int, default=200_000, help="samples per cell")
    ap.add_argument("--rules", default="", help="comma-separated rules to time (default: all)")
    ap.add_argument(
        "--instructions",
        action="store_true",
        help="count instructions and mispredicted branches (Valgrind) instead of timing",
    )
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--marks", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.min_samples < 1:
        ap.error(f"--min-samples must be >= 1, got {args.min_samples}")
    if args.worker:
        worker(args.min_samples, [r for r in args.rules.split(",") if r], args.marks)
        return 0
    if args.before is None:
        ap.error("give the revision to compare against, e.g. HEAD~10")
    if args.instructions and args.repeats is not None:
        ap.error("--repeats does not apply to --instructions: the counts repeat")
    if args.repeats is None:
        args.repeats = 2
    if args.repeats < 1:
        ap.error(f"--repeats must be >= 1, got {args.repeats}")
    with tempfile.TemporaryDirectory(prefix="bench-revisions-") as tmp:
        revs = {}
        for label, rev in (("before", args.before), ("after", args.after)):
            d = Path(tmp) / label
            revs[label] = (extract_revision(rev, d, "src"), d / "src", d / "numba-cache")
        print(
            f"before: {args.before} ({revs['before'][0][:10]}); after: {args.after} "
            f"({revs['after'][0][:10]})"
        )
        all_same = counted(args, revs, Path(tmp)) if args.instructions else timed(args, revs)
    print(f"every run identical at both revisions: {'yes' if all_same else 'NO'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
