"""Benchmark: CPU cost of the paper-scale audit (``config/paper-extended.yaml``), measured on
a sample of its runs and extrapolated.

The audit simulates ``runs`` runs of every cell ``(instance, algorithm, n0)`` of its
section. Its runs fall into strata ``(algorithm, n0)`` of ``instances x runs`` runs each.
The script draws ``--per-cell`` pairs ``(instance, run)`` uniformly without replacement
from the ``instances x runs`` pairs (``numpy.random.default_rng(--sample-seed)``: the same
pairs for every stratum and for every invocation), simulates each of them with the
audit's own settings and random stream (``run_seed(seed, "audit", instance, algorithm,
run)``), after a warm-up run per stratum that loads the kernels, and measures the process
CPU time of each run (``time.process_time``: the machine may be shared). The audit's CPU
time is estimated as

    sum over strata of (mean CPU s per sampled run) x instances x runs

with a percentile bootstrap range (``--boot`` resamples of the sampled runs within each
stratum, fixed seed) for the extrapolation. The range covers the sampling of the runs the
sample holds: rare very long runs that it misses are not in it. The estimate excludes
per-job overheads (process start, imports, kernel loading: about 3 CPU s per job, e.g.
the default config's audit job took 10 CPU s for 1408 runs this script puts at 7 s) and
the aggregates. CPU time per run grows when the cores are shared (caches), so a run on a
loaded machine (its load average is printed) overestimates an idle one.

Usage: ``NUMBA_NUM_THREADS=1 python benchmarks/bench_audit_cost.py
[--config config/paper-extended.yaml] [--per-cell 150] [--sample-seed 0]``
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
import yaml

from baiuv.simulation.engine import Runner, get_algorithm, warm_up
from baiuv.storage.provenance import machine_description
from baiuv.studies.audit import (
    SHARED_SETTINGS,
    audit_instances,
    audit_n0,
    audit_settings,
)


def sample_pairs(n_instances: int, runs: int, size: int, seed: int) -> list[tuple[int, int]]:
    """``size`` distinct pairs ``(instance index, run index)`` drawn uniformly, sorted."""
    population = n_instances * runs
    rng = np.random.default_rng(seed)
    picks = rng.choice(population, size=min(size, population), replace=False)
    return [divmod(int(k), runs) for k in sorted(picks)]


def bootstrap_total(per_run: list[np.ndarray], scale: float, boot: int, seed: int) -> np.ndarray:
    """Bootstrap replicates of ``scale x sum over strata of mean(per_run[s])``."""
    rng = np.random.default_rng(seed)
    reps = np.zeros(boot)
    for x in per_run:
        idx = rng.integers(0, len(x), size=(boot, len(x)))
        reps += x[idx].mean(axis=1) * scale
    return reps


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--config", default="config/paper-extended.yaml")
    ap.add_argument("--per-cell", type=int, default=150)
    ap.add_argument("--sample-seed", type=int, default=0)
    ap.add_argument("--boot", type=int, default=4000)
    a = ap.parse_args()
    cfg = yaml.safe_load(open(a.config))
    if "instances" not in cfg:  # an overlay of config/paper.yaml
        cfg = {**yaml.safe_load(open("config/paper.yaml")), **cfg}
    sec, seed = cfg["audit"], cfg["seed"]
    named = {i["name"]: i for i in cfg["instances"]}
    sim = cfg["simulation"]
    shared = {k: sim[k] for k in SHARED_SETTINGS if k in sim}
    insts = audit_instances(sec, named, seed)
    runs, delta = int(sec["runs"]), float(sec["delta"])
    pairs = sample_pairs(len(insts), runs, a.per_cell, a.sample_seed)
    strata = [
        (alg, n0)
        for alg in sec["algorithms"]
        for n0 in audit_n0(alg, sec["n0"], delta, sim.get("fhn_n0"))
    ]
    n_runs = len(strata) * len(insts) * runs
    print(f"machine: {machine_description()}")
    print("load average at start (1, 5, 15 min): " + ", ".join(f"{x:.2f}" for x in os.getloadavg()))
    print(
        f"audit of {a.config}: {len(insts)} instances x {len(strata)} (algorithm, n0) "
        f"strata x {runs} runs = {n_runs:,} runs"
    )
    print(
        f"sample: {len(pairs)} (instance, run) pairs per stratum (seed {a.sample_seed}), "
        f"{len(pairs) * len(strata)} runs in all; CPU = time.process_time per run"
    )
    print(f"{'algorithm':>9} {'n0':>3} {'mean tau':>10} {'CPU s/run':>10} {'core-hours':>11}")
    per_run: list[np.ndarray] = []
    t_start, wall_start = time.process_time(), time.perf_counter()
    for alg, n0 in strata:
        kw = dict(delta=delta, threshold=sec["threshold"], settings=shared)
        s = audit_settings(alg, n0, **kw)
        warm_up(insts[pairs[0][0]].instance, get_algorithm(alg), s, seed=seed)
        runner = Runner(get_algorithm(alg), s)
        cpu, taus = [], []
        for j, r in pairs:
            t0 = time.process_time()
            res = runner.result(insts[j].instance, seed, "audit", insts[j].instance_id, r)
            cpu.append(time.process_time() - t0)
            taus.append(res["stopping_time"])
        x = np.asarray(cpu)
        per_run.append(x)
        est = x.mean() * len(insts) * runs
        print(f"{alg:>9} {n0:>3} {np.mean(taus):10.0f} {x.mean():10.4f} {est / 3600:11.2f}")
    scale = len(insts) * runs
    total = sum(float(x.mean()) for x in per_run) * scale
    reps = bootstrap_total(per_run, scale, a.boot, a.sample_seed)
    lo, hi = np.percentile(reps, [2.5, 97.5])
    print(
        f"this benchmark: {(time.process_time() - t_start) / 60:.1f} CPU min, "
        f"{(time.perf_counter() - wall_start) / 60:.1f} wall min"
    )
    print(
        f"estimated CPU of the audit: {total / 3600:.1f} core-hours "
        f"(95 % bootstrap range {lo / 3600:.1f}-{hi / 3600:.1f}; "
        f"{total / n_runs * 1e3:.1f} ms per run over {n_runs:,} runs)"
    )
    by_alg: dict[str, float] = {}
    for (alg, _), x in zip(strata, per_run, strict=True):
        by_alg[alg] = by_alg.get(alg, 0.0) + float(x.mean()) * scale
    for alg, c in sorted(by_alg.items(), key=lambda kv: -kv[1]):
        print(f"  {alg:>8}: {c / 3600:7.1f} core-hours ({100 * c / total:.0f} %)")


if __name__ == "__main__":
    main()
