"""Benchmark: estimated CPU cost of the paper-scale audit (``config/paper-extended.yaml``).

For every (algorithm, n0) cell of the audit section and every instance family, simulates
``--runs`` runs on each of ``--per-family`` instances of the family (the first ones of
the audit's own instance list, same seeds as the audit), after a warm-up run that loads
the kernels, and measures process CPU time (``time.process_time``: the machine may be
shared). The audit's cost is estimated family by family as

    sum over (algorithm, n0, family) of (mean CPU s per run) x (instances of the family) x runs

and printed in core-hours, with the share of each algorithm. Sampled instances are the
family's first ones, so two runs of this script measure the same runs.

Usage: ``NUMBA_NUM_THREADS=1 .venv/bin/python benchmarks/bench_audit_cost.py
[--config config/paper-extended.yaml] [--per-family 3] [--runs 2]``
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict

import yaml

from baiuv.experiments.audit import SHARED_SETTINGS, audit_instances, audit_n0, run_audit_shard


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--config", default="config/paper-extended.yaml")
    ap.add_argument("--per-family", type=int, default=3)
    ap.add_argument("--runs", type=int, default=2)
    a = ap.parse_args()
    cfg = yaml.safe_load(open(a.config))
    if "instances" not in cfg:  # an overlay of config/paper.yaml
        cfg = {**yaml.safe_load(open("config/paper.yaml")), **cfg}
    sec, seed = cfg["audit"], cfg["seed"]
    named = {i["name"]: i for i in cfg["instances"]}
    sim = cfg["simulation"]
    settings = {k: sim[k] for k in SHARED_SETTINGS if k in sim}
    insts = audit_instances(sec, named, seed)
    families: dict[str, list] = defaultdict(list)
    for inst in insts:
        families[inst.family].append(inst)
    runs = int(sec["runs"])
    print(
        f"audit of {a.config}: {len(insts)} instances in {len(families)} families, "
        f"{runs} runs per cell; sample: {a.per_family} instances per family x {a.runs} runs"
    )
    total = 0.0
    by_alg: dict[str, float] = defaultdict(float)
    for alg in sec["algorithms"]:
        for n0 in audit_n0(alg, sec["n0"], sec["delta"], sim.get("fhn_n0")):
            kw = dict(seed=seed, delta=float(sec["delta"]), threshold=sec["threshold"])
            run_audit_shard(insts[:1], alg, n0, runs=1, settings=settings, **kw)  # warm-up
            cell = 0.0
            for members in families.values():
                sample = members[: a.per_family]
                t0 = time.process_time()
                run_audit_shard(sample, alg, n0, runs=a.runs, settings=settings, **kw)
                per_run = (time.process_time() - t0) / (len(sample) * a.runs)
                cell += per_run * len(members) * runs
            print(f"{alg:>8} n0={n0:<3} {cell / 3600:8.2f} core-hours")
            total += cell
            by_alg[alg] += cell
    print(f"estimated CPU of the audit: {total / 3600:.1f} core-hours")
    for alg, c in sorted(by_alg.items(), key=lambda kv: -kv[1]):
        print(f"  {alg:>8}: {c / 3600:7.2f} core-hours ({100 * c / total:.0f} %)")


if __name__ == "__main__":
    main()
