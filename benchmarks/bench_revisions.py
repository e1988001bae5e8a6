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

Usage::

    .venv/bin/python benchmarks/bench_revisions.py <commit> [HEAD] [--repeats 2]
        [--min-samples 200000] [--rules TCI,uniform]

Both revisions must provide ``baiuv.simulation.simulate_run``, ``ALGORITHMS``,
``RunSettings``, ``baiuv.registry.Algorithm`` and ``baiuv.model.instance``; a revision
without them stops the script with its worker's error.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_pipeline import extract_revision

SIZES = (5, 10, 20)


def worker(min_samples: int, only: list[str] | None = None) -> None:
    """Time every cell of the revision on ``PYTHONPATH`` (of the rules ``only``, when given);
    print one JSON object."""
    import numpy as np

    from baiuv.model.instance import STANDARD, random_instance
    from baiuv.registry import RULE_UNIFORM, Algorithm
    from baiuv.simulation import ALGORITHMS, RunSettings, simulate_run

    algorithms = {
        **ALGORITHMS,
        "EV-uniform": Algorithm("EV-uniform", "glr", RULE_UNIFORM, True, "uniform", "EV"),
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
            out[f"{name}|{K}"] = {"ns": 1e9 * cpu / samples, "runs": r, "digest": runs.hexdigest()}
    json.dump(out, sys.stdout)


def run_worker(src: Path, cache: Path, min_samples: int, only: str = "") -> dict:
    env = dict(os.environ)
    env.pop("BAIUV_NUMBA_CACHE_DIR", None)
    env["NUMBA_CACHE_DIR"] = str(cache)
    env["NUMBA_NUM_THREADS"] = "1"
    env["PYTHONPATH"] = str(src)
    res = subprocess.run(
        [sys.executable, __file__, "--worker", "--min-samples", str(min_samples)]
        + (["--rules", only] if only else []),
        env=env,
        capture_output=True,
        text=True,
    )
    if res.returncode != 0:
        sys.exit(f"worker for {src} failed ({res.returncode}):\n{res.stderr[-3000:]}")
    return json.loads(res.stdout)


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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("before", nargs="?", help="revision measured first (e.g. HEAD~10)")
    ap.add_argument("after", nargs="?", default="HEAD", help="revision compared (default HEAD)")
    ap.add_argument("--repeats", type=int, default=2, help="runs of each revision (default 2)")
    ap.add_argument("--min-samples", type=int, default=200_000, help="samples per cell")
    ap.add_argument("--rules", default="", help="comma-separated rules to time (default: all)")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.min_samples < 1:
        ap.error(f"--min-samples must be >= 1, got {args.min_samples}")
    if args.worker:
        worker(args.min_samples, [r for r in args.rules.split(",") if r])
        return 0
    if args.before is None:
        ap.error("give the revision to compare against, e.g. HEAD~10")
    if args.repeats < 1:
        ap.error(f"--repeats must be >= 1, got {args.repeats}")
    with tempfile.TemporaryDirectory(prefix="bench-revisions-") as tmp:
        revs = {}
        for label, rev in (("before", args.before), ("after", args.after)):
            d = Path(tmp) / label
            revs[label] = (extract_revision(rev, d, "src"), d / "src", d / "numba-cache")
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
        f"before: {args.before} ({revs['before'][0][:10]}); after: {args.after} "
        f"({revs['after'][0][:10]})"
    )
    print(
        f"CPU ns per sample, simulate_run, heuristic threshold, delta = 0.01, minimum of "
        f"{args.repeats} alternated repeats, >= {args.min_samples} samples per cell"
    )
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
            row += f"{b['ns']:14.1f} {a['ns']:9.1f} {b['ns'] / a['ns']:6.2f}"
            same.append(b["digest"] == a["digest"] and b["runs"] == a["runs"])
        all_same &= all(same)
        print(f"{row}  {('yes' if all(same) else 'NO') if same else 'not in both'}")
    print("\npaired after/before per rule (repeats x sizes): geometric mean [95 % t-interval]")
    for name in cells:
        print(f"{name:<11}{paired_summary(every, name)}")
    n_runs = sum(v["runs"] for v in best["after"].values())
    print(
        f"every timed run identical at both revisions ({n_runs} runs): {'yes' if all_same else 'NO'}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
