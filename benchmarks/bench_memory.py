"""Peak memory of a simulation shard and of an aggregate, and how the aggregate scales.

Prints, from measurements taken in this run (peak resident set size of child processes,
``os.wait4``):

1. the peak RSS of one process that imports baiuv and does nothing else (the floor of any
   job), and of one simulation shard of ``config/paper.yaml`` (experiment ``standard``,
   algorithm ``--algorithm``, shard 0 of the configured number: 500 runs);
2. for a paper-scale run table of one experiment (5000 runs x 12 algorithms = 60 000 rows,
   the columns of :data:`baiuv.experiments.stopping_times.RUN_COLUMNS`, counts of K = 10 arms),
   split into 1, 12, 120, 480 and 1200 shard files: the peak RSS of the aggregation
   (``read_shards`` + ``aggregate_shards`` + ``write_table``, what ``sim_aggregate.py``
   does) in a fresh process, the size of the table in memory, and the growth over one shard.

The aggregate's peak should be the import floor plus a small multiple of the table (the
shards read and their concatenation) whatever the number of shards.

Usage: ``.venv/bin/python benchmarks/bench_memory.py [--algorithm EV-TCI]``
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from baiuv.experiments.stopping_times import RUN_COLUMNS
from baiuv.simulation import ALGORITHMS
from baiuv.storage.io import write_table

ROOT = Path(__file__).resolve().parents[1]
ROWS_PER_ALG = 5000
SHARD_COUNTS = (1, 12, 120, 480, 1200)


def peak_rss_mb(code: str, *args: str) -> float:
    """Peak RSS (MB) of ``python -c code args...`` run to completion."""
    p = subprocess.Popen([sys.executable, "-c", code, *args], cwd=ROOT)
    _, status, ru = os.wait4(p.pid, 0)
    if status != 0:
        raise RuntimeError(f"child failed ({status}): {code[:60]}")
    return ru.ru_maxrss / 1024.0  # kB on Linux


def synthetic_table(rng: np.random.Generator) -> pd.DataFrame:
    """A run table shaped like one paper-scale experiment (values are irrelevant)."""
    rows = []
    K = 10
    for alg in ALGORITHMS:
        tau = rng.integers(200, 20000, ROWS_PER_ALG)
        for r in range(ROWS_PER_ALG):
            rows.append(
                {
                    "algorithm": alg,
                    "experiment": "standard",
                    "instance": "standard",
                    "instance_index": 0,
                    "run": r,
                    "seed_entropy": str(10**30 + r),
                    "spawn_key": f"1,2,3,{r}",
                    "K": K,
                    "stopping_time": int(tau[r]),
                    "recommendation": 0,
                    "best_arm": 0,
                    "correct": True,
                    "truncated": False,
                    "counts": [int(tau[r]) // K] * K,
                    "T_star": 100.0,
                    "lower_bound": 460.0,
                    "wall_time": 1e-3,
                }
            )
    return pd.DataFrame(rows, columns=list(RUN_COLUMNS))


AGGREGATE = """
import sys
from pathlib import Path
from baiuv.storage.io import write_table
from baiuv.storage.shards import read_shards
from baiuv.experiments.stopping_times import aggregate_shards
paths = sorted(Path(sys.argv[1]).glob("shard_*.parquet"))
frames, params = read_shards(paths)
out = aggregate_shards(frames)
write_table(out, sys.argv[2], {"shards": params})
"""

SHARD = """
import sys, yaml
from baiuv.experiments.stopping_times import experiment_from_config, run_shard
from baiuv.simulation import RunSettings
cfg = yaml.safe_load(open("config/paper.yaml"))
sim = cfg["simulation"]
insts = {d["name"]: d for d in cfg["instances"]}
exp = experiment_from_config("standard", sim["experiments"]["standard"], insts)
keys = RunSettings.__dataclass_fields__
s = RunSettings(**{k: v for k, v in sim.items() if k in keys})
df = run_shard(exp, sys.argv[1], seed=cfg["seed"], settings=s, n_shards=int(sim["shards"]),
               shard=0)
print(len(df), "runs")
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--algorithm", default="EV-TCI", help="algorithm of the measured shard")
    args = ap.parse_args()

    floor = peak_rss_mb("import baiuv.simulation, baiuv.storage.shards")
    shard = peak_rss_mb(SHARD, args.algorithm)
    print("== peak RSS (MB)")
    print(f"import baiuv.simulation + baiuv.storage.shards: {floor:8.1f}")
    print(f"paper-scale shard (standard, {args.algorithm}, shard 0): {shard:8.1f}")

    df = synthetic_table(np.random.default_rng(0))
    table_mb = df.memory_usage(deep=True).sum() / 2**20
    print(f"\n== aggregate of {len(df)} rows ({table_mb:.1f} MB in memory) by number of shards")
    print(f"{'shards':>7s} {'peak RSS MB':>12s} {'over 1 shard':>13s} {'/table':>7s}")
    base = None
    with tempfile.TemporaryDirectory() as tmp:
        for n in SHARD_COUNTS:
            d = Path(tmp) / f"n{n}"
            d.mkdir()
            for i, part in enumerate(np.array_split(np.arange(len(df)), n)):
                write_table(
                    df.iloc[part].reset_index(drop=True),
                    d / f"shard_{i:05d}.parquet",
                    {"shard": i, "n_shards": n},
                )
            rss = peak_rss_mb(AGGREGATE, str(d), str(Path(tmp) / f"out{n}.parquet"))
            base = rss if base is None else base
            print(f"{n:7d} {rss:12.1f} {rss - base:13.1f} {(rss - floor) / table_mb:7.2f}")
    print(
        "(/table: peak above the import floor, in units of the table's size in memory; "
        "constant = memory bounded by the result table)"
    )


if __name__ == "__main__":
    main()
