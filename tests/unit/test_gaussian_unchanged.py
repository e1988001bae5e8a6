"""The degenerate-statistics rule changes nothing on continuous Gaussian data (D120).

``tests/data/gaussian_runs_reference.json`` holds the stopping time, recommendation and
counts of fixed-seed runs of every algorithm (every GLR sampling rule with the heuristic
threshold and with a δ-correct family, lazy and eager, and FHN1/FHN2), recorded with the
code *before* the guard against zero variances and ties existed. The current simulator
must reproduce every run exactly. Regenerate only on purpose:
``python tests/test_gaussian_unchanged.py --write``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from baiuv.model.instance import EASY, STANDARD, GaussianInstance
from baiuv.simulation.engine import ALGORITHMS, RunSettings, simulate_run

NAME = "gaussian_runs_reference.json"
SEEDS = range(6)
INSTANCES = {
    "standard": STANDARD,
    "easy": EASY,
    "k4": GaussianInstance([0.3, 0.0, 0.2, -0.4], [0.5, 2.0, 0.1, 1.0], "k4"),
}
DELTA_CORRECT = {False: ("bob", "box", "kl", "student"), True: ("ev-bob", "ev-box", "ev-student")}


def _reference_path() -> Path:
    for parent in Path(__file__).resolve().parents:
        p = parent / "data" / NAME
        if p.exists() or parent.name == "tests":
            return p
    raise FileNotFoundError(NAME)  # pragma: no cover


def cells():
    """(key, instance, algorithm, settings) of every recorded run."""
    out = []
    for alg_name, alg in ALGORITHMS.items():
        families = ["heuristic"]
        if alg.kernel == "glr":
            fam = DELTA_CORRECT[alg.plug_in]
            families.append(fam[len(alg_name) % len(fam)])
        for fam in families:
            for lazy in (None, 1.2) if alg.kernel == "glr" else (None,):
                settings = RunSettings(delta=0.1, threshold=fam, max_samples=4000, lazy_ratio=lazy)
                for inst_name, inst in INSTANCES.items():
                    for seed in SEEDS:
                        key = f"{alg_name}|{fam}|{lazy}|{inst_name}|{seed}"
                        out.append((key, inst, alg_name, settings, seed))
    return out


def compute() -> dict:
    res = {}
    for key, inst, alg, settings, seed in cells():
        r = simulate_run(inst, alg, settings=settings, seed=seed, experiment="unchanged")
        res[key] = [r["stopping_time"], r["recommendation"], r["counts"], r["truncated"]]
    return res


@pytest.mark.slow
def test_simulator_reproduces_the_recorded_gaussian_runs():
    ref = json.loads(_reference_path().read_text())
    got = compute()
    assert set(got) == set(ref)
    diff = [k for k in ref if got[k] != ref[k]]
    assert not diff, f"{len(diff)} runs changed, e.g. {diff[:5]}"


if __name__ == "__main__":  # pragma: no cover
    if "--write" in sys.argv:
        data = compute()
        _reference_path().parent.mkdir(exist_ok=True)
        _reference_path().write_text(json.dumps(data, indent=0, sort_keys=True) + "\n")
        print(f"wrote {len(data)} runs to {_reference_path()}")
