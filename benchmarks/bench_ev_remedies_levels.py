"""Benchmark: cost of the EV remedy study with the thresholds of one n0 as stopping levels of
one trajectory, against every remedy run on its own trajectories.

Usage: ``python benchmarks/bench_ev_remedies_levels.py [--config config/config.yaml]
[--mode both|levels|separate] [--sample-runs N] [--sample-instances N] [--evidence]``.

``--mode both`` (default) runs the ``ev_remedies`` section of the config twice in this
process, after a warm-up that compiles every kernel: once as the study runs it (one job per
(algorithm, n0), every threshold of that n0 a stopping level,
:func:`baiuv.studies.ev_remedy_runs.run_remedy_shard` with the group), once with one job per
(algorithm, remedy) (the same function with one remedy), and prints the CPU seconds
(``time.process_time``: the machine is shared) of each job and the ratio of the totals.

``--sample-runs N`` / ``--sample-instances N`` run only the first ``N`` runs of every named
and audit instance and the first ``N`` random instances, and print the estimated cost of the
whole section: per (algorithm, n0, group), the CPU seconds per trajectory of the sample
times the trajectories of the section. ``--evidence`` adds the evidence of the truncated
runs (:mod:`baiuv.studies.ev_truncation`, read from their final statistics) to the
levels' jobs.
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict

import yaml

from baiuv.studies.ev_remedy_runs import (
    ev_instances,
    remedies_by_n0,
    remedies_from_config,
    run_remedy_shard,
)


def _sample(instances, runs_per, n_random):
    out, seen_random = [], 0
    for g, a, runs in instances:
        if g == "random":
            if seen_random >= n_random:
                continue
            seen_random += 1
            out.append((g, a, runs))
        else:
            out.append((g, a, min(runs, runs_per)))
    return out


def _trajectories(instances):
    """Trajectories per group of one (algorithm, n0): every run of every instance."""
    out = defaultdict(int)
    for g, _, runs in instances:
        out[g] += runs
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", default="config/config.yaml")
    ap.add_argument("--mode", choices=("both", "levels", "separate"), default="both")
    ap.add_argument("--sample-runs", type=int, default=None)
    ap.add_argument("--sample-instances", type=int, default=None)
    ap.add_argument("--evidence", action="store_true")
    args = ap.parse_args()
    cfg = yaml.safe_load(open(args.config))
    sec = cfg["ev_remedies"]
    named = {i["name"]: i for i in cfg["instances"]}
    full = ev_instances(sec, named, cfg["seed"])
    remedies = remedies_from_config(sec["remedies"])
    sampled = args.sample_runs is not None or args.sample_instances is not None
    insts = full
    if sampled:
        insts = _sample(full, args.sample_runs or 10**9, args.sample_instances or 10**9)
    kw = dict(seed=cfg["seed"], delta=float(sec["delta"]), max_samples=int(sec["max_samples"]))
    # warm-up: compile every kernel (one and several levels)
    warm = [(insts[0][0], insts[0][1], 1)]
    for alg in sec["algorithms"]:
        for group in remedies_by_n0(remedies).values():
            run_remedy_shard(warm, alg, group, **{**kw, "max_samples": 200}, evidence=True)
            for r in group:
                run_remedy_shard(warm, alg, r, **{**kw, "max_samples": 200})
    totals = {}
    for mode in ("levels", "separate"):
        if args.mode not in (mode, "both"):
            continue
        total, est = 0.0, 0.0
        for alg in sec["algorithms"]:
            for n0, group in remedies_by_n0(remedies).items():
                jobs = [group] if mode == "levels" else [[r] for r in group]
                for job in jobs:
                    # sampled: one timing per group, scaled to the section's trajectories
                    parts = sorted({g for g, _, _ in insts}) if sampled else [None]
                    for g in parts:
                        sub = [x for x in insts if g is None or x[0] == g]
                        ev = args.evidence and mode == "levels"
                        t0 = time.process_time()
                        out = run_remedy_shard(sub, alg, job, **kw, evidence=ev)
                        cpu = time.process_time() - t0
                        rows = out[0] if ev else out
                        total += cpu
                        name = f"n0={n0}" if mode == "levels" else job[0].name
                        if g is not None:
                            have = _trajectories(sub)[g]
                            want = _trajectories([x for x in full if x[0] == g])[g]
                            est += cpu * want / max(have, 1)
                            name += f" {g}"
                        print(
                            f"{mode:9s} {alg:7s} {name:36s} {cpu:9.2f} s  rows {len(rows):6d}"
                            f"  truncated {int(rows['truncated'].sum())}",
                            flush=True,
                        )
        totals[mode] = total
        print(f"{mode}: {total:.1f} CPU s in total", flush=True)
        if sampled:
            print(f"{mode}: estimated {est:.0f} CPU s ({est / 3600:.2f} h) for the section")
    if len(totals) == 2:
        print(f"separate / levels: {totals['separate'] / totals['levels']:.2f}")


if __name__ == "__main__":
    main()
