"""Cost of every sampling rule as the number of arms K grows.

For each rule of ``baiuv.simulation.ALGORITHMS`` and K in ``--K`` (default 2, 5, 10, 50,
200, 1000), on a random instance with tiny gaps (so that no run stops within the budget),
measures in this run:

* the per-step cost (µs per sample): ``(wall(S2) - wall(S1)) / (S2 - S1)`` for two runs
  truncated at ``S1 = n0 K + s`` and ``S2 = n0 K + 3 s`` samples (the difference removes the
  initialisation and the compilation), ``s`` calibrated so that a run takes ~``--target`` s;
  each wall time is the minimum over ``--repeats`` identical runs (the machine is shared:
  the minimum is the least disturbed measurement);
* the peak memory: increase of the process's peak RSS over its value after the first
  compilation (each rule runs in its own subprocess, K in increasing order), and the size of the per-run
  arrays allocated by the engine (counts, statistics, workspace: O(K) floats).

A combination is skipped (with the reason printed) when the previous K already cost more
than ``--max-us`` µs per sample. Prints a table and the growth exponent of the per-step cost
(least-squares slope of log cost against log K, over all K, over K >= 10 and over K >= 50)
per rule, and whether each rule meets the goal of decision D95: the exponent over
K >= 10 (below, a fixed per-step overhead hides the growth) is at most 1.10 ("linear":
TCI, uniform, FHN and their EV versions) or at most 1.15 ("near-linear": TaS and EV-TaS,
whose oracle solves one equation per arm inside a 1-D search); DKM, FWS and "fixed" have
no goal (FWS solves a K x K game at each step).

Usage: ``.venv/bin/python benchmarks/bench_scaling.py [--K 2 5 10 50 200 1000]
[--rules TaS TCI ...] [--target 0.3] [--repeats 3] [--max-us 20000]``
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time

import numpy as np

LINEAR = 1.10  # largest exponent (fit over K >= 10) counted as linear growth (D95)
NEAR_LINEAR = 1.15  # largest exponent counted as near-linear growth (D95)
GOALS = {
    "TCI": ("linear", LINEAR),
    "EV-TCI": ("linear", LINEAR),
    "uniform": ("linear", LINEAR),
    "FHN1": ("linear", LINEAR),
    "FHN2": ("linear", LINEAR),
    "TaS": ("near-linear", NEAR_LINEAR),
    "EV-TaS": ("near-linear", NEAR_LINEAR),
}


def _measure_rule(
    rule: str, Ks: list[int], target: float, max_us: float, repeats: int
) -> list[dict]:
    from baiuv.model.instance import random_instance
    from baiuv.simulation import ALGORITHMS, RunSettings, simulate_run

    alg = ALGORITHMS[rule]
    out = []
    base = None  # peak RSS after the first compilation (numba JIT memory excluded)
    prev_us = 0.0
    for K in Ks:
        if prev_us > max_us:
            out.append(
                {
                    "rule": rule,
                    "K": K,
                    "skipped": f"{prev_us:.0f} µs/sample at the previous K > {max_us:g}",
                }
            )
            continue
        inst = random_instance(np.random.default_rng(K), K, (0.001, 0.002), (0.1, 10.0))
        delta = 1e-12
        n0 = 2
        init = (n0 if alg.kernel == "glr" else max(2, int(np.ceil(10 * np.log(1 / delta))))) * K

        def run(steps, inst=inst, delta=delta, n0=n0, init=init):
            s = RunSettings(delta=delta, n0=n0, max_samples=init + steps)
            r = simulate_run(inst, alg, settings=s, seed=1, experiment="bench-scaling")
            return r["wall_time"], r["stopping_time"]

        run(10)  # compile / load cache
        if base is None:
            base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        # FHN samples in rounds (one sample of every surviving arm): at least a few rounds,
        # otherwise the truncated runs of fewer than K extra samples would not differ
        rounds = 4 * K if alg.kernel == "fhn" else 0
        s0 = max(100, rounds // 2)
        w, _ = run(s0)
        w0, _ = run(0)
        per = max((w - w0) / s0, 1e-8)
        if rounds:  # FHN: a few rounds hide in the noise of the long initialisation, whose
            per = max(per, w0 / init)  # samples cost as much as the later ones
        s = int(min(max(200, rounds, target / per / 2), 2_000_000))
        w1 = w2 = float("inf")
        for _ in range(repeats):  # interleaved, so a slow period affects both alike
            w, t1 = run(s)
            w1 = min(w1, w)
            w, t2 = run(3 * s)
            w2 = min(w2, w)
        if t2 - t1 < s or w2 <= w1:
            # the longer run stopped (or cost no more) before its budget: the difference of
            # the two wall times is not a per-sample cost (it can even be negative)
            out.append(
                {
                    "rule": rule,
                    "K": K,
                    "skipped": f"not measurable: runs of {s} and {3 * s} extra samples took "
                    f"{t1} and {t2} samples, {w1:.3g} s and {w2:.3g} s",
                }
            )
            continue
        us = 1e6 * (w2 - w1) / (t2 - t1)
        prev_us = us
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        out.append(
            {
                "rule": rule,
                "K": K,
                "us_per_sample": us,
                "steps": int(t2 - t1),
                "peak_rss_increase_MB": (rss - base) / 1024.0,
                "engine_arrays_kB": 8.0 * K * 12 / 1024.0,
            }
        )
    return out


def _slope(K, y):
    K, y = np.asarray(K, float), np.asarray(y, float)
    if K.size < 2:
        return float("nan")
    return float(np.polyfit(np.log(K), np.log(y), 1)[0])


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--K", type=int, nargs="+", default=[2, 5, 10, 50, 200, 1000])
    ap.add_argument("--rules", nargs="+", default=None)
    ap.add_argument("--target", type=float, default=0.3, help="seconds per measured run")
    ap.add_argument("--repeats", type=int, default=3, help="runs per wall time (minimum)")
    ap.add_argument("--max-us", type=float, default=20000.0, help="skip larger K above this cost")
    ap.add_argument("--_child", default=None, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a._child:
        print(json.dumps(_measure_rule(a._child, sorted(a.K), a.target, a.max_us, a.repeats)))
        return
    from baiuv.simulation import ALGORITHMS

    rules = a.rules or list(ALGORITHMS)
    rows = []
    t0 = time.perf_counter()
    for rule in rules:
        cmd = [
            sys.executable,
            __file__,
            "--_child",
            rule,
            "--target",
            str(a.target),
            "--max-us",
            str(a.max_us),
            "--repeats",
            str(a.repeats),
            "--K",
            *map(str, a.K),
        ]
        res = subprocess.run(cmd, capture_output=True, text=True)
        if res.returncode != 0:
            print(f"{rule}: failed\n{res.stderr[-2000:]}")
            continue
        part = json.loads(res.stdout.strip().splitlines()[-1])
        rows.extend(part)
        for r in part:
            if "skipped" in r:
                print(f"{rule:8s} K={r['K']:5d}  skipped: {r['skipped']}", flush=True)
            else:
                print(
                    f"{rule:8s} K={r['K']:5d}  {r['us_per_sample']:10.2f} µs/sample  "
                    f"peak RSS +{r['peak_rss_increase_MB']:7.1f} MB",
                    flush=True,
                )
    print("\nGrowth of the per-step cost, log-log slope (1 = linear in K):")
    print(
        f"{'rule':8s} {'all K':>7s} {'K>=10':>7s} {'K>=50':>7s}  µs/sample at K = "
        + " ".join(f"{k:>8d}" for k in a.K)
    )
    verdicts = []
    for rule in rules:
        g = [r for r in rows if r["rule"] == rule and "us_per_sample" in r]
        if not g:
            continue
        K = [r["K"] for r in g]
        y = [r["us_per_sample"] for r in g]
        big = [(k, v) for k, v in zip(K, y, strict=True) if k >= 10]
        big50 = [(k, v) for k, v in zip(K, y, strict=True) if k >= 50]
        s_all = _slope(K, y)
        s10 = _slope(*zip(*big, strict=True)) if len(big) >= 2 else float("nan")
        s50 = _slope(*zip(*big50, strict=True)) if len(big50) >= 2 else float("nan")
        cells = {r["K"]: r["us_per_sample"] for r in g}
        print(
            f"{rule:8s} {s_all:7.2f} {s10:7.2f} {s50:7.2f}  "
            + " ".join(f"{cells[k]:8.1f}" if k in cells else f"{'skip':>8s}" for k in a.K)
        )
        if rule in GOALS:
            kind, bound = GOALS[rule]
            if not s10 == s10:  # nan: fewer than two K >= 10 measured
                verdict = "NOT MEASURED (fewer than two K >= 10)"
            elif s10 <= bound:
                verdict = "MEETS the goal"
            else:
                verdict = "DOES NOT MEET the goal"
            kmax = max(K)
            verdicts.append(
                f"{rule:8s} goal {kind} (exponent over K >= 10 <= {bound:.2f}, up to K = "
                f"{kmax}): exponent {s10:.2f} -> {verdict}"
            )
        else:
            verdicts.append(f"{rule:8s} no growth goal (exponent over K >= 10: {s10:.2f})")
    print("\nGoals of decision D95:")
    print("\n".join(verdicts))
    print(f"\ntotal benchmark time {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
