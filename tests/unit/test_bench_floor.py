"""The DKM decomposition of ``benchmarks/bench_floor.py`` runs the engine's step."""

import numpy as np
import pytest
from bench_helpers import load_benchmark

from baiuv import STANDARD
from baiuv.simulation import RunSettings, simulate_run
from baiuv.simulation.engine import rule_params


@pytest.mark.parametrize("algorithm", ["DKM", "EV-DKM"])
def test_dkm_step_of_the_decomposition_samples_as_the_engine(algorithm):
    """With the whole step, a run of the decomposition pulls the arms that the engine's run
    of the same seed pulls, up to the same capped length (a threshold at ln(1/delta) = 500
    does not stop it before); the learner alone pulls others."""
    bench = load_benchmark("bench_floor")
    mu = np.asarray(STANDARD.mu, float)
    sd = np.sqrt(np.asarray(STANDARD.sigma2, float))
    s = RunSettings(log_inv_delta=500.0, max_samples=400)
    ref = simulate_run(STANDARD, algorithm, settings=s, rng=np.random.default_rng(3))
    assert ref["truncated"] and ref["stopping_time"] == 400
    plug_in = algorithm == "EV-DKM"
    params = rule_params(s)
    counts = bench.dkm_parts_loop(mu, sd, 1, 400, np.random.default_rng(3), params, plug_in, True)
    assert counts.tolist() == ref["counts"]
    learner = bench.dkm_parts_loop(mu, sd, 1, 400, np.random.default_rng(3), params, plug_in, False)
    assert learner.sum() == 400 and learner.tolist() != ref["counts"]
