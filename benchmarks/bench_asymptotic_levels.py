"""Benchmark: does one run of the asymptotic experiment, one trajectory for every level
(D307), cost about what its deepest level costs alone?

Usage: ``python benchmarks/bench_asymptotic_levels.py [--config config/paper.yaml]
[--instance standard] [--algorithm TaS] [--threshold bob] [--repeats 3]``.

For one cell of the config's ``asymptotic`` section, simulates ``--repeats`` runs twice in
this process after a warm-up of both loops, alternating: with every level of the section
and with the deepest ``ln(1/delta)`` only, each with its :class:`~baiuv.simulation.engine.Runner`
built once, as :func:`~baiuv.simulation.engine.run_cell` runs a cell's runs. Both runs of a
seed stop the deepest level at the same time (checked). Prints the CPU seconds of each
(``time.process_time``: the machine is shared) and their ratio, all levels over the deepest
alone.
"""

from __future__ import annotations

import argparse
import sys
import time

from bench_asymptotic_cost import asymptotic_setup

from baiuv.registry import get_algorithm
from baiuv.simulation.engine import Runner, RunSettings, simulate_levels, simulate_run
from baiuv.storage.provenance import machine_description
from baiuv.studies.asymptotic import asymptotic_instances


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", default="config/paper.yaml")
    ap.add_argument("--instance", default="standard")
    ap.add_argument("--algorithm", default="TaS")
    ap.add_argument("--threshold", default="bob")
    ap.add_argument("--repeats", type=int, default=3)
    a = ap.parse_args()
    sec, named, levels = asymptotic_setup(a.config)
    deepest = levels[-1]
    (ai,) = [x for x in asymptotic_instances(sec["instances"], named) if x.name == a.instance]
    n0 = int(sec.get("n0", 6))
    s = RunSettings(log_inv_delta=deepest, threshold=a.threshold, n0=n0, max_samples=10**9)
    lv = [{"log_inv_delta": x} for x in levels]
    alg = get_algorithm(a.algorithm)
    every, alone = Runner(alg, s, lv), Runner(alg, s)
    warm = RunSettings(log_inv_delta=deepest, threshold=a.threshold, n0=n0, max_samples=50)
    simulate_run(ai.instance, a.algorithm, settings=warm, experiment="bench-warmup")
    simulate_levels(ai.instance, a.algorithm, lv, settings=warm, experiment="bench-warmup")
    print("command: python benchmarks/bench_asymptotic_levels.py " + " ".join(sys.argv[1:]))
    print(f"machine: {machine_description()}")
    print(f"{a.instance} {a.algorithm} {a.threshold}, n0 = {n0}; levels {levels}")
    cpu_all = cpu_one = 0.0
    for r in range(a.repeats):
        t0 = time.process_time()
        rows = every.results(ai.instance, 0, "bench", ai.name, r)
        t1 = time.process_time()
        (one,) = alone.results(ai.instance, 0, "bench", ai.name, r)
        t2 = time.process_time()
        if rows[-1]["stopping_time"] != one["stopping_time"]:
            raise RuntimeError(f"run {r}: the deepest level stops apart from its run alone")
        cpu_all += t1 - t0
        cpu_one += t2 - t1
        print(f"run {r}: tau {one['stopping_time']:>10d}  all levels {t1 - t0:8.2f} CPU s  "
              f"deepest alone {t2 - t1:8.2f} CPU s", flush=True)  # fmt: skip
    print(f"all {len(levels)} levels: {cpu_all:.2f} CPU s; deepest alone: {cpu_one:.2f} CPU s")
    print(f"ratio all levels / deepest alone: {cpu_all / cpu_one:.3f}")


if __name__ == "__main__":
    main()
