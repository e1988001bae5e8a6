"""Benchmark: exact BoB solver vs a Box evaluation vs the Pyomo + cyipopt path.

All timings are measured in one run of this script, side by side, and printed with their
ratios. Two kinds of inputs:

* ``paper``: ``C = eps_mu(N, delta/2)``, ``D = 1 - eps_{-,sigma}(N - 1, delta/2)`` and
  ``E = c^KL(N, delta/2)`` from ``baiuv.thresholds`` (counts log-uniform in [20, 20000],
  delta = 0.01), i.e. the inputs met when the BoB threshold is evaluated at every step;
* ``random``: broad random programs (all regimes, including the non-concave ones).

Numba timings: a compiled loop over the cases calls the scalar kernel (``bob_exact`` or the
Box value ``sum N_c/2 ln(1 + C_c/D_c)``, EV: ``sum N_c C_c/(2 D_c)``); best of several
repeats, after warm-up. Python-call timings: the same kernels called one by one from Python.

Usage: ``python benchmarks/bench_bob.py [--cases 20000] [--ipopt-cases 100]``.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
from numba import njit

from baiuv.thresholds.bob_exact import bob_exact


@njit(cache=True)
def box_value(n1, n2, c1, c2, d1, d2, ev):
    """Box value (Lemma lem:delta_correct_box_thresholds closed form), same calling style."""
    if ev:
        return 0.5 * (n1 * c1 / d1 + n2 * c2 / d2)
    return 0.5 * (n1 * math.log1p(c1 / d1) + n2 * math.log1p(c2 / d2))


@njit(cache=True)
def loop_exact(P, ev):
    s = 0.0
    for i in range(P.shape[0]):
        s += bob_exact(P[i, 0], P[i, 1], P[i, 2], P[i, 3], P[i, 4], P[i, 5], P[i, 6], ev)
    return s


@njit(cache=True)
def loop_box(P, ev):
    s = 0.0
    for i in range(P.shape[0]):
        s += box_value(P[i, 0], P[i, 1], P[i, 2], P[i, 3], P[i, 4], P[i, 5], ev)
    return s


def paper_cases(rng, m, delta=0.01, s=2.0, eta0=None, gamma=1.2):
    """(N, C, D, E) rows from the threshold families of ``baiuv.thresholds``."""
    from scipy.special import zeta

    from baiuv.thresholds.concentration import eps_mu_L, one_minus_eps_minus_L
    from baiuv.thresholds.kernels import kl_value, log_gamma_R

    d2 = delta / 2
    eta0 = 1.0 / math.log(1.0 / d2) if eta0 is None else eta0
    L = math.log(4 * zeta(s) / d2)
    lpre = math.log(12 * zeta(s) / d2)
    lmain = math.log(2 * zeta(s) ** 2 / d2)
    rows = []
    while len(rows) < m:
        n = np.floor(np.exp(rng.uniform(math.log(20), math.log(20000), 2)))
        c = [eps_mu_L(x, L, s) for x in n]
        d = [one_minus_eps_minus_L(x - 1, L, s, eta0) for x in n]
        if min(d) <= 0 or max(d) > 1:
            continue
        lg = [
            log_gamma_R(int(math.log(x) / math.log(gamma)), 0.0, 1.0, lpre, s, eta0, eta0, gamma)
            for x in n
        ]
        e = kl_value(n[0], n[1], lg[0], lg[1], lmain, s, gamma)
        if math.isfinite(e):
            rows.append([n[0], n[1], c[0], c[1], d[0], d[1], e, lg[0], lg[1]])
    return np.array(rows)


def full_threshold_loops():
    """Numba loops computing the whole pair threshold from counts (Box: C, D and the
    closed form; BoB: C, D, E and :func:`bob_exact`), with the kernels of
    ``baiuv.thresholds``; ``None`` if those are not importable."""
    try:
        from baiuv.thresholds.concentration import eps_mu_L, one_minus_eps_minus_L
        from baiuv.thresholds.kernels import kl_value
    except Exception:  # noqa: BLE001
        return None

    @njit
    def box_full(P, ev, L, s, eta0):
        acc = 0.0
        for i in range(P.shape[0]):
            n1 = P[i, 0]
            n2 = P[i, 1]
            c1 = eps_mu_L(n1, L, s)
            c2 = eps_mu_L(n2, L, s)
            d1 = one_minus_eps_minus_L(n1 - 1.0, L, s, eta0)
            d2 = one_minus_eps_minus_L(n2 - 1.0, L, s, eta0)
            acc += box_value(n1, n2, c1, c2, d1, d2, ev)
        return acc

    @njit
    def bob_full(P, ev, L, s, eta0, lmain, gamma):
        acc = 0.0
        for i in range(P.shape[0]):
            n1 = P[i, 0]
            n2 = P[i, 1]
            c1 = eps_mu_L(n1, L, s)
            c2 = eps_mu_L(n2, L, s)
            d1 = one_minus_eps_minus_L(n1 - 1.0, L, s, eta0)
            d2 = one_minus_eps_minus_L(n2 - 1.0, L, s, eta0)
            e = kl_value(n1, n2, P[i, 7], P[i, 8], lmain, s, gamma)
            acc += bob_exact(n1, n2, c1, c2, d1, d2, e, ev)
        return acc

    return box_full, bob_full


def random_cases(rng, m):
    n = np.floor(np.exp(rng.uniform(math.log(2), math.log(5000), (m, 2))))
    c = np.exp(rng.uniform(math.log(1e-3), math.log(5.0), (m, 2)))
    d = rng.uniform(0.02, 1.0, (m, 2))
    bmax = np.sum(0.5 * n * (c + d - 1 - np.log(d)), axis=1)
    e = bmax * np.exp(rng.uniform(-4, 0.3, m))
    return np.column_stack([n[:, 0], n[:, 1], c[:, 0], c[:, 1], d[:, 0], d[:, 1], e])


def time_loop(fn, P, ev, repeats=7):
    fn(P[:10], ev)  # warm-up / compile
    best = math.inf
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn(P, ev)
        best = min(best, time.perf_counter() - t0)
    return best / P.shape[0]


def time_python_calls(P, ev, repeats=3):
    rows = [tuple(map(float, r)) for r in P[:2000]]
    out = {}
    for name, fn in (("exact", bob_exact), ("box", box_value)):
        fn(*rows[0][: 7 if name == "exact" else 6], ev)
        best = math.inf
        for _ in range(repeats):
            t0 = time.perf_counter()
            if name == "exact":
                for r in rows:
                    fn(r[0], r[1], r[2], r[3], r[4], r[5], r[6], ev)
            else:
                for r in rows:
                    fn(r[0], r[1], r[2], r[3], r[4], r[5], ev)
            best = min(best, time.perf_counter() - t0)
        out[name] = best / len(rows)
    return out


def time_ipopt(P, ev, m):
    try:
        from baiuv.thresholds.bob import solve_bob
    except Exception as exc:  # noqa: BLE001
        return None, f"not importable ({exc})"
    rows = P[:m]
    solve_bob(rows[0, :2], rows[0, 2:4], rows[0, 4:6], rows[0, 6], ev=ev, backend="cyipopt")
    t0 = time.perf_counter()
    worst = 0.0
    for r in rows:
        v = solve_bob(r[:2], r[2:4], r[4:6], r[6], ev=ev, backend="cyipopt")
        x = bob_exact(r[0], r[1], r[2], r[3], r[4], r[5], r[6], ev)
        worst = max(worst, abs(x - v) / abs(x))
    return (time.perf_counter() - t0) / len(rows), f"max rel. diff to exact {worst:.1e}"


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=20000)
    ap.add_argument("--ipopt-cases", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    paper = paper_cases(rng, args.cases)
    sets = {"paper": paper[:, :7].copy(), "random": random_cases(rng, args.cases)}
    print(
        f"{'inputs':8s} {'prog':6s} {'exact ns':>9s} {'box ns':>7s} {'exact/box':>9s} "
        f"{'py exact ns':>11s} {'py box ns':>9s} {'py ratio':>8s} {'ipopt us':>9s} "
        f"{'ipopt/exact':>11s}"
    )
    for name, P in sets.items():
        for ev in (False, True):
            te = time_loop(loop_exact, P, ev)
            tb = time_loop(loop_box, P, ev)
            py = time_python_calls(P, ev)
            ti, note = time_ipopt(P, ev, args.ipopt_cases)
            ip = f"{ti * 1e6:9.0f} {ti / te:11.0f}" if ti else f"{'n/a':>9s} {'n/a':>11s}"
            print(
                f"{name:8s} {'EV-BoB' if ev else 'BoB':6s} {te * 1e9:9.0f} {tb * 1e9:7.1f} "
                f"{te / tb:9.2f} {py['exact'] * 1e9:11.0f} {py['box'] * 1e9:9.0f} "
                f"{py['exact'] / py['box']:8.2f} {ip}   ({note})"
            )
    loops = full_threshold_loops()
    if loops is None:
        print("full thresholds: baiuv.thresholds kernels not importable")
        return
    from scipy.special import zeta

    box_full, bob_full = loops
    s_, gamma, d2 = 2.0, 1.2, 0.01 / 2
    eta0 = 1.0 / math.log(1.0 / d2)
    L = math.log(4 * zeta(s_) / d2)
    lmain = math.log(2 * zeta(s_) ** 2 / d2)
    print("\nwhole pair threshold from the counts (C, D [, E] computed in the loop), paper inputs:")
    for ev in (False, True):
        box_full(paper[:10], ev, L, s_, eta0)
        bob_full(paper[:10], ev, L, s_, eta0, lmain, gamma)
        tb = te = math.inf
        for _ in range(5):
            t0 = time.perf_counter()
            box_full(paper, ev, L, s_, eta0)
            tb = min(tb, time.perf_counter() - t0)
            t0 = time.perf_counter()
            bob_full(paper, ev, L, s_, eta0, lmain, gamma)
            te = min(te, time.perf_counter() - t0)
        m = paper.shape[0]
        print(
            f"  {'EV-' if ev else ''}BoB threshold {te / m * 1e9:7.0f} ns, "
            f"{'EV-' if ev else ''}Box threshold {tb / m * 1e9:7.0f} ns, ratio {te / tb:5.2f}"
        )


if __name__ == "__main__":
    main()
