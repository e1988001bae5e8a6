"""Per-sample cost of every sampling rule against the floor of the hardware.

Prints, from measurements taken in this run (process CPU time, so the numbers hold on a
loaded machine; every measurement is repeated ``--repeats`` times, interleaved with the
others, and the minimum is kept):

* the floor: a numba loop that draws one Gaussian observation and updates one arm's
  count, mean and variance (Welford) per sample, round robin over the arms;
* the floor with an EV-GLR stopping check: the same loop, plus the empirical best arm, the
  EV-GLR statistic of every other arm and the comparison with the heuristic threshold
  ``ln((1 + ln t)/delta)`` at every sample;
* the CPU time per sample of every algorithm (the numba kernel of a run, heuristic
  threshold, ``delta = 0.01``, ``n0 = 2``) at K = 5 (standard instance), K = 10 and K = 20
  (one fixed random instance each, drawn from seed 1 with the paper's ranges), and of
  round robin with the EV-GLR stopping rule (``EV-uniform``), the ratio to
  the floor at the same K, and at K = 5 the target ratio and whether it is met (only the
  kernel call is timed: the run's generator and arm states are built before it);
* the growth of each rule's per-sample cost from K = 5 to K = 20 (linear in K: at most
  20/5 = 4, printed with a 10 % tolerance; Track-and-Stop is exempt);
* a second table splitting each rule's cost at K = 5 into a fixed cost per kernel call
  (numba's unboxing of the arguments, among them the run's ``Generator``, about 7 us, and
  the run's set-up) and the marginal cost per sample: the least-squares line of the CPU
  time of each run against its length, over the runs of the measurement (each run's
  minimum over the repeats). Short runs (the EV rules on the standard instance stop after
  a few hundred samples) pay the fixed cost over few samples; the first table includes it;
* at K = 5, the per-sample cost of DKM's sampling rule without the stopping check (the
  kernel's step, plain and EV) and of its AdaHedge learner and C-tracking alone, on the
  floor loop's draws: how much of DKM's 20x target the rule's own arithmetic takes;
* the cost of a run outside its samples: ``simulate_run`` (what the experiments call per
  run: the run's seed sequence and generator, the kernel's arguments, the result) and the
  bare kernel call, both for a run that stops after its ``n0 K`` initial samples.

Seeds are fixed: run ``r`` of a rule uses ``numpy.random.default_rng(r)``, so two runs of
this script simulate the same samples.

Usage: ``NUMBA_NUM_THREADS=1 .venv/bin/python benchmarks/bench_floor.py [--repeats 5]
[--min-samples 200000]``
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
from numba import njit

from baiuv import STANDARD
from baiuv.model.glr_kernels import empirical_best
from baiuv.model.instance import random_instance
from baiuv.simulation import ALGORITHMS, RunSettings
from baiuv.simulation import rules as K_
from baiuv.simulation.engine import (
    Algorithm,
    _fhn_constants,
    _fresh_states,
    _true_allocation,
    level_arrays,
    rule_params,
    simulate_run,
)
from baiuv.simulation.rules import dkm as K_dkm
from baiuv.simulation.rules import tracking as K_tracking

#: Targets of the per-sample cost at K = 5, as ratios to the floor loop.
TARGETS = {
    "EV-TCI": 4.0,
    "EV-uniform": 4.0,
    "uniform": 10.0,
    "TCI": 10.0,
    "DKM": 20.0,
    "EV-DKM": 20.0,
    "FWS": 20.0,
    "EV-FWS": 20.0,
    "TaS": 75.0,
    "EV-TaS": 75.0,
}
LINEAR_EXEMPT = ("TaS", "EV-TaS")
#: Round robin with the EV-GLR stopping rule (not an algorithm of the paper's figures).
EV_UNIFORM = Algorithm(
    name="EV-uniform",
    kernel="glr",
    rule=K_.RULE_UNIFORM,
    plug_in=True,
    family="uniform",
    wrapper="EV",
)
BENCH_ALGORITHMS = {**ALGORITHMS, "EV-uniform": EV_UNIFORM}

_DKM_WS = tuple(K_dkm.WORKSPACE)  # DKM's workspace size


@njit(cache=True)
def floor_loop(mu, sd, n, rng):
    """``n`` samples: one Gaussian draw and one Welford update of one arm per sample."""
    K = mu.shape[0]
    counts = np.zeros(K, dtype=np.int64)
    means = np.zeros(K)
    m2 = np.zeros(K)
    var = np.zeros(K)
    for t in range(n):
        a = t % K
        x = mu[a] + sd[a] * rng.standard_normal()
        c = counts[a] + 1
        d = x - means[a]
        means[a] += d / c
        m2[a] += d * (x - means[a])
        counts[a] = c
        var[a] = m2[a] / c
    return means.sum() + var.sum()


@njit(cache=True)
def floor_ev_check_loop(mu, sd, n, rng, log_inv_delta):
    """:func:`floor_loop` plus a full EV-GLR stopping check (all arms) at every sample."""
    K = mu.shape[0]
    counts = np.zeros(K, dtype=np.int64)
    means = np.zeros(K)
    m2 = np.zeros(K)
    var = np.zeros(K)
    n_stop = 0
    for t in range(n):
        a = t % K
        x = mu[a] + sd[a] * rng.standard_normal()
        c = counts[a] + 1
        d = x - means[a]
        means[a] += d / c
        m2[a] += d * (x - means[a])
        counts[a] = c
        var[a] = m2[a] / c
        if t < 2 * K:
            continue
        best = 0
        for b in range(1, K):
            if means[b] > means[best]:
                best = b
        thr = math.log1p(math.log(t + 1.0)) + log_inv_delta
        stop = True
        for b in range(K):
            if b == best:
                continue
            g = means[best] - means[b]
            z = 0.5 * g * g / (var[best] / counts[best] + var[b] / counts[b])
            if not (z > thr):
                stop = False
        if stop:
            n_stop += 1
    return n_stop


@njit(cache=True)
def dkm_parts_loop(mu, sd, n_runs, run_length, rng, params, plug_in, whole_step):
    """``n_runs`` runs of ``run_length`` samples of DKM's sampling rule without its
    stopping check, on the floor loop's draws and updates (``2K`` initial samples, round
    robin): with ``whole_step``, the kernel's own step (:func:`step_dkm`: AdaHedge weights,
    best response, optimistic gains, AdaHedge update, C-tracking); otherwise the learner and
    the tracking alone (the same calls, with the gains replaced by the negated variances
    over the counts, no best response). Returns the counts of the last run (with
    ``whole_step``, those of the engine's run capped at ``run_length`` samples when it does
    not stop earlier)."""
    K = mu.shape[0]
    counts = np.zeros(K, dtype=np.int64)
    means = np.zeros(K)
    m2 = np.zeros(K)
    var = np.zeros(K)
    loss = np.empty(K)
    for _ in range(n_runs):
        counts[:] = 0
        means[:] = 0.0
        m2[:] = 0.0
        var[:] = 0.0
        for t in range(2 * K):
            a = t % K
            K_.welford(a, mu[a] + sd[a] * rng.standard_normal(), counts, means, m2, var)
        ws, scal = K_.init_workspace(counts, params, _DKM_WS, K_.RULE_DKM)
        for t in range(2 * K, run_length):
            best = empirical_best(means)
            if whole_step:
                a = K_.step_dkm(counts, means, var, best, t, plug_in, ws, scal)
            else:
                w = ws[K_dkm.DKM_W]
                gap = scal[K_dkm.S_GAP]
                eta, pre = K_dkm._hedge_weights_mix(ws[K_dkm.DKM_LOSS], gap, w)
                for b in range(K):
                    loss[b] = -var[b] / counts[b]
                gap = K_dkm._hedge_update_pre(ws[K_dkm.DKM_LOSS], gap, w, eta, loss, pre)
                scal[K_dkm.S_GAP] = gap
                a = K_tracking.c_tracking(ws[K_dkm.DKM_SUMW], counts, w)
            K_.welford(a, mu[a] + sd[a] * rng.standard_normal(), counts, means, m2, var)
    return counts


def instances():
    """The benchmark's instance at each K."""
    return {
        5: STANDARD,
        10: random_instance(np.random.default_rng(1), 10, name="K10"),
        20: random_instance(np.random.default_rng(1), 20, name="K20"),
    }


def _run_glr_first(*args):
    """:func:`baiuv.simulation.rules.run_glr` with one level: that level's ``(tau,
    recommendation, counts, truncated)``."""
    taus, recs, counts, truncs, _, _ = K_.run_glr(*args)
    return taus[0], recs[0], counts[0], truncs[0]


class Rule:
    """The prepared arguments of one algorithm's kernel on one instance."""

    def __init__(self, name, inst, settings):
        self.alg = BENCH_ALGORITHMS[name]
        self.inst = inst
        self.s = settings
        K = inst.K
        self.mu = np.asarray(inst.mu, float)
        self.sigma2 = np.asarray(inst.sigma2, float)
        if self.alg.kernel == "glr":
            self.levels = level_arrays([settings], K)
            self.params = rule_params(settings)
            if self.alg.rule == K_.RULE_FIXED:
                self.wfix = _true_allocation(tuple(self.mu.tolist()), tuple(self.sigma2.tolist()))
            else:
                self.wfix = np.full(K, 1.0 / K)

    def prepare(self, seed):
        """The kernel and its arguments for run ``seed`` (generator and arm states built
        here, outside the timed call)."""
        rng = np.random.default_rng(seed)
        s = self.s
        if self.alg.kernel == "fhn":
            K = self.mu.size
            n0, log_term = _fhn_constants(s, K)
            fhn1 = self.alg.name == "FHN1"
            return K_.run_fhn, (self.mu, self.sigma2, n0, log_term, fhn1, rng, s.max_samples)
        args = (
            self.alg.rule,
            self.alg.plug_in,
            (self.mu, self.sigma2),
            self.levels,
            _fresh_states(self.mu.size)[None],
            (self.params, self.wfix),
            rng,
            (s.n0, s.max_samples),
        )
        return _run_glr_first, args

    def run(self, seed):
        fn, args = self.prepare(seed)
        return fn(*args)[0]


def time_rule(rule, min_samples, per_run=None):
    """CPU seconds per sample over runs with seeds 0, 1, ... until ``min_samples``; the
    ``(tau, cpu)`` of run ``seed`` is kept in ``per_run[seed]`` (minimum CPU over calls)."""
    samples = 0
    cpu = 0.0
    seed = 0
    while samples < min_samples:
        fn, args = rule.prepare(seed)
        t0 = time.process_time()
        tau = fn(*args)[0]
        dt = time.process_time() - t0
        cpu += dt
        samples += int(tau)
        if per_run is not None:
            old = per_run.get(seed)
            per_run[seed] = (int(tau), dt if old is None else min(old[1], dt))
        seed += 1
    return cpu / samples


def fixed_and_marginal(per_run):
    """``(fixed seconds per call, marginal seconds per sample)``: least-squares line of the
    runs' CPU times against their lengths."""
    tau = np.array([v[0] for v in per_run.values()], float)
    cpu = np.array([v[1] for v in per_run.values()], float)
    if tau.size < 3 or np.ptp(tau) == 0.0:
        return math.nan, cpu.sum() / tau.sum()
    slope, intercept = np.polyfit(tau, cpu, 1)
    return intercept, slope


def time_floor(fn, mu, n, *extra):
    sd = np.sqrt(mu[1])
    rng = np.random.default_rng(0)
    t0 = time.process_time()
    fn(mu[0], sd, n, rng, *extra)
    return (time.process_time() - t0) / n


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5, help="interleaved repeats (minimum kept)")
    ap.add_argument("--min-samples", type=int, default=200_000, help="samples per measurement")
    ap.add_argument("--algorithms", nargs="*", default=list(BENCH_ALGORITHMS))
    args = ap.parse_args()

    s = RunSettings(max_samples=1_000_000)
    insts = instances()
    Ks = sorted(insts)
    rules = {(a, K): Rule(a, insts[K], s) for a in args.algorithms for K in Ks}
    log_inv_delta = math.log(1.0 / s.delta)
    for K in Ks:  # compile / load every kernel outside the measurements
        arr = (np.asarray(insts[K].mu, float), np.asarray(insts[K].sigma2, float))
        floor_loop(arr[0], np.sqrt(arr[1]), 10, np.random.default_rng(0))
        floor_ev_check_loop(arr[0], np.sqrt(arr[1]), 10, np.random.default_rng(0), log_inv_delta)
    for r in rules.values():
        # the benchmark's call must be the engine's run: same stopping time for one seed
        tau = r.run(0)
        ref = simulate_run(r.inst, r.alg, settings=s, rng=np.random.default_rng(0))
        if tau != ref["stopping_time"]:
            raise SystemExit(
                f"{r.alg.name} on {r.inst.name}: the benchmark's kernel call stops at {tau}, "
                f"simulate_run at {ref['stopping_time']}: the benchmark does not run the engine"
            )

    best: dict = {}
    runs: dict = {a: {} for a in args.algorithms}
    for _ in range(args.repeats):
        for K in Ks:
            arr = (np.asarray(insts[K].mu, float), np.asarray(insts[K].sigma2, float))
            n = 20 * args.min_samples
            v = time_floor(floor_loop, arr, n)
            best[("floor", K)] = min(best.get(("floor", K), math.inf), v)
            v = time_floor(floor_ev_check_loop, arr, n, log_inv_delta)
            best[("floor+EV", K)] = min(best.get(("floor+EV", K), math.inf), v)
        for key, r in rules.items():
            v = time_rule(r, args.min_samples, runs[key[0]] if key[1] == 5 else None)
            best[key] = min(best.get(key, math.inf), v)

    ns = 1e9
    print(
        f"== CPU time per sample (ns), minimum of {args.repeats} interleaved repeats; "
        f"heuristic threshold, delta = {s.delta}, n0 = {s.n0}"
    )
    head = f"{'':10s}" + "".join(f" {'K=' + str(K):>9s} {'/floor':>7s}" for K in Ks)
    print(head + f" {'target@5':>9s} {'met':>4s} {'K20/K5':>7s} {'linear':>7s}")
    for name in ("floor", "floor+EV"):
        row = f"{name:10s}"
        for K in Ks:
            row += f" {ns * best[(name, K)]:9.1f} {best[(name, K)] / best[('floor', K)]:7.2f}"
        print(row)
    n_met = n_targets = 0
    for a in args.algorithms:
        row = f"{a:10s}"
        for K in Ks:
            row += f" {ns * best[(a, K)]:9.1f} {best[(a, K)] / best[('floor', K)]:7.1f}"
        ratio5 = best[(a, 5)] / best[("floor", 5)]
        tgt = TARGETS.get(a)
        if tgt is None:
            row += f" {'-':>9s} {'-':>4s}"
        else:
            ok = ratio5 <= tgt
            n_targets += 1
            n_met += ok
            row += f" {tgt:8.0f}x {'yes' if ok else 'NO':>4s}"
        growth = best[(a, 20)] / best[(a, 5)]
        lin = "exempt" if a in LINEAR_EXEMPT else ("yes" if growth <= 4.4 else "NO")
        row += f" {growth:7.2f} {lin:>7s}"
        print(row)
    print(
        f"targets at K = 5 met: {n_met}/{n_targets} (ratio to the floor loop at K = 5, "
        f"{ns * best[('floor', 5)]:.1f} ns per sample); linear: K20/K5 <= 4.4"
    )
    print()
    print("== K = 5: fixed cost per kernel call and marginal cost per sample (least squares")
    print("   over the runs above: CPU of a run = fixed + marginal x its length)")
    print(
        f"{'':10s} {'mean tau':>9s} {'fixed us':>9s} {'marg. ns':>9s} {'/floor':>7s} "
        f"{'target@5':>9s} {'met':>4s}"
    )
    n_met = 0
    for a in args.algorithms:
        fixed, marg = fixed_and_marginal(runs[a])
        mean_tau = np.mean([v[0] for v in runs[a].values()])
        ratio = marg / best[("floor", 5)]
        tgt = TARGETS.get(a)
        met = "-" if tgt is None else ("yes" if ratio <= tgt else "NO")
        n_met += met == "yes"
        print(
            f"{a:10s} {mean_tau:9.0f} {1e6 * fixed:9.2f} {ns * marg:9.1f} {ratio:7.1f} "
            f"{'-' if tgt is None else f'{tgt:.0f}x':>9s} {met:>4s}"
        )
    print(f"marginal targets at K = 5 met: {n_met}/{n_targets}")
    print()
    print_dkm_parts(args.repeats, args.min_samples, best[("floor", 5)], s)
    print()
    print_run_overhead(args.repeats)


def print_dkm_parts(repeats, min_samples, floor5, settings, run_length=3000):
    """Per-sample CPU of DKM's sampling rule at K = 5 without the stopping check, whole and
    its learner alone (:func:`dkm_parts_loop`, runs of ``run_length`` samples, about the
    mean stopping time of DKM and EV-DKM on the standard instance), as ratios to the floor
    loop: the part of the 20x target that the rule's own arithmetic takes."""
    mu = np.asarray(STANDARD.mu, float)
    sd = np.sqrt(np.asarray(STANDARD.sigma2, float))
    params = rule_params(settings)
    n_runs = max(1, min_samples // run_length)
    n = n_runs * run_length
    parts = [
        ("learner+tracking", False, False),
        ("EV-DKM step", True, True),
        ("DKM step", False, True),
    ]
    for _, plug_in, whole in parts:  # compile / load outside the measurements
        dkm_parts_loop(mu, sd, 1, 100, np.random.default_rng(0), params, plug_in, whole)
    best = dict.fromkeys([p[0] for p in parts], math.inf)
    for _ in range(repeats):
        for name, plug_in, whole in parts:
            rng = np.random.default_rng(0)
            t0 = time.process_time()
            dkm_parts_loop(mu, sd, n_runs, run_length, rng, params, plug_in, whole)
            best[name] = min(best[name], (time.process_time() - t0) / n)
    print(
        f"== K = 5: DKM's sampling rule without its stopping check, on the floor's draws "
        f"(runs of {run_length} samples)"
    )
    print(f"{'':18s} {'ns':>8s} {'/floor':>7s}   (target of DKM and EV-DKM: 20x)")
    for name, _, _ in parts:
        print(f"{name:18s} {1e9 * best[name]:8.1f} {best[name] / floor5:7.1f}")


def print_run_overhead(repeats, n_runs=2000):
    """CPU per run of ``simulate_run`` and of the bare kernel call, for EV-TCI runs on the
    standard instance capped at their ``n0 K`` initial samples."""
    s = RunSettings(max_samples=10)
    rule = Rule("EV-TCI", STANDARD, s)
    rule.run(0)
    simulate_run(STANDARD, "EV-TCI", settings=s, seed=1, experiment="standard")
    best_sim = best_call = math.inf
    for _ in range(repeats):
        t0 = time.process_time()
        for r in range(n_runs):
            simulate_run(STANDARD, "EV-TCI", settings=s, seed=1, experiment="standard", run=r)
        best_sim = min(best_sim, (time.process_time() - t0) / n_runs)
        calls = [rule.prepare(r) for r in range(n_runs)]
        t0 = time.process_time()
        for fn, a in calls:
            fn(*a)
        best_call = min(best_call, (time.process_time() - t0) / n_runs)
    print("== per run, outside the samples (EV-TCI, standard instance, stopped after n0 K = 10)")
    print(f"simulate_run {1e6 * best_sim:7.1f} us   bare kernel call {1e6 * best_call:7.1f} us")


if __name__ == "__main__":
    main()
