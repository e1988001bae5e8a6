"""The p-value tracker's compiled stopping test (``rules.stops_builtin`` on the states of
``rules.states_at_level``) against the eager computation written here: the KL/BoB states
rebuilt one by one, every threshold of the check, then the comparison; the same decision at
every level tried, and the same p-value, recommendation and time after every check of
random runs."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from baiuv import BestArmIdentifier
from baiuv.simulation import rules
from baiuv.simulation.p_value import PValueTracker
from baiuv.thresholds import kernels as k

FAMILIES = (("tci", "bob"), ("tci", "kl"), ("tci", "box"), ("ev-tci", "ev-bob"),
            ("ev-tci", "ev-box"))  # fmt: skip


def _eager_states(states, fp):
    out = np.array(states, dtype=np.float64, copy=True)
    for st_ in out:
        if st_[k.S_LEVEL] < 0:
            continue
        st_[k.S_TAG] = fp[k.P_LPRE]
        st_[k.S_LOGGR] = k.log_gamma_R(
            int(st_[k.S_LEVEL]), st_[k.S_MEAN], st_[k.S_VAR], fp[k.P_LPRE], fp[k.P_S],
            fp[k.P_ETA0], fp[k.P_ETA1], fp[k.P_GAMMA],
        )  # fmt: skip
    return out


class EagerTracker(PValueTracker):
    """The tracker with the stopping test computed threshold by threshold in Python."""

    def stops_at(self, L, t, counts, Z, best, states, fp=None):
        if fp is None:
            spec = self._spec(L)
            fp, code, table = spec.fparams, spec.code, spec.table
        else:
            code, table = self._nominal.code, self._nominal.table
        if self._stateful:
            states = _eager_states(states, fp)
        thr = np.full(self._K, np.nan)
        rules.check_thresholds_builtin((code, fp, table), (t, counts, best, states), -1, thr)
        return all(Z[a] > thr[a] for a in range(self._K) if a != best)


def _run(family_index, K, gap, seed, steps):
    sampling, family = FAMILIES[family_index]
    gen = np.random.default_rng(seed)
    mu = np.linspace(gap, 0.0, K)
    sd = gen.uniform(0.5, 2.0, K)
    delta = 1e-3
    idf = BestArmIdentifier(K, delta, sampling, family, rng=seed)
    eager = EagerTracker(family, K, -math.log(delta), {})
    while not idf.done and idf.n_samples < steps:
        a = idf.next_arm()
        idf.observe(a, float(mu[a] + sd[a] * gen.standard_normal()))
        if idf.in_initialisation or idf._last_check_t != idf.n_samples or idf._forced >= 0:
            continue
        eager.update(idf.n_samples, idf._counts, idf._Z, idf._best, idf._states,
                     idf.stop_reason == "glr")  # fmt: skip
        pv = idf._pv
        assert (pv.level, pv.recommendation, pv.time) == (
            eager.level,
            eager.recommendation,
            eager.time,
        )
        yield idf, pv, eager


@given(
    family_index=st.integers(0, len(FAMILIES) - 1),
    K=st.integers(2, 4),
    gap=st.floats(0.2, 1.5),
    seed=st.integers(0, 2**31),
    level=st.floats(1e-3, 40.0),
)
@settings(max_examples=15, deadline=None)
def test_compiled_test_and_p_value_equal_the_eager_ones(family_index, K, gap, seed, level):
    checks = 0
    for idf, pv, eager in _run(family_index, K, gap, seed, 600):
        checks += 1
        t, counts, Z, best, states = idf.n_samples, idf._counts, idf._Z, idf._best, idf._states
        for L in (level, pv.level, pv._L_nom):
            L = max(L, 1e-12)
            fp = None
            if pv._fast_ready():
                fp = pv._shifted(L)
            a = pv.stops_at(L, t, counts, Z, best, states, fp)
            b = eager.stops_at(L, t, counts, Z, best, states, fp)
            assert a == b
    assert checks > 0
