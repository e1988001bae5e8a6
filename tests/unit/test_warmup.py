"""The pipeline's ``kernels`` rule compiles every simulation kernel the experiments run."""

import json
import subprocess
import sys

SCRIPT = r"""
import json
import numpy as np
from baiuv.model.instance import random_instance
from baiuv.registry import ALGORITHMS
from baiuv.simulation import rules
from baiuv.simulation.engine import RunSettings, simulate_run
from baiuv.warmup import compile_simulation_kernels

def sigs():
    return [sorted(map(str, f.signatures)) for f in (rules.run_glr, rules.run_fhn)]

compile_simulation_kernels()
after_warmup = sigs()
inst = random_instance(np.random.default_rng(3), 6)
for name, alg in ALGORITHMS.items():
    families = ("ev-bob", "ev-box", "ev-student") if alg.plug_in else ("bob", "kl", "box")
    for threshold in ("heuristic", *families):
        for lazy in (None, 1.3):
            settings = RunSettings(threshold=threshold, lazy_ratio=lazy, delta=0.1, n0=3, max_samples=80)
            simulate_run(inst, name, settings=settings, seed=1)
print(json.dumps([after_warmup, sigs()]))
"""


def test_the_kernels_rule_compiles_the_only_signatures_the_experiments_use():
    """After :func:`baiuv.warmup.compile_simulation_kernels` (decision D211), runs of every
    built-in rule with every threshold family, lazy or not, compile nothing new: the shard
    processes only load what the rule compiled. In a fresh process, so that no other test's
    direct kernel calls have compiled signatures already. Fails when a call path of the
    engine passes another argument type."""
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, check=True, timeout=600
    )
    after_warmup, after_runs = json.loads(out.stdout.strip().splitlines()[-1])
    assert [len(s) for s in after_warmup] == [1, 1]
    assert after_runs == after_warmup
