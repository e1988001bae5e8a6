"""Benchmark: cost of the asymptotic experiment (runs at ln(1/delta) up to 1000), and the
runs per point that resolve its constants to a given precision.

Usage: ``python benchmarks/bench_asymptotic_cost.py [--config config/paper.yaml]
[--repeats 1] [--level 1000] [--instances standard] [--resolution 0.01]
[--runs-csv runs.csv]``.

For every (instance, cell) of the config's ``asymptotic`` section (or of ``--instances``),
simulates ``--repeats`` runs after a warm-up run, each one trajectory for every level of the
config up to ``ln(1/delta) = --level`` (default: the largest level), as the experiment runs
them (D307), and prints the stopping time at ``--level``, the CPU seconds per run and per
sample (``time.process_time``: the machine is shared, wall time would count other jobs).
The cost of the config is estimated as ``sum over cells of runs x (CPU s per run)`` (up to
per-job overheads; with ``--level`` below the config's largest level, the deeper levels are
left out).

With two repeats or more it also prints ``cv``, the standard deviation of one run's
``tau/ln(1/delta)`` over the cell's constant ``C``, and the runs per point
``ceil((z cv / resolution)^2)`` (:func:`baiuv.studies.asymptotic_claims.runs_for_resolution`,
``z`` the normal quantile of the section's ``level``) whose interval of
``E[tau]/ln(1/delta)`` has a half-width of ``--resolution`` times ``C``, the precision the
report's rows print as "resolves the constant to ±...". ``--runs-csv`` writes each run's
``instance, algorithm, threshold, log_inv_delta, stopping_time``.
"""

from __future__ import annotations

import argparse
import csv
import math
import statistics
import sys
import time

import yaml

from baiuv.simulation.engine import RunSettings, simulate_levels, simulate_run
from baiuv.storage.provenance import machine_description
from baiuv.studies.asymptotic import (
    THEORY,
    asymptotic_instances,
    asymptotic_levels,
    asymptotic_pairs,
    theoretical_constants,
)
from baiuv.studies.asymptotic_claims import runs_for_resolution


def asymptotic_setup(config: str) -> tuple[dict, dict, list[float]]:
    """``(section, named, levels)`` of the config file ``config``: its ``asymptotic``
    section, its named instances by name and the section's levels ``ln(1/delta)``
    (:func:`~baiuv.studies.asymptotic.asymptotic_levels`); an overlay without
    ``instances`` is read over ``config/paper.yaml``."""
    with open(config) as fh:
        cfg = yaml.safe_load(fh)
    if "instances" not in cfg:
        with open("config/paper.yaml") as fh:
            cfg = {**yaml.safe_load(fh), **cfg}
    sec = cfg["asymptotic"]
    named = {i["name"]: i for i in cfg["instances"]}
    return sec, named, asymptotic_levels(sec)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--config", default="config/paper.yaml")
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--level", type=float, default=None)
    ap.add_argument("--instances", nargs="*", default=None)
    ap.add_argument("--resolution", type=float, default=0.01)
    ap.add_argument("--runs-csv", default=None)
    a = ap.parse_args()
    sec, named, levels = asymptotic_setup(a.config)
    level = a.level if a.level is not None else levels[-1]
    levels_run = [x for x in levels if x < level] + [level]
    n0, beta, conf = int(sec.get("n0", 6)), float(sec.get("beta", 0.5)), float(sec["level"])
    total = 0.0
    rows = []
    print("command: python benchmarks/bench_asymptotic_cost.py " + " ".join(sys.argv[1:]))
    print(f"machine: {machine_description()}")
    print(f"config {a.config}: levels {[round(x, 3) for x in levels]}")
    print(f"{a.repeats} runs per cell, each one trajectory for ln(1/delta) in {levels_run}")
    print(
        f"{'instance':<10} {'algorithm':<8} {'threshold':<10} {'tau':>9} {'tau/L':>8} "
        f"{'cv':>7} {'runs ±' + format(a.resolution, '.0%'):>9} "
        f"{'CPU s/run':>10} {'µs/sample':>10} {'runs':>6} {'est. CPU s':>11}"
    )
    for ai in asymptotic_instances(sec["instances"], named):
        if a.instances is not None and ai.name not in a.instances:
            continue
        consts = theoretical_constants(ai.instance.mu, ai.instance.sigma2, beta)
        for alg, thr in asymptotic_pairs(sec):
            warm = RunSettings(log_inv_delta=level, threshold=thr, n0=n0, max_samples=50)
            simulate_run(ai.instance, alg, settings=warm, experiment="bench-warmup")
            s = RunSettings(log_inv_delta=level, threshold=thr, n0=n0, max_samples=10**9)
            lv = [{"log_inv_delta": x} for x in levels_run]
            cpu, taus = 0.0, []
            for r in range(a.repeats):
                t0 = time.process_time()
                out = simulate_levels(ai.instance, alg, lv, settings=s, experiment="bench", run=r)
                out = out[-1]
                cpu += time.process_time() - t0
                taus.append(out["stopping_time"])
                rows.append((ai.name, alg, thr, level, out["stopping_time"]))
            per_run = cpu / a.repeats
            tau = sum(taus) / len(taus)
            est = per_run * ai.runs
            total += est
            cv, need = math.nan, "-"
            if a.repeats >= 2:
                cv = statistics.stdev(taus) / level / consts[THEORY[alg][0]]
                need = str(runs_for_resolution(cv, a.resolution, conf))
            print(
                f"{ai.name:<10} {alg:<8} {thr:<10} {tau:9.0f} {tau / level:8.3f} {cv:7.4f} "
                f"{need:>9} {per_run:10.3f} {per_run / tau * 1e6:10.2f} {ai.runs:6d} {est:11.0f}"
            )
    print(
        f"estimated CPU time of the asymptotic runs of {a.config}: {total:.0f} s "
        f"({total / 60:.1f} CPU minutes, {total / 120:.1f} minutes on 2 idle cores)"
    )
    if a.runs_csv:
        with open(a.runs_csv, "w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(["instance", "algorithm", "threshold", "log_inv_delta", "stopping_time"])
            w.writerows(rows)


if __name__ == "__main__":
    main()
