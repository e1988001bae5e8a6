"""Fast oracle vs the paper's nested bisection, measured side by side in one run.

Prints µs per call of each method and their ratio for K in (2, 5, 10, 20), unknown and known
variances, on random instances drawn like the paper's (Delta ~ U[0.2, 1], r ~ U[0.1, 10]).
Usage: python benchmarks/bench_oracle.py [--reps N]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from baiuv.model.instance import random_instance
from baiuv.model.oracle import oracle_bisection, oracle_fast


def per_call(fn, insts, known, reps):
    for mu, s2 in insts[:2]:  # warm-up (compilation)
        fn(mu, s2, 0, known, -1.0)
    t0 = time.perf_counter()
    for _ in range(reps):
        for mu, s2 in insts:
            fn(mu, s2, 0, known, -1.0)
    return (time.perf_counter() - t0) / (reps * len(insts)) * 1e6


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--instances", type=int, default=20)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    print(
        f"{'K':>4} {'variance':>8} {'fast µs':>10} {'bisect µs':>10} {'ratio':>8} {'max rel diff':>13}"
    )
    for K in (2, 5, 10, 20):
        insts = []
        for _ in range(args.instances):
            inst = random_instance(rng, K)
            insts.append((np.array(inst.mu), np.array(inst.sigma2)))
        for known in (False, True):
            fast = per_call(oracle_fast, insts, known, args.reps * 10)
            slow = per_call(oracle_bisection, insts, known, args.reps)
            diff = max(
                abs(
                    oracle_fast(m, s, 0, known, -1.0)[0] / oracle_bisection(m, s, 0, known, -1.0)[0]
                    - 1
                )
                for m, s in insts
            )
            name = "known" if known else "unknown"
            print(f"{K:>4} {name:>8} {fast:>10.1f} {slow:>10.1f} {slow / fast:>8.1f} {diff:>13.2e}")


if __name__ == "__main__":
    main()
