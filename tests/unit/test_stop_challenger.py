"""The one stopping check and the one TCI challenger (``glr_stop_check``,
``tci_challenger``), on every state of the statistics cache, against the plain rules
written here: every statistic and threshold computed, the first challenger that is not
beaten, the first minimiser of ``Z_a + log N_a``."""

import math

import numpy as np
import pytest

from baiuv.model.transport import tc_known, tc_unknown, tc_unknown_bounds
from baiuv.model.transport import tc_unknown_rational_bounds as rational_bounds
from baiuv.simulation import rules
from baiuv.simulation.engine import threshold_spec
from baiuv.simulation.rules import zcache as zc_
from baiuv.simulation.rules.run_state import RunState, StopRule
from baiuv.thresholds.kernels import STATE_SIZE, new_state, pair_threshold_kernel


def statistics(g, K):
    """Random statistics of ``K`` arms, with duplicated arms (exact ties) now and then."""
    counts = g.integers(2, 2000, K).astype(np.int64)
    means = g.normal(0.0, 1.0, K)
    variances = g.uniform(0.2, 3.0, K)
    if K > 2 and g.random() < 0.3:
        i, j = g.choice(K, 2, replace=False)
        counts[j], means[j], variances[j] = counts[i], means[i], variances[i]
    best = int(np.argmax(means))
    return counts, means, variances, best


def exact_z(counts, means, variances, best, plug_in):
    cost = tc_known if plug_in else tc_unknown
    b = best
    return [
        math.inf
        if a == b
        else cost(means[b], variances[b], counts[b], means[a], variances[a], counts[a])
        for a in range(len(counts))
    ]


def random_cache(g, counts, means, variances, best, z):
    """A valid cache ``(zc, zf)``: each challenger's statistic, enclosures and log N_a
    cached or not."""
    K = len(counts)
    zc, zf = rules.new_zcache(K)
    b = best
    for a in range(K):
        if a == b:
            continue
        args = (means[b], variances[b], counts[b], means[a], variances[a], counts[a])
        if g.random() < 0.3:
            zc[zc_.ZC_Z, a], zc[zc_.ZC_THR, a], zf[zc_.ZF_OK, a] = z[a], math.nan, 1
        if g.random() < 0.3:
            zc[zc_.ZC_ZLO, a], zc[zc_.ZC_ZHI, a] = tc_unknown_bounds(*args)
            zf[zc_.ZF_BND, a] = 1
        if g.random() < 0.5:
            zc[zc_.ZC_RLO, a], zc[zc_.ZC_RHI, a] = rational_bounds(*args)
            zf[zc_.ZF_RAT, a] = 1
        if g.random() < 0.5:
            zc[zc_.ZC_LOGN, a], zf[zc_.ZF_LOG, a] = math.log(counts[a]), 1
    return zc, zf


@pytest.mark.parametrize("family", ["heuristic", "student", "box"])
@pytest.mark.parametrize("plug_in", [False, True])
def test_stop_check_fails_at_the_plain_rules_first_unbeaten_challenger(family, plug_in):
    """A run of checks at increasing times, the t-only bounds carried from check to check,
    each on a random valid cache: the same first unbeaten challenger (or a stop) as the
    plain rule, with thresholds near the statistics."""
    g = np.random.default_rng(7)
    outcomes = set()
    for _ in range(100):
        K = int(g.integers(2, 9))
        counts, means, variances, best = statistics(g, K)
        z = exact_z(counts, means, variances, best, plug_in)
        states = np.tile(new_state(), (K, 1))
        assert states.shape[1] == STATE_SIZE
        t = int(counts.sum())
        # ln(1/delta) that puts the largest threshold at t near the smallest statistic or
        # near another one (the thresholds grow with ln(1/delta), about one for one)
        ref = threshold_spec(family, K, 1.0, ())
        c_ref = max(
            pair_threshold_kernel(
                ref.code,
                ref.fparams,
                ref.table,
                float(t),
                counts[best],
                counts[a],
                states[best],
                states[a],
            )  # fmt: skip
            for a in range(K)
            if a != best
        )
        challengers = sorted(z[a] for a in range(K) if a != best)
        target = challengers[0 if g.random() < 0.5 else int(g.integers(len(challengers)))]
        lid = 1.0 + target * g.uniform(0.8, 1.25) - c_ref
        spec = threshold_spec(family, K, min(max(lid, 1e-3), 200.0), ())
        thr_lo, thr_hi, t_hi = -math.inf, math.inf, -1
        for _ in range(8):
            zc, zf = random_cache(g, counts, means, variances, best, z)
            # every arm certified (n_uncert = 0): the enclosures decide first without plug_in
            run = RunState(counts, means, np.zeros(K), variances, states, zc, zf, t, best, 0,
                           thr_lo, thr_hi, t_hi, 0)  # fmt: skip
            stop = StopRule(spec.code, spec.fparams, spec.table, False, plug_in, 0.0, 0.0)
            fail, thr_lo, thr_hi, t_hi = rules.glr_stop_check(pair_threshold_kernel, run, stop)
            plain = -1
            for a in range(K):
                c = pair_threshold_kernel(
                    spec.code, spec.fparams, spec.table, float(t), counts[best], counts[a],
                    states[best], states[a],
                )  # fmt: skip
                if a != best and not (z[a] > c):
                    plain = a
                    break
            assert fail == plain
            outcomes.add(fail < 0)
            ok = zf[zc_.ZF_OK] != 0
            assert np.array_equal(zc[zc_.ZC_Z][ok], np.asarray(z)[ok])  # exact where cached
            t += int(g.integers(0, 3 * t))
    # both outcomes with the heuristic family, whose threshold moves one for one with
    # ln(1/delta); a failing challenger at least with the others
    assert outcomes == {True, False} if family == "heuristic" else False in outcomes


@pytest.mark.parametrize("plug_in", [False, True])
def test_tci_challenger_is_the_first_minimiser(plug_in):
    """On a random valid cache (enclosures used with unknown variances), the challenger is
    the first index of the minimum of ``Z_a + log N_a``, as ``step_tci`` with every
    statistic given."""
    g = np.random.default_rng(11)
    ties = 0
    for _ in range(3000):
        K = int(g.integers(2, 9))
        counts, means, variances, best = statistics(g, K)
        z = exact_z(counts, means, variances, best, plug_in)
        v = [math.inf if a == best else z[a] + math.log(counts[a]) for a in range(K)]
        plain = min(range(K), key=lambda a: (v[a], a))
        ties += sum(x == v[plain] for x in v) > 1
        zc, zf = random_cache(g, counts, means, variances, best, z)
        arm = rules.tci_challenger(counts, means, variances, best, plug_in, not plug_in, zc, zf)
        assert arm == plain
        assert rules.step_tci(counts, np.asarray(z), best, 0.0, g) == plain
    assert ties > 50
