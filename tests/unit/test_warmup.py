"""The pipeline's ``kernels`` rules compile every simulation kernel the experiments run."""

import json
import os
import subprocess
import sys

import pytest

from baiuv.warmup import compile_simulation_kernels

SCRIPT = r"""
import json
import numpy as np
from baiuv.model.instance import random_instance
from baiuv.registry import ALGORITHMS
from baiuv.simulation import rules
from baiuv.simulation.engine import RunSettings, simulate_run
from baiuv.thresholds import kernels
from baiuv.warmup import compile_simulation_kernels

CALLEES = (kernels.pair_threshold_kernel, kernels.update_state, rules.select_arm)
LOOPS = (rules.run_glr, rules.run_glr_levels, rules.run_fhn)

def sigs(fs):
    return [sorted(map(str, f.signatures)) for f in fs]

compile_simulation_kernels("thresholds")
compile_simulation_kernels("rules")
callees = sigs(CALLEES)
compile_simulation_kernels("loops")
loops = sigs(LOOPS)
inst = random_instance(np.random.default_rng(3), 6)
for name, alg in ALGORITHMS.items():
    families = ("ev-bob", "ev-box", "ev-student") if alg.plug_in else ("bob", "kl", "box")
    for threshold in ("heuristic", *families):
        for lazy in (None, 1.3):
            settings = RunSettings(threshold=threshold, lazy_ratio=lazy, delta=0.1, n0=3, max_samples=80)
            simulate_run(inst, name, settings=settings, seed=1)
print(json.dumps([callees, sigs(CALLEES), loops, sigs(LOOPS)]))
"""


@pytest.mark.timeout(900)  # one fresh process compiles every kernel (its own limit: 600 s)
def test_the_kernels_rules_compile_the_only_signatures_the_experiments_use():
    """After the three parts of :func:`baiuv.warmup.compile_simulation_kernels` (decision
    D211), the loops found their callees with the types the two first parts compiled, and
    runs of every built-in rule with every threshold family, lazy or not, compile nothing
    new: the shard processes only load what the rules compiled. In a fresh process, so that
    no other test's direct kernel calls have compiled signatures already. Fails when the
    loop passes its callees, or an engine path the loop, other argument types."""
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, check=True, timeout=600
    )
    callees, callees_after, loops, loops_after = json.loads(out.stdout.strip().splitlines()[-1])
    assert [len(s) for s in callees] == [1, 1, 1]
    assert callees_after == callees
    assert [len(s) for s in loops] == [1, 1, 1]
    assert loops_after == loops


def test_an_unknown_part_is_refused():
    with pytest.raises(ValueError, match="thresholds, rules, loops"):
        compile_simulation_kernels("everything")


#: Prelude of the fresh processes below: ``compiled`` lists the name of every function numba
#: compiles, once per compilation.
RECORDER = r"""
import json
import numpy as np
from numba.core import event

compiled = []

class Recorder(event.Listener):
    def on_start(self, ev):
        compiled.append(ev.data["dispatcher"].py_func.__name__)

    def on_end(self, ev):
        pass

event.register("numba:compile", Recorder())
"""


def _compiled_in_fresh_process(body, cache_dir, before=None):
    """Names of the functions numba compiles while a fresh process runs ``body``, on the
    cache ``cache_dir`` (after a process running ``before``, when given), in order."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache_dir)}
    if before is not None:
        subprocess.run([sys.executable, "-c", before], env=env, check=True, timeout=600)
    script = RECORDER + body + "\nprint(json.dumps(compiled))\n"
    out = subprocess.run(
        [sys.executable, "-c", script],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


ORACLE_CALLS = r"""
from baiuv.model.characteristic import characteristic_time, optimal_allocation
from baiuv.model.instance import STANDARD

strided = np.array([[1.0, 0.0], [0.5, 0.0], [0.2, 0.0]])[:, 0]
characteristic_time(STANDARD.mu, STANDARD.sigma2)  # the instance's read-only arrays
characteristic_time(STANDARD.mu, STANDARD.sigma2, known_variance=True, beta=0.5)
characteristic_time(strided, [1.0, 2, 3])  # a strided view, a list with an integer
optimal_allocation((1.0, 0.4), (1.0, 1.0))
"""


@pytest.mark.timeout(1500)  # two fresh processes (their own limits: 600 s each)
def test_characteristic_times_load_the_oracle_the_rules_part_compiled(tmp_path):
    """The ``rules`` part compiles Track-and-Stop's oracle; :func:`characteristic_time`
    calls it with the same argument types whatever arrays it is given (read-only, strided,
    lists), so a process after the part compiles only the thin ``oracle_fast`` around it
    (decision D220). Fresh processes on an empty cache; fails when the front-end passes
    the instance's read-only arrays through."""
    part = "from baiuv.warmup import compile_simulation_kernels as c; c('rules')"
    compiled = _compiled_in_fresh_process(ORACLE_CALLS, tmp_path, before=part)
    assert "oracle_fast" in compiled
    assert "oracle_warm_work" not in compiled


FLAG_CALLS = r"""
from baiuv.simulation.rules import run_fhn
from baiuv.thresholds.bob_exact.solver import bob_exact

bob_exact(10.0, 20.0, 0.5, 0.4, 0.9, 0.8, 3.0, False)
run_fhn(np.array([1.0, 0.5, 0.0]), np.ones(3), 5, 5.0, False, np.random.default_rng(0), 10**6)
"""


@pytest.mark.timeout(900)  # a fresh process compiles the callee's versions (own limit: 600 s)
def test_flags_and_counters_compile_one_version_of_their_callee(tmp_path):
    """A literal argument (``True``, ``0``) makes numba compile a callee once per value; the
    exact BoB solver's branch-and-bound flag and the elimination round of FHN are passed
    typed (decision D225), so each callee is compiled once. A fresh process on an empty
    cache; fails when ``_solve_pair`` is called with the literals ``False`` and ``True``
    again."""
    compiled = _compiled_in_fresh_process(FLAG_CALLS, tmp_path)
    for name in ("_solve_pair", "fhn_eliminate"):
        assert compiled.count(name) == 1, (name, compiled.count(name))
