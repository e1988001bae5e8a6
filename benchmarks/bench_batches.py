"""What batching costs: stopping time and error of ``BestArmIdentifier`` in batches.

The identifier's default rule and threshold (TCI, β = 1/2, BoB, n0 = 2) at the δ of the
paper's experiments (0.01) on its standard and easy instances. At batch size ``b`` the
identifier asks ``next_arms(b)``; the ``b`` requests are sampled and all answered only
then (``observe_many``: delay = one batch), the stopping rule being checked after each
answer. Printed per instance and batch size, from runs of this one execution (the same
seeds at every batch size):

* mean (with its standard error) and median stopping time ``tau`` (observations used at
  the stop), the mean number
  of samples drawn (whole batches: the answers after the stopping row are not used), the
  error rate, and the ratios of the mean ``tau`` and of the mean drawn to batch size 1.

At batch size 1 this is the sequential identifier, whose run is the simulator's run with
the same generator (decision D72): those runs are computed by the simulator (its compiled
loop is much faster), and the first ones are checked against the identifier.

Usage: ``.venv/bin/python benchmarks/bench_batches.py [--runs 100]``
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from baiuv import EASY, STANDARD, BestArmIdentifier
from baiuv.simulation import RunSettings, simulate_run

DELTA = 0.01
BATCHES = (1, 10, 100, 1000)
CAP = 10_000_000  # the paper's safety cap per run


def run_batched(inst, b: int, seed: int) -> tuple[int, int, int]:
    """``(tau, samples drawn, recommendation)`` of one run at batch size ``b``: the
    identifier's coins and the observations from one generator."""
    g = np.random.default_rng(seed)
    idf = BestArmIdentifier(inst.K, DELTA, "tci", "bob", rng=g, max_samples=CAP)
    sd = np.sqrt(inst.sigma2)
    drawn = 0
    while not idf.done:
        arms = np.array(idf.next_arms(min(b, CAP - idf.n_samples - len(idf.pending_arms))))
        x = inst.mu[arms] + sd[arms] * g.standard_normal(arms.shape[0])
        drawn += arms.shape[0]
        idf.observe_many(arms, x)
    return idf.n_samples, drawn, int(idf.recommendation)


def run_sequential(inst, seed: int) -> tuple[int, int, int]:
    """Batch size 1 by the simulator (the same run as :func:`run_batched` with ``b = 1``)."""
    s = RunSettings(delta=DELTA, threshold="bob", max_samples=CAP)
    out = simulate_run(inst, "TCI", settings=s, rng=np.random.default_rng(seed))
    return int(out["stopping_time"]), int(out["stopping_time"]), int(out["recommendation"])


def se(x: np.ndarray) -> float:
    """Standard error of the mean of ``x``."""
    return float(x.std(ddof=1) / np.sqrt(x.shape[0]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=100, help="runs per instance and batch size")
    ap.add_argument("--check", type=int, default=1, help="batch-1 runs checked by the identifier")
    args = ap.parse_args()
    t_start = time.perf_counter()
    for inst in (STANDARD, EASY):
        for r in range(min(args.check, args.runs)):  # the simulator is the identifier at b=1
            assert run_sequential(inst, r) == run_batched(inst, 1, r), "b = 1 runs differ"
    print(
        f"TCI + BoB (the identifier's defaults), delta = {DELTA}, {args.runs} runs per row "
        f"(seeds 0..{args.runs - 1}, the same at every batch size); batch size 1 checked "
        f"against the identifier on {args.check} runs per instance"
    )
    print(
        f"{'instance':9} {'batch':>6} {'mean tau':>9} {'s.e.':>6} {'median':>8} {'mean drawn':>11} "
        f"{'error':>6} {'tau ratio':>9} {'drawn ratio':>11} {'s/run':>7}"
    )
    rows = []
    for inst in (STANDARD, EASY):
        base = None
        for b in BATCHES:
            t0 = time.perf_counter()
            res = np.array(
                [
                    run_sequential(inst, r) if b == 1 else run_batched(inst, b, r)
                    for r in range(args.runs)
                ]
            )
            secs = (time.perf_counter() - t0) / args.runs
            tau, drawn = res[:, 0].astype(float), res[:, 1].astype(float)
            err = float(np.mean(res[:, 2] != inst.best_arm))
            base = base or (tau.mean(), drawn.mean())
            row = (
                f"{inst.name:9} {b:6d} {tau.mean():9.0f} {se(tau):6.0f} {np.median(tau):8.0f} "
                f"{drawn.mean():11.0f} {err:6.3f} {tau.mean() / base[0]:9.2f} "
                f"{drawn.mean() / base[1]:11.2f} {secs:7.3f}"
            )
            print(row, flush=True)
            rows.append((inst.name, b, tau, drawn, err, base))
    print("\nMarkdown:")
    print(
        "| instance | batch size | mean τ (± s.e.) | median τ | mean samples drawn | error rate "
        "| mean τ / batch 1 | drawn / batch 1 |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, b, tau, drawn, err, base in rows:
        print(
            f"| {name} | {b} | {tau.mean():.0f} ± {se(tau):.0f} | {np.median(tau):.0f} "
            f"| {drawn.mean():.0f} "
            f"| {err:.3f} | {tau.mean() / base[0]:.2f} | {drawn.mean() / base[1]:.2f} |"
        )
    print(f"\n{args.runs} runs per row; {time.perf_counter() - t_start:.0f} s in all")


if __name__ == "__main__":
    main()
