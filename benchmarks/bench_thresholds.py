"""Benchmark: cost of one threshold evaluation per family, and BoB cost ratios.

Usage: ``python benchmarks/bench_thresholds.py [--repeats 50] [--n 2500] [--delta 0.01]``.
Prints, from one run on this machine, the median Python-call time (BoB via Pyomo + Ipopt)
and the numba kernel time of each family, and the ratios BoB / family (paper, Section
ssec:simulations_stopping_thresholds: 400x KL, 600x Box, 800x Student).
"""

from __future__ import annotations

import argparse

from baiuv.experiments.thresholds import threshold_costs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeats", type=int, default=50)
    ap.add_argument("--n", type=int, default=2500)
    ap.add_argument("--delta", type=float, default=0.01)
    ap.add_argument("--backend", default="auto")
    a = ap.parse_args()
    df = threshold_costs(delta=a.delta, n=a.n, repeats=a.repeats, backend=a.backend)
    bob_py = float(df.loc[df.family == "bob", "python_s"].iloc[0])
    bob_k = float(df.loc[df.family == "bob", "kernel_s"].iloc[0])
    print(f"{'family':<11} {'python µs':>10} {'kernel µs':>10} {'BoB/py':>9} {'BoB/kern':>9}")
    for r in df.itertuples():
        print(
            f"{r.family:<11} {r.python_s * 1e6:10.2f} {r.kernel_s * 1e6:10.3f} "
            f"{bob_py / r.python_s:9.1f} {bob_k / r.kernel_s:9.1f}"
        )


if __name__ == "__main__":
    main()
