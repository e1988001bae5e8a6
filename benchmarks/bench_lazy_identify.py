"""Cost of δ-correct stopping, of the lazy rule, and of the ask/tell identifier.

Prints, from measurements taken in this run (same random streams for every variant):

1. for TCI and EV-TCI on the standard instance (δ = 0.01): mean wall time per run and per
   sample with the heuristic, Box, BoB and lazy BoB (ratio 1.1) thresholds, the ratio of
   each to the heuristic, and the number of threshold evaluations saved by the lazy rule;
2. the overhead of driving the same run through ``baiuv.BestArmIdentifier`` (Python
   ask/tell, one call per sample) instead of the compiled simulator loop, as a ratio.

Usage: ``.venv/bin/python benchmarks/bench_lazy_identify.py [--runs 10]``
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from baiuv import STANDARD, BestArmIdentifier
from baiuv.simulation import RunSettings, simulate_run


def time_runs(alg, threshold, lazy, runs):
    s = RunSettings(threshold=threshold, lazy_ratio=lazy)
    simulate_run(STANDARD, alg, settings=RunSettings(threshold=threshold, max_samples=50))
    taus, t0 = [], time.perf_counter()
    for r in range(runs):
        taus.append(simulate_run(STANDARD, alg, settings=s, seed=1, run=r)["stopping_time"])
    return (time.perf_counter() - t0) / runs, float(np.mean(taus))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=10)
    args = ap.parse_args()
    print(f"standard instance, delta = 0.01, {args.runs} runs per row (same streams)")
    print(
        f"{'rule':8} {'threshold':12} {'ms/run':>9} {'mean tau':>9} {'us/sample':>10} "
        f"{'time ratio':>10} {'tau ratio':>10}"
    )
    for alg, fams in [
        ("TCI", ["heuristic", "box", "bob"]),
        ("EV-TCI", ["heuristic", "ev-box", "ev-bob"]),
    ]:
        rows = [(f, None) for f in fams] + [(fams[-1], 1.1)]
        base = None
        for fam, lazy in rows:
            w, tau = time_runs(alg, fam, lazy, args.runs)
            base = base or (w, tau)
            name = fam + ("-lazy" if lazy else "")
            print(
                f"{alg:8} {name:12} {1e3 * w:9.2f} {tau:9.0f} {1e6 * w / tau:10.2f} "
                f"{w / base[0]:10.1f} {tau / base[1]:10.2f}"
            )
        checks = math.log(tau / (2 * STANDARD.K)) / math.log(1.1) + 1
        print(f"{'':8} lazy rule: ~{checks:.0f} stopping-rule evaluations instead of ~{tau:.0f}")
    # identifier overhead
    s = RunSettings(threshold="bob")
    t0 = time.perf_counter()
    taus = 0
    for r in range(args.runs):
        taus += simulate_run(STANDARD, "TCI", settings=s, rng=np.random.default_rng(r))[
            "stopping_time"
        ]
    sim = (time.perf_counter() - t0) / taus
    sd = np.sqrt(STANDARD.sigma2)
    t0 = time.perf_counter()
    n = 0
    for r in range(args.runs):
        g = np.random.default_rng(r)
        idf = BestArmIdentifier(5, 0.01, "tci", "bob", rng=g)
        while not idf.done:
            a = idf.next_arm()
            idf.observe(a, STANDARD.mu[a] + sd[a] * g.standard_normal())
        n += idf.n_samples
    ask = (time.perf_counter() - t0) / n
    assert n == taus, "identifier and simulator runs differ"
    print(
        f"\nTCI + BoB, {taus} samples: simulator {1e6 * sim:.2f} us/sample, identifier "
        f"{1e6 * ask:.1f} us/sample (ratio {ask / sim:.0f}x; same runs)"
    )


if __name__ == "__main__":
    main()
