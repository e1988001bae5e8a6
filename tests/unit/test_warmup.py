"""The pipeline's ``kernels`` rule compiles every simulation kernel the experiments run."""

import numpy as np

from baiuv.model.instance import random_instance
from baiuv.registry import ALGORITHMS
from baiuv.simulation import rules
from baiuv.simulation.engine import RunSettings, simulate_run
from baiuv.warmup import compile_simulation_kernels


def test_the_kernels_rule_compiles_the_only_signatures_the_experiments_use():
    """After :func:`compile_simulation_kernels` (decision D211), runs of every built-in rule
    with every threshold family, lazy or not, compile nothing new: the shard processes only
    load what the rule compiled. Fails when a call path passes another argument type."""
    compiled = compile_simulation_kernels()
    assert len(compiled) == 2
    sigs = (set(rules.run_glr.signatures), set(rules.run_fhn.signatures))
    inst = random_instance(np.random.default_rng(3), 6)
    for name, alg in ALGORITHMS.items():
        families = ("ev-bob", "ev-box", "ev-student") if alg.plug_in else ("bob", "kl", "box")
        for threshold in ("heuristic", *families):
            for lazy in (None, 1.3):
                settings = RunSettings(
                    threshold=threshold, lazy_ratio=lazy, delta=0.1, n0=3, max_samples=80
                )
                simulate_run(inst, name, settings=settings, seed=1)
    assert (set(rules.run_glr.signatures), set(rules.run_fhn.signatures)) == sigs
