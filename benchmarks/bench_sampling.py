"""Cost of the sampling rules and projection of the stopping-time experiments.

Prints, from measurements taken in this run:

1. µs per sample of every algorithm at K = 5 (the standard instance) and K = 10 (random
   instances of the paper), and runs per second;
2. for each experiment of a configuration (default: ``config/paper.yaml``), the mean wall
   time per run measured on a sample of its runs, and the projected duration of the whole
   experiment on ``--cores`` cores;
3. with ``--default-config``, the measured wall time of every simulation shard of
   ``config/config.yaml`` run on a pool of ``--cores`` processes (what
   ``snakemake --cores 2`` spends in the simulation rules), and the ratio to the projection.

Also prints the cost of one scipy HiGHS call on an FWS-sized game against the numba
simplex used by the kernels (decision D47).

Usage: ``.venv/bin/python benchmarks/bench_sampling.py [--sample 20] [--cores 2]
[--default-config]``
"""

from __future__ import annotations

import argparse
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import yaml

from baiuv import STANDARD
from baiuv.experiments.stopping_times import experiment_from_config, run_shard
from baiuv.simulation import ALGORITHMS, RunSettings
from baiuv.simulation.engine import simulate_run
from baiuv.simulation.game import solve_game, solve_game_highs

ROOT = Path(__file__).resolve().parents[1]


def settings_from(sim: dict) -> RunSettings:
    keys = RunSettings.__dataclass_fields__
    return RunSettings(**{k: v for k, v in sim.items() if k in keys})


def per_step(alg, instances, settings, n_runs):
    steps = 0
    wall = 0.0
    for r in range(n_runs):
        inst = instances[r % len(instances)]
        res = simulate_run(inst, alg, settings=settings, seed=1, experiment="bench", run=r)
        steps += res["stopping_time"]
        wall += res["wall_time"]
    return 1e6 * wall / steps, n_runs / wall, steps / n_runs


def _shard_job(args):
    cfg, name, alg, i, n = args
    sim = cfg["simulation"]
    insts = {d["name"]: d for d in cfg["instances"]}
    exp = experiment_from_config(name, sim["experiments"][name], insts)
    t0 = time.perf_counter()
    run_shard(exp, alg, seed=cfg["seed"], settings=settings_from(sim), n_shards=n, shard=i)
    return time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", default=str(ROOT / "config/paper.yaml"))
    ap.add_argument("--sample", type=int, default=20, help="runs measured per cell")
    ap.add_argument("--cores", type=int, default=2)
    ap.add_argument("--default-config", action="store_true")
    args = ap.parse_args()

    from baiuv.experiments.stopping_times import Experiment

    s = RunSettings()
    rnd = Experiment("bench-random", "random", 1, None, n_instances=args.sample, K=10)
    random_insts = [rnd.instance_at(i, 1)[1] for i in range(args.sample)]
    for alg in ALGORITHMS:  # compile / load caches outside the measurements
        simulate_run(STANDARD, alg, settings=RunSettings(max_samples=50))
    print("== cost per sample (heuristic threshold, delta = 0.01)")
    print(
        f"{'algorithm':10s} {'K=5 us/step':>12s} {'K=5 runs/s':>11s} {'K=10 us/step':>13s} "
        f"{'K=10 runs/s':>12s} {'K=10 mean tau':>14s}"
    )
    for alg in ALGORITHMS:
        u5, r5, _ = per_step(alg, [STANDARD], s, args.sample)
        u10, r10, tau10 = per_step(alg, random_insts, s, args.sample)
        print(f"{alg:10s} {u5:12.2f} {r5:11.1f} {u10:13.2f} {r10:12.2f} {tau10:14.0f}")

    rng = np.random.default_rng(0)
    M = rng.normal(size=(9, 10))
    solve_game(M)
    n = 200
    t0 = time.perf_counter()
    for _ in range(n):
        solve_game(M)
    t_simplex = (time.perf_counter() - t0) / n
    t0 = time.perf_counter()
    for _ in range(20):
        solve_game_highs(M)
    t_highs = (time.perf_counter() - t0) / 20
    print(
        f"\n== one 9x10 game: numba simplex {1e6 * t_simplex:.1f} us, scipy HiGHS "
        f"{1e6 * t_highs:.0f} us (ratio {t_highs / t_simplex:.0f}x)"
    )

    cfg = yaml.safe_load(Path(args.config).read_text())
    sim = cfg["simulation"]
    insts = {d["name"]: d for d in cfg["instances"]}
    st = settings_from(sim)
    print(
        f"\n== projection of {args.config} on {args.cores} cores "
        f"(mean wall time per run measured on {args.sample} runs per cell)"
    )
    total = 0.0
    for name, spec in sim["experiments"].items():
        exp = experiment_from_config(name, spec, insts)
        sub = 0.0
        for alg in sim["algorithms"]:
            idx = np.linspace(0, exp.n_total - 1, min(args.sample, exp.n_total)).astype(int)
            df = run_shard(exp, alg, seed=cfg["seed"], settings=st, indices=idx)
            per_run = df["wall_time"].mean()
            sub += per_run * exp.n_total
            print(
                f"  {name:9s} {alg:8s} {exp.n_total:6d} runs x {1e3 * per_run:8.2f} ms "
                f"(mean tau {df['stopping_time'].mean():8.0f}) = {per_run * exp.n_total:8.1f} s"
            )
        print(f"  {name}: {sub:.0f} core-s")
        total += sub
    proj = total / args.cores
    print(
        f"projected: {total:.0f} core-s = {proj / 60:.1f} min on {args.cores} cores "
        f"(target < 60 min: {'OK' if proj < 3600 else 'MISSED'})"
    )

    if args.default_config:
        dcfg = yaml.safe_load((ROOT / "config/config.yaml").read_text())
        dsim = dcfg["simulation"]
        jobs = [
            (dcfg, name, alg, i, int(dsim["shards"]))
            for name in dsim["experiments"]
            for alg in dsim["algorithms"]
            for i in range(int(dsim["shards"]))
        ]
        t0 = time.perf_counter()
        with ProcessPoolExecutor(args.cores) as ex:
            cpu = sum(ex.map(_shard_job, jobs))
        wall = time.perf_counter() - t0
        print(
            f"\n== default config: {len(jobs)} shards, measured {wall:.1f} s wall "
            f"({cpu:.1f} core-s) on {args.cores} processes"
        )


if __name__ == "__main__":
    main()
