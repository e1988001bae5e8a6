"""Batches and delayed feedback of ``BestArmIdentifier`` (``next_arms``, pending requests
answered in any order; decisions D282-D285)."""

from __future__ import annotations

import contextlib
import copy
import io
import json
import math

import numpy as np
import pytest

from baiuv import BestArmIdentifier, cli
from baiuv.registry import RULE_CUSTOM
from baiuv.simulation import rules
from baiuv.simulation.identify import IdentifierError

MU = np.array([1.0, 0.6, 0.5, 0.3])
SD = np.array([1.0, 0.8, 1.2, 0.5])
RULES = ["tci", "ev-tci", "tas", "ev-tas", "dkm", "fws", "uniform"]


def family(rule):
    return "ev-box" if rule.startswith("ev-") else "box"


def value(arm, g):
    return float(MU[arm] + SD[arm] * g.standard_normal())


@pytest.mark.parametrize("rule", RULES)
def test_next_arms_one_at_a_time_is_next_arm_bit_for_bit(rule):
    """next_arms(1) then observe, every step: the same requests, coins and state as
    next_arm then observe."""
    a = BestArmIdentifier(4, 0.05, rule, family(rule), rng=7, max_samples=400)
    b = BestArmIdentifier(4, 0.05, rule, family(rule), rng=7, max_samples=400)
    ga, gb = np.random.default_rng(1), np.random.default_rng(1)
    seq_a, seq_b = [], []
    while not a.done:
        arm = a.next_arm()
        seq_a.append(arm)
        a.observe(arm, value(arm, ga))
    while not b.done:
        (arm,) = b.next_arms(1)
        seq_b.append(arm)
        b.observe(arm, value(arm, gb))
    assert seq_a == seq_b and len(seq_a) > 40
    assert a.counts.tolist() == b.counts.tolist()
    assert np.array_equal(a.means, b.means) and np.array_equal(a.variances, b.variances)
    assert a._rng.bit_generator.state == b._rng.bit_generator.state
    assert a.stop_reason == b.stop_reason and a.recommendation == b.recommendation


def started(rule, n=60, seed=3, **kw):
    """An identifier past its initialisation, driven one request at a time."""
    idf = BestArmIdentifier(4, 1e-6, rule, family(rule), rng=seed, **kw)
    g = np.random.default_rng(seed)
    for _ in range(n):
        arm = idf.next_arm()
        idf.observe(arm, value(arm, g))
    assert not idf.done and not idf.in_initialisation
    return idf, g


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("n_pending", [0, 1, 17])
def test_batch_is_the_rule_called_on_counts_plus_pending(rule, n_pending):
    """Brute force: with requests pending, next_arms(n) is the rule's step called n times on
    the counts plus the pending requests (each choice counted before the next), on copies
    of the workspace and of the generator, at time t + pending."""
    idf, _ = started(rule)
    if n_pending:
        idf.next_arms(n_pending)
    ws, scal, rng = copy.deepcopy((idf._ws, idf._scal, idf._rng))
    plus = idf.counts + np.bincount(idf.pending_arms, minlength=4).astype(np.int64)
    t = int(plus.sum())
    alg = idf._alg
    expected = []
    for i in range(40):
        zc, zf = rules.exact_zcache(idf._Z.copy())  # every statistic, fresh at each step
        run = idf._run._replace(counts=plus, t=t + i, zc=zc, zf=zf)
        work = rules.RuleWork(alg.plug_in, idf._params, ws, scal, idf._wfix, zc, zf, 0.0)
        rule = alg.rule if alg.step is None else RULE_CUSTOM
        arm = int(rules.select_arm(rule, run, work, rng))
        expected.append(arm)
        plus[arm] += 1
    got = idf.next_arms(40)
    assert got == expected
    assert idf.pending_arms[n_pending:] == got
    assert rng.bit_generator.state == idf._rng.bit_generator.state


def test_uniform_batch_continues_the_round_robin():
    """Written out: the round robin counts pending requests as samples."""
    idf, _ = started("uniform", n=61)
    assert idf.next_arms(6) == [(61 + i) % 4 for i in range(6)]
    assert idf.next_arms(3) == [(67 + i) % 4 for i in range(3)]


def test_top_two_draws_one_coin_per_request():
    idf, _ = started("tci")
    twin = copy.deepcopy(idf._rng)
    idf.next_arms(25)
    for _ in range(25):
        twin.random()
    assert idf._rng.bit_generator.state == twin.bit_generator.state
    # same calls, same answers
    a, _ = started("tci", seed=4)
    b, _ = started("tci", seed=4)
    assert a.next_arms(30) + a.next_arms(5) == b.next_arms(30) + b.next_arms(5)


def test_initialisation_counts_pending_requests():
    """n0 = 2, K = 4: the first 8 requests are the forced pulls, then round robin on counts
    plus pending until the initial observations arrive; the tracking sums start at counts
    plus pending."""
    idf = BestArmIdentifier(4, 0.01, "tas", "box", rng=0)
    first = idf.next_arms(11)
    assert first == [0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2]
    g = np.random.default_rng(0)
    for arm in first[:8][::-1]:  # the initial observations, out of order
        idf.observe(arm, value(arm, g))
    assert not idf.in_initialisation and idf.pending_arms == [0, 1, 2]
    assert idf._ws[0].tolist() == [3.0, 3.0, 3.0, 2.0]  # counts plus pending
    idf.next_arms(5)
    assert idf.n_samples == 8


def drive_batch(idf, arms, values, order):
    for i in order:
        idf.observe(arms[i], values[i])


@pytest.mark.parametrize("rule", ["tci", "tas", "dkm", "fws"])
def test_answers_out_of_order_give_the_state_of_answers_in_order(rule):
    ref, g = started(rule)
    arms = ref.next_arms(50)
    values = [value(a, g) for a in arms]
    states = []
    for how in ("in order", "reversed", "shuffled", "observe_many shuffled"):
        idf = copy.deepcopy(ref)
        order = list(range(50))
        if how == "reversed":
            order.reverse()
        elif how != "in order":
            np.random.default_rng(9).shuffle(order)
        if how.startswith("observe_many"):
            idf.observe_many(np.array(arms)[order], np.array(values)[order])
        else:
            drive_batch(idf, arms, values, order)
        assert not idf.done and idf.pending_arms == []
        states.append(idf)
    first = states[0]
    for idf in states[1:]:
        assert idf.counts.tolist() == first.counts.tolist()
        np.testing.assert_allclose(idf.means, first.means, rtol=1e-12)
        np.testing.assert_allclose(idf.variances, first.variances, rtol=1e-12)
        np.testing.assert_array_equal(idf._ws, first._ws)
        assert idf._rng.bit_generator.state == first._rng.bit_generator.state
        assert idf.next_arms(30) == copy.deepcopy(first).next_arms(30)


def test_partial_answers_keep_the_rest_pending_and_more_requests_can_be_made():
    idf, g = started("tci")
    batch = idf.next_arms(10)
    idf.observe(batch[7], value(batch[7], g))
    rest = list(batch)
    rest.remove(batch[7])  # the oldest request of that arm is answered
    assert idf.pending_arms == rest and idf.pending == rest[0]
    more = idf.next_arms(5)
    assert idf.pending_arms == rest + more
    assert idf.next_arm() == rest[0]  # the oldest pending request, no new one
    assert len(idf.pending_arms) == 14


def snapshot(idf):
    return copy.deepcopy(
        (
            idf.counts,
            idf.means,
            idf.variances,
            idf.pending_arms,
            idf._rng.bit_generator.state,
            idf._ws,
            idf._checks,
        )
    )


def same_snapshot(a, b):
    for x, y in zip(a, b, strict=True):
        if isinstance(x, np.ndarray):
            np.testing.assert_array_equal(x, y)
        else:
            assert x == y


def test_strict_answers_are_checked_against_the_pending_multiset():
    idf, g = started("tci")
    while True:  # a batch that misses some arm
        batch = idf.next_arms(6)
        missing = sorted(set(range(4)) - set(batch))
        if missing:
            break
    before = snapshot(idf)
    with pytest.raises(IdentifierError, match=rf"arm {missing[0]} was observed but"):
        idf.observe(missing[0], 0.0)
    same_snapshot(before, snapshot(idf))
    rows = [*batch, batch[0]]  # one answer too many for arm batch[0]
    with pytest.raises(
        IdentifierError,
        match=rf"row {len(batch)} would be observed without a pending request: arm {batch[0]}",
    ):
        idf.observe_many(rows, [0.0] * len(rows))
    same_snapshot(before, snapshot(idf))
    with pytest.raises(IdentifierError, match=rf"row 1 .*arm {missing[0]} has no pending"):
        idf.observe_many([batch[0], missing[0]], [0.0, 0.0])
    same_snapshot(before, snapshot(idf))
    # the whole batch, in any order, is accepted
    idf.observe_many(batch[::-1], [value(a, g) for a in batch[::-1]])
    assert idf.pending_arms == []
    with pytest.raises(IdentifierError, match="without a pending request"):
        idf.observe(0, 0.0)


def test_non_strict_unrequested_answer_replaces_the_oldest_request():
    idf = BestArmIdentifier(3, 0.05, "uniform", "box", strict=False, rng=0)
    assert idf.next_arms(5) == [0, 1, 2, 0, 1]
    idf.observe(1, 0.3)  # answers the oldest request of arm 1
    assert idf.pending_arms == [0, 2, 0, 1]
    idf.observe_many([1, 1, 1], [0.1, 0.2, 0.4])  # answers arm 1, then replaces 0 and 2
    assert idf.pending_arms == [0]


def test_bad_batch_sizes_and_the_stop():
    idf = BestArmIdentifier(2, 0.05, "tci", "box", max_samples=50, rng=0)
    for n in (0, -1, 1.5, True, "3"):
        with pytest.raises(ValueError, match="n must be a positive integer"):
            idf.next_arms(n)
    idf.next_arms(30)
    with pytest.raises(IdentifierError, match=r"only 20 more requests fit in max_samples = 50"):
        idf.next_arms(21)
    assert len(idf.pending_arms) == 30
    stopped = BestArmIdentifier(2, 0.1, "tci", "box", rng=0)
    arms = stopped.next_arms(400)
    noise = np.random.default_rng(0).standard_normal(400)
    vals = [(5.0, 0.0)[a] + 0.1 * z for a, z in zip(arms, noise, strict=True)]
    used = stopped.observe_many(arms, vals)
    assert stopped.done and used < 400 and stopped.pending_arms == []  # cancelled (D284)
    assert stopped.pending is None
    with pytest.raises(IdentifierError, match="has stopped"):
        stopped.next_arms(1)
    with pytest.raises(IdentifierError, match="has stopped"):
        stopped.observe(arms[used], 0.0)


def test_delta_correct_at_batch_size_100():
    """Monte Carlo: batches of 100 requests, each answered only when the whole batch is
    sampled (in reverse order), errs at most delta on a two-arm instance (binomial upper
    limit at 3 standard deviations above delta * runs)."""
    delta, runs = 0.2, 150
    mu, sd = np.array([0.3, 0.0]), np.array([1.0, 0.7])
    errors = 0
    for r in range(runs):
        g = np.random.default_rng(1000 + r)
        idf = BestArmIdentifier(2, delta, "tci", "box", rng=g, max_samples=100_000)
        while not idf.done:
            arms = np.array(idf.next_arms(100))
            x = mu[arms] + sd[arms] * g.standard_normal(100)
            idf.observe_many(arms[::-1], x[::-1])
        assert idf.stop_reason == "glr"
        errors += idf.recommendation != 0
    limit = delta * runs + 3 * math.sqrt(runs * delta * (1 - delta))
    assert errors <= limit, (errors, limit)


def run_cli(args):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(["identify", *args])
    return code, out.getvalue(), err.getvalue()


def test_command_line_next_n(tmp_path):
    g = np.random.default_rng(2)
    rows = [(i % 3, float([1.0, 0.0, 0.5][i % 3] + g.standard_normal())) for i in range(30)]
    f = tmp_path / "short.csv"
    f.write_text("arm,value\n" + "".join(f"{a},{v!r}\n" for a, v in rows))
    idf = BestArmIdentifier(3, 0.01, "tci", "bob", strict=False, rng=0)  # --seed 0
    for a, v in rows:
        idf.observe(a, v)
    expected = idf.next_arms(50)
    alloc = np.bincount(expected, minlength=3).tolist()
    code, out, _ = run_cli([str(f), "--next", "50", "--json", "--quiet"])
    assert code == 3
    s = json.loads(out)
    assert s["next_arms"] == expected and s["next_allocation"] == alloc
    assert s["next_arm"] == expected[0]
    code, out, _ = run_cli([str(f), "--next", "50", "--quiet"])
    assert code == 3
    words = ", ".join(f"arm {a}: {c}" for a, c in enumerate(alloc) if c)
    assert f"next 50 samples: {words}" in out
    # without --next: the next arm is the batch's first request
    code, out, _ = run_cli([str(f), "--quiet"])
    assert f"next arm to sample: {expected[0]}" in out and "next 50" not in out
    for bad in (["--next", "0"], ["--next", "-3"], ["--next", "40", "--max-samples", "60"]):
        code, _, err = run_cli([str(f), "--quiet", *bad])
        assert code == 2 and "--next" in err and len(err.strip().splitlines()) == 1, err
    code, _, err = run_cli(["--simulate", "easy", "--next", "5", "--quiet"])
    assert code == 2 and "--next" in err


def test_forced_exploration_counts_pending_requests():
    """Degenerate data (arm 0 constant, D120): every request of a batch is the arm with the
    fewest observations plus pending requests, a zero-variance arm first on ties."""
    idf = BestArmIdentifier(3, 0.05, "tci", "box", rng=0)
    for x in (1.0, 0.5, 0.2, 1.0, 0.7, 0.4):  # round robin: arm 0 gets 1.0 twice
        idf.observe(idf.next_arm(), x)
    assert idf.counts.tolist() == [2, 2, 2] and idf.variances[0] == 0.0
    plus, zero, expected = [2, 2, 2], [True, False, False], []
    for _ in range(7):
        arm = min(range(3), key=lambda a: (plus[a], not zero[a], a))
        expected.append(arm)
        plus[arm] += 1
    assert idf.next_arms(7) == expected
