"""The simulation kernels' results are bit-identical to a recorded reference.

``tests/unit/data/kernel_reference.json`` holds, for a fixed grid of algorithms x instances x
threshold settings x runs, the stopping time, recommendation, counts and truncation flag
of :func:`baiuv.simulation.simulate_run` as computed by the straightforward kernels (every
statistic and threshold recomputed before every sample). The fast kernels (cached
statistics, certified skips of the stopping check, decision D160) must reproduce every
entry exactly. Regenerate the file only with a kernel change that is meant to change
results: ``.venv/bin/python tests/unit/test_kernel_exact.py --write``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from baiuv import STANDARD, GaussianInstance
from baiuv.model.instance import EASY, random_instance
from baiuv.simulation import ALGORITHMS, RunSettings
from baiuv.simulation.engine import simulate_run

REFERENCE = Path(__file__).parent / "data" / "kernel_reference.json"
GLR_FAMILIES = ("student", "box", "kl", "bob")
EV_FAMILIES = ("ev-student", "ev-box", "ev-bob")


def _instances() -> dict[str, GaussianInstance]:
    rng = np.random.default_rng(20231)
    return {
        "standard": STANDARD,
        "easy": EASY,
        "pair": GaussianInstance([0.5, 0.0], [1.0, 0.3], "pair"),
        "close3": GaussianInstance([1.0, 0.95, 0.2], [0.5, 2.0, 0.05], "close3"),
        "random10": random_instance(rng, 10, (0.3, 1.0), (0.1, 4.0), name="random10"),
        "random20": random_instance(rng, 20, (0.4, 1.0), (0.1, 2.0), name="random20"),
    }


def _cases():
    """``(case id, instance name, algorithm, settings, runs)`` of the reference grid."""
    insts = _instances()
    algs = list(ALGORITHMS)
    cases = []
    for name in insts:
        for alg in algs:
            runs = 2 if name == "random20" and alg in ("TaS", "EV-TaS") else 6
            cases.append(
                ("heuristic-0.01", name, alg, RunSettings(max_samples=40_000), range(runs))
            )
    for name in ("standard", "close3", "random10"):
        for alg in algs:
            cases.append(
                (
                    "heuristic-0.1-n0=3",
                    name,
                    alg,
                    RunSettings(delta=0.1, n0=3, max_samples=40_000),
                    range(3),
                )
            )
            cases.append(
                (
                    "lazy-1.3",
                    name,
                    alg,
                    RunSettings(lazy_ratio=1.3, max_samples=40_000),
                    range(2),
                )
            )
    for name in ("standard", "random10"):
        for alg, a in ALGORITHMS.items():
            if a.kernel != "glr":
                continue
            for fam in EV_FAMILIES if a.plug_in else GLR_FAMILIES:
                cases.append(
                    (
                        f"{fam}-0.1",
                        name,
                        alg,
                        RunSettings(delta=0.1, threshold=fam, max_samples=6_000),
                        range(2),
                    )
                )
    return insts, cases


def _compute() -> dict[str, list]:
    insts, cases = _cases()
    out = {}
    for cid, name, alg, s, runs in cases:
        for r in runs:
            res = simulate_run(insts[name], alg, settings=s, seed=7, experiment=cid, run=r)
            out[f"{cid}|{name}|{alg}|{r}"] = [
                res["stopping_time"],
                res["recommendation"],
                res["counts"],
                res["truncated"],
            ]
    return out


def test_threshold_dependence_on_t_is_what_the_cache_assumes():
    """The simulator's threshold cache assumes: a ``t``-only family is the same for
    every pair and non-decreasing in ``t`` (a lower bound recorded at ``t`` stays valid);
    every other family does not depend on ``t``."""
    from baiuv.simulation.engine import _fresh_states, threshold_spec
    from baiuv.thresholds.kernels import depends_on_t_only, pair_threshold_kernel, update_state

    rng = np.random.default_rng(3)
    for fam in GLR_FAMILIES + EV_FAMILIES + ("heuristic",):
        for delta in (0.5, 0.01, 1e-8):
            spec = threshold_spec(fam, 4, delta, ())
            states = _fresh_states(4)
            x = rng.normal(size=(4, 400))
            for a, n in ((0, 300), (1, 120)):
                m, m2 = 0.0, 0.0
                for i in range(n):  # Welford, as the simulator
                    d = x[a, i] - m
                    m += d / (i + 1)
                    m2 += d * (x[a, i] - m)
                    update_state(spec.code, spec.fparams, states[a], i + 1, m, m2 / (i + 1))
            ts = np.unique(np.geomspace(4, 1e9, 3000).astype(np.int64)).astype(float)
            vals = [
                pair_threshold_kernel(
                    spec.code, spec.fparams, spec.table, t, 300, 120, states[0], states[1]
                )
                for t in ts
            ]
            if depends_on_t_only(spec.fparams):
                assert np.all(np.diff(vals) >= 0.0), fam
                other = pair_threshold_kernel(
                    spec.code, spec.fparams, spec.table, 1e5, 7, 9, states[2], states[3]
                )
                assert other == pair_threshold_kernel(
                    spec.code, spec.fparams, spec.table, 1e5, 300, 120, states[0], states[1]
                )
            else:
                assert len(set(vals)) == 1, fam


@pytest.mark.slow  # every rule and threshold setting on the reference grid of runs
def test_kernels_reproduce_the_reference_bit_for_bit():
    ref = json.loads(REFERENCE.read_text())
    got = _compute()
    assert set(got) == set(ref)
    diff = [k for k in ref if got[k] != ref[k]]
    assert not diff, f"{len(diff)} runs differ, e.g. {diff[:5]}: {[got[k] for k in diff[:3]]}"


if __name__ == "__main__":
    if "--write" in sys.argv:
        REFERENCE.parent.mkdir(exist_ok=True)
        REFERENCE.write_text(json.dumps(_compute(), separators=(",", ":")) + "\n")
        print(f"wrote {REFERENCE}")
