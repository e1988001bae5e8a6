"""One trajectory serves several stopping levels (D306: no sampling rule but FHN's reads
the level): each level's stopping time, recommendation, counts and truncation flag equal,
bit for bit, those of a run with that level alone on the same seed
(:func:`baiuv.simulation.engine.simulate_levels` against
:func:`baiuv.simulation.engine.simulate_run`), for every sampling rule that runs in the GLR
loop and every registered threshold family."""

from __future__ import annotations

import math

import numpy as np
import pytest
from numba import njit

from baiuv.model.instance import GaussianInstance
from baiuv.registry import ALGORITHMS, THRESHOLD_FAMILIES
from baiuv.simulation.engine import (
    RunSettings,
    _fresh_level_states,
    level_arrays,
    level_settings,
    simulate_levels,
    simulate_run,
)
from baiuv.simulation.rules.loop import new_levels, observe_levels
from baiuv.simulation.rules.statistics import welford
from baiuv.thresholds.kernels import update_state
from baiuv.thresholds.layout import P_GAMMA, S_LEVEL

INSTANCE = GaussianInstance([1.0, 0.4, 0.0], [1.0, 0.5, 2.0], "levels3")
GLR_RULES = [name for name, alg in ALGORITHMS.items() if alg.kernel == "glr"]
MAX_SAMPLES = 5000


def _families(alg_name: str) -> list[str]:
    """The registered families of the stopping rule of ``alg_name`` (GLR or EV-GLR)."""
    rule = "EV-GLR" if ALGORITHMS[alg_name].plug_in else "GLR"
    return [name for name, f in THRESHOLD_FAMILIES.items() if rule in f.rules]


def _same_run(alone: dict, in_levels: dict) -> None:
    keys = ("stopping_time", "recommendation", "counts", "truncated", "correct", "spawn_key")
    assert {k: in_levels[k] for k in keys} == {k: alone[k] for k in keys}


def _check(alg: str, settings: RunSettings, levels: list[dict], seed: int) -> list[dict]:
    """Run ``levels`` on one trajectory and each alone; assert they agree; return the rows."""
    kw = dict(seed=seed, experiment="levels", instance_id="levels3", run=seed)
    rows = simulate_levels(INSTANCE, alg, levels, settings=settings, **kw)
    assert len(rows) == len(levels)
    for lv, row in zip(levels, rows, strict=True):
        alone = simulate_run(INSTANCE, alg, settings=level_settings(settings, lv), **kw)
        _same_run(alone, row)
    return rows


@pytest.mark.parametrize("alg", GLR_RULES)
def test_every_level_of_one_trajectory_is_its_run_alone(alg):
    """Three ``ln(1/delta)`` of each family, one of them lazy, on one trajectory: each equals
    its run alone, and the levels did not all stop at one time (the test can tell them
    apart)."""
    for fam in _families(alg):
        settings = RunSettings(threshold=fam, max_samples=MAX_SAMPLES)
        levels = [
            {"log_inv_delta": 1.0},
            {"log_inv_delta": 4.0, "lazy_ratio": 1.3},
            {"log_inv_delta": 12.0},
        ]
        taus = set()
        for seed in (0, 1):
            rows = _check(alg, settings, levels, seed)
            taus |= {(seed, r["stopping_time"]) for r in rows}
        assert len(taus) > 2, (alg, fam, taus)


@pytest.mark.parametrize("alg", GLR_RULES)
def test_levels_of_several_families_share_a_trajectory(alg):
    """Levels of different families (and lazy/eager) in one run, in any order."""
    fams = _families(alg)
    levels = [
        {"threshold": f, "log_inv_delta": 2.0 + j, "lazy_ratio": 1.5 if j % 2 else None}
        for j, f in enumerate(fams)
    ]
    settings = RunSettings(max_samples=MAX_SAMPLES)
    rows = _check(alg, settings, levels, 3)
    back = _check(alg, settings, levels[::-1], 3)
    assert [r["stopping_time"] for r in back] == [r["stopping_time"] for r in rows][::-1]


def test_truncated_levels_end_at_the_budget():
    """A level that cannot stop before ``max_samples`` is truncated there, with its own
    flag, while an easy level stops earlier."""
    settings = RunSettings(threshold="heuristic", max_samples=400)
    rows = _check("TCI", settings, [{"log_inv_delta": 0.5}, {"log_inv_delta": 200.0}], 0)
    assert not rows[0]["truncated"] and rows[0]["stopping_time"] < 400
    assert rows[1]["truncated"] and rows[1]["stopping_time"] == 400


@pytest.mark.parametrize("alg", ["FHN1", "FHN2"])
def test_fhn_keeps_one_level_per_run(alg):
    """FHN's elimination reads delta: several levels are refused, one is the plain run."""
    with pytest.raises(ValueError, match="reads delta"):
        simulate_levels(INSTANCE, alg, [{"delta": 0.1}, {"delta": 0.01}])
    one = simulate_levels(INSTANCE, alg, [{"delta": 0.1}], seed=2)[0]
    alone = simulate_run(INSTANCE, alg, settings=RunSettings(delta=0.1), seed=2)
    _same_run(alone, one)


@pytest.mark.parametrize(
    "levels,match",
    [
        ([], "at least one"),
        ([{"n0": 3}], "not among the level fields"),
        ([{"threshold": "nope"}], "threshold must be one of"),
        ({"delta": 0.1}, "list of mappings"),
        ([0.1], "must be a mapping"),
    ],
)
def test_bad_levels_are_named(levels, match):
    with pytest.raises(ValueError, match=match):
        simulate_levels(INSTANCE, "TCI", levels)


@pytest.mark.parametrize("alg", ["TCI", "EV-TCI", "uniform"])
def test_levels_with_their_own_indifference_zone(alg):
    """Levels that differ by ``epsilon`` (each keeps its own block of epsilon-statistics in
    its own cache) on one trajectory: each equals its run alone, and the zones change the
    stopping times (the test can tell them apart)."""
    fam = "box" if not ALGORITHMS[alg].plug_in else "ev-box"
    settings = RunSettings(threshold=fam, max_samples=MAX_SAMPLES)
    levels = [{"epsilon": 0.0}, {"epsilon": 0.3, "log_inv_delta": 3.0}, {"epsilon": 0.3}]
    earlier = False
    for seed in (0, 1):
        rows = _check(alg, settings, levels, seed)
        # the same delta with and without a zone: the zone never stops later
        assert rows[2]["stopping_time"] <= rows[0]["stopping_time"], (alg, seed, rows)
        earlier |= rows[2]["stopping_time"] < rows[0]["stopping_time"]
    assert earlier, (alg, "the zone changed no stopping time")


@pytest.mark.parametrize("alg", ["TCI", "EV-TCI"])
def test_kl_states_of_levels_at_several_delta_and_gamma(alg):
    """Levels of the families with the KL state of peeling levels, at several ``delta`` and
    two ``gamma``, the deepest first or last (the level whose moves the others read, D420):
    each equals its run alone (the states themselves, sample by sample:
    :func:`test_skipped_kl_updates_leave_each_state_as_its_own_updates_do`)."""
    fams = [f for f in _families(alg) if f in ("kl", "bob", "ev-bob")]
    assert fams
    for fam in fams:
        levels = [
            {"log_inv_delta": 2.0},
            {"log_inv_delta": 6.0, "threshold_params": {"gamma": 1.1999}},
            {"log_inv_delta": 3.0, "threshold_params": {"gamma": 1.1999}},
            {"log_inv_delta": 9.0},
        ]
        settings = RunSettings(threshold=fam, max_samples=MAX_SAMPLES)
        for order in (levels, levels[::-1]):
            rows = _check(alg, settings, order, 5)
            assert max(r["stopping_time"] for r in rows) > 200, (fam, rows)


@njit
def _feed(levels, more, arms, xs):
    """Samples ``(arms[i], xs[i])`` into level 0's state (``update_state``) and the other
    levels' (``observe_levels``, D420), as the loop of several levels does."""
    codes, fparams = levels[0], levels[1]
    states0 = more[0][0]
    K = states0.shape[0]
    counts = np.zeros(K, dtype=np.int64)
    means, m2, var = np.zeros(K), np.zeros(K), np.zeros(K)
    for i in range(arms.shape[0]):
        a = arms[i]
        held = states0[a, S_LEVEL]
        n = welford(a, xs[i], counts, means, m2, var)
        update_state(codes[0], fparams[0], states0[a], n, means[a], var[a])
        kept = held if states0[a, S_LEVEL] == held else math.nan
        sample = (a, n, means[a], var[a])
        observe_levels(levels, more, sample, (0, 0), (kept, fparams[0, P_GAMMA]))


@pytest.mark.parametrize("fam", ["kl", "bob"])
def test_skipped_kl_updates_leave_each_state_as_its_own_updates_do(fam):
    """D420 directly: after each of 2000 samples of 3 arms fed through level 0 and the
    other levels' ``observe_levels``, every level's arm states equal those its own
    ``update_state`` leaves. ``gamma`` 1.1999 against level 0's 1.2: the two peeling levels
    are the same numbers, the first moves a few counts earlier, so a level that took level
    0's unmoved level for its own would hold a stale one there."""
    K, T = 3, 2000
    base = RunSettings(threshold=fam)
    specs = [
        {"log_inv_delta": 9.0},
        {"log_inv_delta": 4.0, "threshold_params": {"gamma": 1.1999}},
        {"log_inv_delta": 2.0},
    ]
    levels = level_arrays([level_settings(base, s) for s in specs], K)
    codes, fparams = levels[0], levels[1]
    rng = np.random.default_rng(7)
    arms = rng.integers(0, K, T)
    xs = rng.normal(size=T)
    refs = _fresh_level_states(len(specs), K)
    counts = np.zeros(K, dtype=np.int64)
    means, m2, var = np.zeros(K), np.zeros(K), np.zeros(K)
    for t in range(T):
        a = arms[t]
        n = welford(a, xs[t], counts, means, m2, var)
        for lv in range(len(specs)):
            update_state(codes[lv], fparams[lv], refs[lv, a], n, means[a], var[a])
        states = _fresh_level_states(len(specs), K)
        _feed(levels, new_levels(len(specs), K, states), arms[: t + 1], xs[: t + 1])
        np.testing.assert_array_equal(states, refs, err_msg=f"after sample {t + 1}")
