"""Per-sample cost of the δ-correct thresholds against the heuristic, on the same rule, in
the simulator and in the replay (prints tables; not a test).

Cells: TCI with the GLR families, EV-TCI with the EV-GLR ones (and the heuristic for
both), in two regimes:

* ``standard``: the standard instance, ``delta = 0.01``, ``--runs`` runs (each stops); the
  simulator's runs (:func:`baiuv.simulation.simulate_run`) and the replay of rows of the
  same instance (arms drawn uniformly at random) by
  :meth:`baiuv.BestArmIdentifier.observe_many` until it stops, a new identifier per run;
* ``flat``: two arms of nearly equal means, ``delta = 1e-12``, no stop: ``--rows`` samples
  of the simulator, ``--rows`` rows ingested by ``observe_many`` (the regime of
  ``bench_replay.py``).

Costs are process CPU time per sample (or per row ingested; reading a file is not
included: ``bench_replay.py`` measures ``baiuv identify FILE`` end to end), set-up
included, each cell timed after an untimed call that compiles or loads its kernels.
Configurations, each in a fresh process, measured one after the other in this run:

* ``before`` (with ``--before REV``): the sources of revision ``REV`` (``git archive``),
  compiled into a numba cache of their own;
* ``no-bounds``: this tree with the cached lower and upper bounds of the pair thresholds
  turned off (``P_LB_NMIN = inf``, ``P_LB_MODE = LB_NONE`` in every spec, decisions D254,
  D348, D349);
* ``after``: this tree as it is.

For each it prints the cost of every cell, its ratio to the heuristic's on the same rule
in the same configuration (target: at most 2), and the replay's rows per second
(target: 2 million or more). The machine may be shared: compare ratios measured in one run.

Usage: ``.venv/bin/python benchmarks/bench_delta_correct.py [--before REV] [--rows 300000]
[--runs 40]``
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

RULES = (("TCI", "tci", ("heuristic", "student", "box", "kl", "bob")),
         ("EV-TCI", "ev-tci", ("heuristic", "ev-heuristic-student", "ev-student", "ev-box",
                               "ev-bob")))  # fmt: skip


def _patch_no_bounds():
    """Every spec of the simulator and the identifier without cached bounds (D254, D348)."""
    from baiuv.simulation import engine, identify
    from baiuv.thresholds import kernels as k
    from baiuv.thresholds.families import ThresholdSpec

    original = engine.threshold_spec

    def spec(*args, **kwargs):
        s = original(*args, **kwargs)
        fp = s.fparams.copy()
        fp[k.P_LB_NMIN] = math.inf
        fp[k.P_LB_MODE] = k.LB_NONE
        return ThresholdSpec(s.code, fp, s.table)

    engine.threshold_spec = spec
    identify.threshold_spec = spec


def _sim(alg, fam, inst, delta, runs, max_samples):
    import numpy as np

    from baiuv.simulation import RunSettings, simulate_run

    s = RunSettings(threshold=fam, delta=delta, max_samples=max_samples)
    simulate_run(inst, alg, settings=s, rng=np.random.default_rng(10**6))  # compiled
    n = 0
    t0 = time.process_time()
    for r in range(runs):
        n += simulate_run(inst, alg, settings=s, rng=np.random.default_rng(r))["stopping_time"]
    return (time.process_time() - t0) / n


def _replay(sampling, fam, streams, delta):
    from baiuv import BestArmIdentifier

    arms, values = streams[0]
    BestArmIdentifier(2 if arms.max() < 2 else int(arms.max()) + 1, delta, sampling, fam,
                      strict=False, rng=0).observe_many(arms[:1000], values[:1000])  # fmt: skip
    n = 0
    t0 = time.process_time()
    for arms, values in streams:
        K = int(arms.max()) + 1
        idf = BestArmIdentifier(K, delta, sampling, fam, strict=False, rng=0)
        n += idf.observe_many(arms, values)
    return (time.process_time() - t0) / n


def worker(rows: int, runs: int, no_bounds: bool) -> None:
    """Time every cell with the sources on ``PYTHONPATH``; print one JSON object."""
    import numpy as np

    from baiuv import STANDARD, GaussianInstance

    if no_bounds:
        _patch_no_bounds()
    flat = GaussianInstance(np.array([1e-3, 0.0]), np.array([1.0, 1.0]), "flat")
    g = np.random.default_rng(0)
    K = STANDARD.K
    std_streams = []
    for _ in range(runs):
        arms = g.integers(0, K, 200_000)
        values = STANDARD.mu[arms] + np.sqrt(STANDARD.sigma2[arms]) * g.standard_normal(arms.size)
        std_streams.append((arms.astype(np.int64), values))
    arms = g.integers(0, 2, rows)
    flat_stream = [(arms.astype(np.int64), 1e-3 * (arms == 0) + g.standard_normal(rows))]
    out = {}
    for alg, sampling, fams in RULES:
        for fam in fams:
            out[f"{alg}|{fam}"] = {
                "sim standard": _sim(alg, fam, STANDARD, 0.01, runs, 10**7),
                "sim flat": _sim(alg, fam, flat, 1e-12, 1, rows),
                "replay standard": _replay(sampling, fam, std_streams, 0.01),
                "replay flat": _replay(sampling, fam, flat_stream, 1e-12),
            }
            print(alg, fam, file=sys.stderr, flush=True)
    json.dump(out, sys.stdout)


def _run(src: Path, cache: Path | None, args, no_bounds: bool) -> dict:
    """One worker for the sources ``src``, its numba cache in ``cache`` (``None``: this
    tree's own cache)."""
    env = dict(os.environ, PYTHONPATH=str(src))
    if cache is not None:
        env["NUMBA_CACHE_DIR"] = str(cache)
        env.pop("BAIUV_NUMBA_CACHE_DIR", None)
    cmd = [sys.executable, __file__, "--worker", "--rows", str(args.rows), "--runs",
           str(args.runs)] + (["--no-bounds"] if no_bounds else [])  # fmt: skip
    p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"worker failed:\n{p.stderr[-3000:]}")
    return json.loads(p.stdout)


def _table(label: str, res: dict) -> None:
    cols = ("sim standard", "sim flat", "replay standard", "replay flat")
    print(f"\n# {label}: us per sample (per row for the replay), x heuristic on the same rule")
    print("| rule | threshold | " + " | ".join(cols) + " | replay flat rows/s |")
    print("|---|---|" + "---|" * (len(cols) + 1))
    for alg, _, fams in RULES:
        base = res[f"{alg}|heuristic"]
        for fam in fams:
            c = res[f"{alg}|{fam}"]
            cells = [f"{c[x] * 1e6:.3f} ({c[x] / base[x]:.2f}x)" for x in cols]
            print(f"| {alg} | {fam} | " + " | ".join(cells) + f" | {1 / c['replay flat']:,.0f} |")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", help="a revision to measure first (git archive)")
    ap.add_argument("--rows", type=int, default=300_000, help="samples and rows, flat regime")
    ap.add_argument("--runs", type=int, default=40, help="runs, standard regime")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--no-bounds", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        worker(args.rows, args.runs, args.no_bounds)
        return 0
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from bench_pipeline import extract_revision

    print(f"# flat: {args.rows:,} samples/rows, delta 1e-12; standard: {args.runs} runs, "
          "delta 0.01")  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="bench_delta_correct_") as d:
        d = Path(d)
        configs = []
        if args.before:
            sha = extract_revision(args.before, d / "before", "src")
            configs.append(
                (f"before ({sha[:10]})", d / "before" / "src", d / "cache-before", False)
            )
        here = ROOT / "src"
        configs.append(("no-bounds (this tree, lower bounds off)", here, None, True))
        configs.append(("after (this tree)", here, None, False))
        for label, src, cache, no_bounds in configs:
            _table(label, _run(src, cache, args, no_bounds))
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
