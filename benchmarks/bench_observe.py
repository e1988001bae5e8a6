"""Cost of one ask/tell step of :class:`baiuv.BestArmIdentifier` (prints a table; not a
test).

A step is one request, one answer and one stopping check: ``arm = idf.next_arm()`` then
``idf.observe(arm, mu[arm] + sigma[arm] * Z)`` on the standard instance, ``delta = 0.01``,
``--runs`` runs per cell, each until the identifier stops (the p-value tracked at every
check). Cells: TCI with the default family (BoB) and ``box``, ``kl``, ``student``,
``heuristic``; EV-TCI with ``ev-bob``. With ``--before``, the last column says whether
both revisions give the same arms, p-values and p-value recommendations at every step of
one run per cell (a digest compared). Costs are process CPU time per step, each cell
timed after an untimed run that compiles or loads its kernels.

Configurations, each in a fresh process, measured one after the other in this run:
``before`` (with ``--before REV``: the sources of revision ``REV`` from ``git archive``,
with a numba cache of their own) and ``after`` (this tree). The machine may be shared:
compare the ratios measured in one run.

Usage: ``.venv/bin/python benchmarks/bench_observe.py [--before REV] [--runs 5]``
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CELLS = (("tci", "bob"), ("tci", "box"), ("tci", "kl"), ("tci", "student"),
         ("tci", "heuristic"), ("ev-tci", "ev-bob"))  # fmt: skip


def _steps(sampling: str, family: str, seed: int) -> tuple[int, float]:
    """Steps of one run until the stop, and their CPU time."""
    import numpy as np

    from baiuv import STANDARD, BestArmIdentifier

    sd = np.sqrt(STANDARD.sigma2)
    g = np.random.default_rng(seed)
    idf = BestArmIdentifier(STANDARD.K, 0.01, sampling, family, rng=seed)
    t0 = time.process_time()
    while not idf.done:
        arm = idf.next_arm()
        idf.observe(arm, STANDARD.mu[arm] + sd[arm] * g.standard_normal())
    return idf.n_samples, time.process_time() - t0


def _trace(sampling: str, family: str, seed: int) -> str:
    """Digest of one run's arms, p-values and p-value recommendations at every step."""
    import hashlib

    import numpy as np

    from baiuv import STANDARD, BestArmIdentifier

    sd = np.sqrt(STANDARD.sigma2)
    g = np.random.default_rng(seed)
    idf = BestArmIdentifier(STANDARD.K, 0.01, sampling, family, rng=seed)
    h = hashlib.sha256()
    while not idf.done:
        arm = idf.next_arm()
        idf.observe(arm, STANDARD.mu[arm] + sd[arm] * g.standard_normal())
        h.update(f"{arm} {idf.p_value.hex()} {idf.p_value_recommendation};".encode())
    return h.hexdigest()


def worker(runs: int) -> None:
    """Time every cell with the sources on ``PYTHONPATH``; print one JSON object."""
    out = {}
    for sampling, family in CELLS:
        out[f"{sampling}|{family}|trace"] = _trace(sampling, family, 10**6)  # also compiles
        n, cpu = 0, 0.0
        for r in range(runs):
            dn, dt = _steps(sampling, family, r)
            n, cpu = n + dn, cpu + dt
        out[f"{sampling}|{family}"] = (cpu / n, n)
        print(sampling, family, file=sys.stderr, flush=True)
    json.dump(out, sys.stdout)


def _run(src: Path, cache: Path | None, runs: int) -> dict:
    env = dict(os.environ, PYTHONPATH=str(src))
    if cache is not None:
        env["NUMBA_CACHE_DIR"] = str(cache)
        env.pop("BAIUV_NUMBA_CACHE_DIR", None)
    cmd = [sys.executable, __file__, "--worker", "--runs", str(runs)]
    p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"worker failed:\n{p.stderr[-3000:]}")
    return json.loads(p.stdout)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", help="a revision to measure first (git archive)")
    ap.add_argument("--runs", type=int, default=5, help="runs per cell")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        worker(args.runs)
        return 0
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from bench_pipeline import extract_revision

    results = []
    with tempfile.TemporaryDirectory(prefix="bench_observe_") as d:
        d = Path(d)
        if args.before:
            sha = extract_revision(args.before, d / "before", "src")
            results.append((f"before ({sha[:10]})", _run(d / "before" / "src", d / "c", args.runs)))
        results.append(("after (this tree)", _run(ROOT / "src", None, args.runs)))
    print(f"# us per step (next_arm + observe), standard instance, delta 0.01, {args.runs} runs")
    labels = [lab for lab, _ in results] + (["same p-values"] if len(results) == 2 else [])
    print("| sampling | threshold | steps | " + " | ".join(labels) + " |")
    print("|---|---|---|" + "---|" * len(labels))
    for sampling, family in CELLS:
        key = f"{sampling}|{family}"
        cells = [f"{res[key][0] * 1e6:.1f}" for _, res in results]
        if len(results) == 2:
            cells[-1] += f" ({results[0][1][key][0] / results[1][1][key][0]:.1f}x faster)"
            same = results[0][1][key + "|trace"] == results[1][1][key + "|trace"]
            cells.append("yes" if same else "NO")
        print(f"| {sampling} | {family} | {results[-1][1][key][1]} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
