"""Benchmark: cost of the asymptotic experiment (runs at ln(1/delta) up to 1000).

Usage: ``python benchmarks/bench_asymptotic_cost.py [--config config/paper-extended.yaml]
[--repeats 1] [--level 1000]``.

For every (instance, cell) of the config's ``asymptotic`` section, simulates ``--repeats``
runs at ``ln(1/delta) = --level`` (default: the largest level of the config) after a
warm-up run, and prints the stopping time, the CPU seconds per run and per sample
(``time.process_time``: the machine is shared, wall time would count other jobs). Since
``E[tau]`` grows linearly in ``ln(1/delta)``, the cost of the config is estimated as
``sum over cells of runs x (CPU s per run at the level) x sum(levels)/level``
(small levels are cheaper than this scaling, so the estimate is an upper bound up to
per-job overheads).
"""

from __future__ import annotations

import argparse
import time

import yaml

from baiuv.experiments.asymptotic import asymptotic_instances, asymptotic_levels, asymptotic_pairs
from baiuv.simulation.engine import RunSettings, simulate_run


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--config", default="config/paper-extended.yaml")
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--level", type=float, default=None)
    a = ap.parse_args()
    cfg = yaml.safe_load(open(a.config))
    if "instances" not in cfg:  # an overlay (config/paper-extended.yaml) of config/paper.yaml
        cfg = {**yaml.safe_load(open("config/paper.yaml")), **cfg}
    sec = cfg["asymptotic"]
    named = {i["name"]: i for i in cfg["instances"]}
    levels = asymptotic_levels(sec)
    level = a.level if a.level is not None else levels[-1]
    scale = sum(levels) / level
    n0 = int(sec.get("n0", 6))
    total = 0.0
    print(f"config {a.config}: levels {[round(x, 3) for x in levels]}, scale sum/level {scale:.3f}")
    print(
        f"{'instance':<10} {'algorithm':<8} {'threshold':<10} {'tau':>9} {'tau/L':>8} "
        f"{'CPU s/run':>10} {'µs/sample':>10} {'runs':>6} {'est. CPU s':>11}"
    )
    for ai in asymptotic_instances(sec["instances"], named):
        for alg, thr in asymptotic_pairs(sec):
            warm = RunSettings(log_inv_delta=level, threshold=thr, n0=n0, max_samples=50)
            simulate_run(ai.instance, alg, settings=warm, experiment="bench-warmup")
            s = RunSettings(log_inv_delta=level, threshold=thr, n0=n0, max_samples=10**9)
            cpu, taus = 0.0, []
            for r in range(a.repeats):
                t0 = time.process_time()
                out = simulate_run(ai.instance, alg, settings=s, experiment="bench", run=r)
                cpu += time.process_time() - t0
                taus.append(out["stopping_time"])
            per_run = cpu / a.repeats
            tau = sum(taus) / len(taus)
            est = per_run * scale * ai.runs
            total += est
            print(
                f"{ai.name:<10} {alg:<8} {thr:<10} {tau:9.0f} {tau / level:8.3f} "
                f"{per_run:10.3f} {per_run / tau * 1e6:10.2f} {ai.runs:6d} {est:11.0f}"
            )
    print(
        f"estimated CPU time of the asymptotic runs of {a.config}: {total:.0f} s "
        f"({total / 60:.1f} CPU minutes, {total / 120:.1f} minutes on 2 idle cores)"
    )


if __name__ == "__main__":
    main()
