"""Building blocks of the sampling rules, each against an independent computation."""

import math

import numpy as np
import pytest
from scipy.optimize import minimize_scalar

from baiuv.model.transport import lambda_unknown
from baiuv.registry import RULE_TAS
from baiuv.simulation import rules
from baiuv.simulation.game import solve_game, solve_game_highs
from baiuv.simulation.rules import tas


def test_perfect_square_brute_force():
    squares = {i * i for i in range(200)}
    for n in range(0, 30000):
        assert rules.is_perfect_square(n) == (n in squares)


def test_c_tracking_follows_fixed_weights():
    """C-tracking of a constant w: |N_a - t w_a| stays bounded (Garivier-Kaufmann, Lemma 7:
    N_a - sum_s w_s,a in [-(K-1), 1] after the first step)."""
    w = np.array([0.5, 0.3, 0.15, 0.05])
    counts = np.full(4, 2, dtype=np.int64)
    sumw = counts.astype(float)
    for _ in range(20000):
        a = rules.c_tracking(sumw, counts, w)
        counts[a] += 1
        assert np.all(counts - sumw <= 1.0 + 1e-9) and np.all(counts - sumw >= -3.0 - 1e-9)
    assert counts / counts.sum() == pytest.approx(w, abs=1e-3)


def test_forced_exploration():
    out = np.empty(4)
    w = np.array([0.7, 0.1, 0.1, 0.1])
    # t = 100: sqrt(t) - K/2 = 8; arms with N <= 8 are undersampled
    n = rules.forced_exploration(np.array([80, 8, 3, 9]), 100, w, out)
    assert n == 2 and out == pytest.approx([0, 0.5, 0.5, 0])
    n = rules.forced_exploration(np.array([80, 9, 9, 9]), 100, w, out)
    assert n == 0 and out == pytest.approx(w)


def _hedge_brute(L, delta):
    eta = math.log(L.size) / delta
    u = np.exp(-eta * L)
    return u / u.sum(), eta


def test_adahedge_against_formula():
    rng = np.random.default_rng(0)
    L = np.zeros(5)
    delta = 0.01
    for _ in range(200):
        loss = -rng.uniform(0, 3, size=5)
        u = np.empty(5)
        eta = rules.hedge_weights(L, delta, u)
        ub, etab = _hedge_brute(L.copy(), delta)
        assert eta == pytest.approx(etab) and u == pytest.approx(ub, rel=1e-9, abs=1e-300)
        # mixability gap by direct formula: <u, l> + log(sum u exp(-eta l)) / eta
        mix = -np.log(np.sum(u * np.exp(-eta * (loss - loss.min())))) / eta + loss.min()
        expected = delta + max(0.0, float(u @ loss - mix))
        delta = rules.hedge_update(L, delta, u, eta, loss)
        assert delta == pytest.approx(expected, rel=1e-9)
    assert delta > 0.01


def _brute_closest(means, s2, w, best, plug_in):
    vals = []
    for a in range(means.size):
        if a == best:
            continue

        def f(lam, a=a):
            return sum(w[c] * rules.divergence(means[c], lam, s2[c], plug_in) for c in (best, a))

        r = minimize_scalar(
            f, bounds=(means[a], means[best]), method="bounded", options={"xatol": 1e-12}
        )
        vals.append((r.fun, a, r.x))
    return min(vals)


@pytest.mark.parametrize("plug_in", [False, True])
def test_closest_alternative_brute_force(plug_in):
    rng = np.random.default_rng(1 + plug_in)
    for _ in range(50):
        K = rng.integers(2, 8)
        means = rng.normal(size=K)
        s2 = rng.uniform(0.05, 5, size=K)
        w = rng.dirichlet(np.ones(K))
        best = int(np.argmax(means))
        k, lam, v = rules.closest_alternative(means, s2, w, best, plug_in)
        vb, kb, lamb = _brute_closest(means, s2, w, best, plug_in)
        assert v == pytest.approx(vb, rel=1e-6, abs=1e-12)
        assert k == kb
        assert lam == pytest.approx(lamb, abs=1e-5)


@pytest.mark.parametrize("plug_in", [False, True])
def test_dkm_gains_confidence_interval(plug_in):
    """The end points of the interval satisfy d(mu, x) = log(t)/N, the gain is the
    divergence at the farthest end point, floored by the bonus (decision D43)."""
    means = np.array([0.3, -0.2, 1.0])
    s2 = np.array([0.5, 2.0, 1.3])
    counts = np.array([7, 30, 12])
    lam = np.array([0.1, 0.1, 1.0])
    t = 49
    out = np.empty(3)
    rules.dkm_gains(counts, means, s2, lam, t, plug_in, out)
    for a in range(3):
        v = math.log(t) / counts[a]
        # interval end points by root finding on the divergence
        from scipy.optimize import brentq

        def h(x, a=a, v=v):
            return rules.divergence(means[a], x, s2[a], plug_in) - v

        up = brentq(h, means[a], means[a] + 100)
        dn = brentq(h, means[a] - 100, means[a])
        g = max(
            rules.divergence(up, lam[a], s2[a], plug_in),
            rules.divergence(dn, lam[a], s2[a], plug_in),
        )
        bonus = v if plug_in else v * (1 + 2 * v)
        assert out[a] == pytest.approx(max(g, bonus), rel=1e-9)


@pytest.mark.parametrize("plug_in", [False, True])
def test_fws_direction_gradients_and_game(plug_in):
    """Gradients of f_j(x) = C(best, j; x) by finite differences; the direction is the best
    vertex for one active constraint and the HiGHS game solution otherwise."""
    rng = np.random.default_rng(7)
    for _ in range(20):
        K = 5
        means = np.sort(rng.normal(size=K))[::-1].copy()
        s2 = rng.uniform(0.2, 3, size=K)
        x = rng.dirichlet(np.ones(K) * 3)
        best = 0

        def f(xx, j, means=means, s2=s2, best=best):
            return rules.closest_alternative(
                means[[best, j]], s2[[best, j]], xx[[best, j]], 0, plug_in
            )[2]

        fs = np.array([f(x, j) for j in range(1, K)])
        grads = np.zeros((K - 1, K))
        for jj, j in enumerate(range(1, K)):
            for i in (best, j):
                e = np.zeros(K)
                e[i] = 1e-6
                grads[jj, i] = (f(x + e, j) - f(x - e, j)) / 2e-6
        for r in (0.0, 1e9):  # one active constraint / all active
            z = np.empty(K)
            n_act = rules.fws_direction(x, means, s2, best, r if r > 0 else 1e-300, plug_in, z)
            if r == 0.0:
                assert n_act == 1
                jj = int(np.argmin(fs))
                assert np.argmax(z) == int(np.argmax(grads[jj])) and z.max() == 1.0
            else:
                assert n_act == K - 1
                M = grads - fs[:, None]
                vh, _ = solve_game_highs(M)
                assert (M @ z).min() == pytest.approx(vh, abs=1e-6)


def test_fhn_elimination_hand_computed():
    """Three arms, n = 10 paired samples. Differences of arm 2 against arm 0 have sample
    variance S = 1, mean difference -3: t = n/S = 10, statistic 10 * (-3) = -30 and
    g(10) = sqrt(11 (2 log(2/(2 * 0.05)) + log 11)) = sqrt(11 (2 log 20 + log 11)) = 9.606
    -> arm 2 eliminated. Arm 1 vs arm 0: mean difference -0.5, S = 1: -5 > -9.606 kept;
    arm 0 is never eliminated (positive differences)."""
    K = 3
    n = 10
    means = np.array([1.0, 0.5, -2.0])
    pair_m2 = np.zeros((K, K))
    for a in range(K):
        for b in range(K):
            if a != b:
                pair_m2[a, b] = 1.0 * (n - 1)  # S = m2/(n-1) = 1
    active = np.ones(K, dtype=bool)
    log_term = 2 * math.log((K - 1) / (2 * 0.05))
    g = math.sqrt(11 * (log_term + math.log(11)))
    assert g == pytest.approx(9.6064, abs=1e-3)
    out = rules.fhn_eliminate(n, means, pair_m2, pair_m2, active, log_term, False)
    assert out == 1 and active.tolist() == [True, True, False]
    # with a larger variance of the paired differences (S = 4): t = 2.5, stat = -7.5,
    # g(2.5) = sqrt(3.5 (2 log 20 + log 3.5)) = 5.02 -> still eliminated; S = 16:
    # t = 0.625, stat = -1.875, g = sqrt(1.625 (5.99 + 0.486)) = 3.24 -> kept.
    for S, expect in ((4.0, False), (16.0, True)):
        pm = np.full((K, K), S * (n - 1))
        active = np.ones(K, dtype=bool)
        rules.fhn_eliminate(n, means, pm, pm, active, log_term, False)
        assert active[2] == expect
    # FHN1 uses the n0 variances, not the current ones
    pm_now = np.full((K, K), 16.0 * (n - 1))
    pm_n0 = np.full((K, K), 1.0)
    active = np.ones(K, dtype=bool)
    rules.fhn_eliminate(n, means, pm_now, pm_n0, active, log_term, True)
    assert active.tolist() == [True, True, False]


def test_tci_leader_probability():
    """The leader is pulled with probability beta (exact binomial margin, 6 sigma)."""
    rng = np.random.default_rng(3)
    counts = np.array([10, 10, 10])
    Z = np.array([math.inf, 5.0, 1.0])
    for beta in (0.3, 0.5, 0.8):
        n = 20000
        picks = np.array([rules.step_tci(counts, Z, 0, beta, rng) for _ in range(n)])
        frac = np.mean(picks == 0)
        assert abs(frac - beta) < 6 * math.sqrt(beta * (1 - beta) / n)
        assert set(np.unique(picks)) == {0, 2}  # challenger = argmin Z + log N = arm 2


def test_tas_keeps_the_oracle_solution_of_the_previous_best_arm():
    """When the empirical best arm changes back, Track-and-Stop's oracle starts from the
    solution kept for it (decision D213): the kept roots swap, and the allocation is the
    oracle's at the current statistics."""
    from baiuv.model.oracle import oracle_fast

    counts = np.array([10, 10, 10])
    params = np.zeros(16)
    ws, scal = rules.init_workspace(counts, params, (0, 0, 0), RULE_TAS)
    s2 = np.array([1.0, 0.8, 0.5])
    mu_a = np.array([1.0, 0.9, 0.2])  # arm 0 best
    mu_b = np.array([0.9, 1.0, 0.2])  # arm 1 best
    rules.step_tas(counts, mu_a, s2, 0, 30, False, ws, scal)
    y0 = scal[tas.S_Y]
    rules.step_tas(counts, mu_b, s2, 1, 31, False, ws, scal)
    y1 = scal[tas.S_Y]
    assert (scal[tas.S_BEST], scal[tas.S_Y2], scal[tas.S_BEST2]) == (1, y0, 0)
    mu_a2 = mu_a + np.array([1e-3, 0.0, 0.0])
    rules.step_tas(counts, mu_a2, s2, 0, 32, False, ws, scal)
    assert (scal[tas.S_BEST], scal[tas.S_Y2], scal[tas.S_BEST2]) == (0, y1, 1)
    # warm-started from the kept solution: the joint iteration followed the minimisers
    # (a cold start leaves them unknown, nan)
    assert np.isfinite(ws[tas.TAS_LS, 1:]).all()
    _, w = oracle_fast(mu_a2, s2, 0, False, -1.0)
    np.testing.assert_allclose(ws[tas.TAS_ORACLE + 3], w, rtol=1e-10)


def _best_response_programs(seed, n):
    """Random best-response programs ``(means, s2, w, best)`` over the regimes where a
    certified exclusion could go wrong: generic, exact ties (a copied challenger, a challenger
    with the best arm's mean), near ties (one ulp apart), variances below the squared gap
    (two local minima), tiny and zero weights."""
    rng = np.random.default_rng(seed)
    for i in range(n):
        K = int(rng.integers(3, 13))
        means = rng.normal(size=K)
        s2 = rng.uniform(0.05, 5.0, size=K)
        w = rng.dirichlet(np.ones(K))
        kind = i % 6
        if kind == 1:  # an exact tie between two challengers
            a, b = rng.choice(K, 2, replace=False)
            means[b], s2[b], w[b] = means[a], s2[a], w[a]
        elif kind == 2:  # a near tie
            a, b = rng.choice(K, 2, replace=False)
            means[b], s2[b], w[b] = np.nextafter(means[a], np.inf), s2[a], w[a]
        elif kind == 3:  # variances far below the squared gaps
            s2 = rng.uniform(1e-4, 0.05, size=K)
        elif kind == 4:  # weights spanning many orders of magnitude, some zero
            w = 10.0 ** rng.uniform(-300, 0, size=K)
            w[rng.integers(K)] = 0.0
        best = int(np.argmax(means))
        if kind == 5:  # a challenger with the best arm's mean
            a = (best + 1) % K
            means[a] = means[best]
        yield means, s2, w, best


def _closest_alternative_all(means, s2, w, best):
    """The unknown-variance best response with every cost solved (first index on ties)."""
    kmin, vmin, lmin = -1, math.inf, means[best]
    for a in range(means.size):
        if a == best:
            continue
        lam, v = lambda_unknown(means[best], s2[best], w[best], means[a], s2[a], w[a])
        if v < vmin or kmin < 0:
            kmin, vmin, lmin = a, v, lam
    return kmin, lmin, vmin


def test_certified_closest_alternative_is_bit_identical():
    """Excluding the arms whose certified lower bound exceeds the smallest upper bound
    returns the same arm, mean and cost, bit for bit (decision D214)."""
    for means, s2, w, best in _best_response_programs(11, 6000):
        got = rules.closest_alternative(means, s2, w, best, False)
        want = _closest_alternative_all(means, s2, w, best)
        assert got[0] == want[0]
        assert got[1:] == want[1:] or (np.isnan(got[2]) and np.isnan(want[2]))


def _fws_direction_all(x, means, s2, best, r):
    """FWS's direction with every ``f_j`` solved (unknown variances), as in decision D44."""
    K = means.size
    f = np.full(K, np.inf)
    grads = np.zeros((K, K))
    for j in range(K):
        if j == best:
            continue
        lam, _ = lambda_unknown(means[best], s2[best], x[best], means[j], s2[j], x[j])
        grads[j, best] = rules.divergence(means[best], lam, s2[best], False)
        grads[j, j] = rules.divergence(means[j], lam, s2[j], False)
        f[j] = x[best] * grads[j, best] + x[j] * grads[j, j]
    fmin = math.inf
    for j in range(K):
        if f[j] < fmin:
            fmin = f[j]
    H = [j for j in range(K) if j != best and (f[j] <= fmin or f[j] < fmin + r)]
    z = np.zeros(K)
    if len(H) == 1:
        z[int(np.argmax(grads[H[0]]))] = 1.0
    else:
        M = np.array([grads[j] - f[j] for j in H])
        z = solve_game(M)[1]
    return len(H), z


def test_certified_fws_direction_is_bit_identical():
    """FWS solves ``f_j`` only for the arms that can be in the r-subdifferential: same
    active set and same direction, bit for bit, for radii from 1e-300 to 10."""
    radii = (1e-300, 1e-9, 1e-4, 1e-2, 0.3, 10.0)
    for i, (means, s2, w, best) in enumerate(_best_response_programs(12, 3000)):
        x = np.maximum(w, 1e-12)  # the FWS iterate stays positive
        x /= x.sum()
        r = radii[i % len(radii)]
        z = np.empty(means.size)
        n_act = rules.fws_direction(x, means, s2, best, r, False, z)
        n_ref, z_ref = _fws_direction_all(x, means, s2, best, r)
        assert n_act == n_ref
        np.testing.assert_array_equal(z, z_ref)


def _dkm_gains_reference(counts, means, s2, lam, t):
    """DKM's optimistic gains with unknown variances, every arm computed (decision D43)."""
    out = np.empty(means.size)
    lt = math.log(t)
    for a in range(means.size):
        v = lt / counts[a]
        h = math.sqrt(s2[a] * math.expm1(2.0 * v))
        bonus = v * (1.0 + 2.0 * v)
        dev = abs(means[a] - lam[a]) + h
        g = rules.divergence(means[a] + dev, means[a], s2[a], False)
        out[a] = max(g, bonus)
    return out


def test_dkm_gains_skip_only_where_the_bonus_wins():
    """An arm whose alternative mean is its own mean gets the bonus without its interval
    when the certificate says the gain is below it: the gains are the same bits as with
    every interval computed, over counts from 1 to 1e12, means up to 1e60 in magnitude,
    variances from 1e-120 to 1e120 and times up to 1e13 (decision D215)."""
    rng = np.random.default_rng(21)
    wins = total = 0
    for i in range(20000):
        K = int(rng.integers(2, 9))
        counts = np.maximum(1, (10.0 ** rng.uniform(0, 12 if i % 3 == 0 else 5, K))).astype(
            np.int64
        )
        t = max(int(counts.sum()), 2) if i % 2 else int(10 ** rng.uniform(0.4, 13))
        scale = 10.0 ** rng.choice([0, 0, 3, 8, 15, 49, 60])
        means = rng.normal(size=K) * scale
        s2 = 10.0 ** rng.uniform(-3, 3, K) if i % 4 else 10.0 ** rng.uniform(-120, 120, K)
        lam = means.copy()
        moved = rng.random(K) < 0.3
        lam[moved] += rng.normal(size=moved.sum())
        out = np.empty(K)
        rules.dkm_gains(counts, means, s2, lam, t, False, out)
        ref = _dkm_gains_reference(counts, means, s2, lam, t)
        np.testing.assert_array_equal(out, ref)
        for a in range(K):
            if lam[a] == means[a] and abs(means[a]) <= 1e3 and 1e-3 <= s2[a] <= 1e3:
                total += 1
                wins += rules.bonus_wins(means[a], s2[a], math.log(t) / counts[a])
    assert wins > 0.5 * total  # the shortcut is taken in the usual range
