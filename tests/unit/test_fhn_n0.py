"""FHN1/FHN2 across n0 (decision D341): the runs share their streams across n0, and the
rows judge the ratio of means between the grid's ends by the one verdict rule."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from baiuv.claims import DIFFERS, NOT_RESOLVED, REPRODUCED
from baiuv.experiments.fhn_n0 import FHN1_WORDS, IMPACT_WORDS, fhn_n0_claims, fhn_n0_runs
from baiuv.experiments.stopping_times import experiment_from_config, run_shard
from baiuv.simulation import RunSettings

INSTANCES = {
    "two": {"name": "two", "mu": [1.0, 0.0], "sigma2": [1.0, 0.5]},
}
SETTINGS = {"delta": 0.01}


def test_runs_at_the_papers_n0_are_the_main_experiments():
    """Run r draws the same stream at every n0: at n0 = ⌈10 ln 100⌉ = 47 the study's runs
    are those of the main experiment (fhn_n0 = None), bit for bit; at n0 = 5 they differ."""
    spec = {"kind": "named", "instance": "two", "runs": 5}
    runs = fhn_n0_runs({"named2": spec}, INSTANCES, [5, 47], seed=3, settings=SETTINGS)
    assert set(runs["n0"]) == {5, 47} and set(runs["algorithm"]) == {"FHN1", "FHN2"}
    exp = experiment_from_config("named2", spec, INSTANCES)
    for alg in ("FHN1", "FHN2"):
        main = run_shard(exp, alg, seed=3, settings=RunSettings(**SETTINGS))
        at = runs[(runs.algorithm == alg) & (runs.n0 == 47)].sort_values("run")
        assert at["stopping_time"].tolist() == main["stopping_time"].tolist()
        small = runs[(runs.algorithm == alg) & (runs.n0 == 5)].sort_values("run")
        assert (small["stopping_time"] >= 5 * 2).all() and (at["stopping_time"] >= 47 * 2).all()
        assert small["stopping_time"].tolist() != at["stopping_time"].tolist()


def _runs(scale: dict, n: int = 400, seed: int = 0) -> pd.DataFrame:
    """Synthetic runs: stopping times ~ scale[(alg, n0)] × a shared per-run factor (paired
    across n0), on one experiment."""
    rng = np.random.default_rng(seed)
    rows = []
    for alg in ("FHN1", "FHN2"):
        base = rng.lognormal(0.0, 0.3, size=n)
        for n0 in (5, 20, 47):
            noise = rng.lognormal(0.0, 0.02, size=n)
            for r in range(n):
                rows.append(
                    dict(
                        experiment="e",
                        algorithm=alg,
                        n0=n0,
                        instance_index=0,
                        run=r,
                        stopping_time=1000.0 * scale[(alg, n0)] * base[r] * noise[r],
                        correct=True,
                        truncated=False,
                    )
                )
    return pd.DataFrame(rows)


def _by(rows, words):
    return next(r for r in rows if r.claim.startswith(words))


def test_rows_follow_the_ratios_between_the_grid_ends():
    """FHN1 doubles from n0 = 5 to 47, FHN2 moves by 20 %: both rows reproduced; the
    statistic recomputed from the table's means."""
    scale = {("FHN1", 5): 1.0, ("FHN1", 20): 1.5, ("FHN1", 47): 2.0}
    scale |= {("FHN2", 5): 1.0, ("FHN2", 20): 1.1, ("FHN2", 47): 1.2}
    runs = _runs(scale)
    rows = fhn_n0_claims(runs)
    assert len(rows) == 2
    assert _by(rows, IMPACT_WORDS).verdict == REPRODUCED
    more = _by(rows, FHN1_WORDS)
    assert more.verdict == REPRODUCED
    m = runs.groupby(["algorithm", "n0"])["stopping_time"].mean()
    want = abs(math.log(m["FHN1", 47] / m["FHN1", 5])) - abs(math.log(m["FHN2", 47] / m["FHN2", 5]))
    assert more.ours.startswith(f"{want:.3f} [")


def test_swapping_the_algorithms_flips_the_comparison():
    """FHN2 the more affected: "more important for FHN1" differs."""
    scale = {("FHN2", 5): 1.0, ("FHN2", 20): 1.5, ("FHN2", 47): 2.0}
    scale |= {("FHN1", 5): 1.0, ("FHN1", 20): 1.1, ("FHN1", 47): 1.2}
    assert _by(fhn_n0_claims(_runs(scale)), FHN1_WORDS).verdict == DIFFERS


def test_no_effect_is_not_resolved_never_differs():
    """Equal scales at every n0: the "impacts" row cannot show equality, so it is not
    resolved; the same with one run of FHN2 that a heavy tail puts 100 times higher."""
    flat = {(a, n): 1.0 for a in ("FHN1", "FHN2") for n in (5, 20, 47)}
    runs = _runs(flat, seed=1)
    assert _by(fhn_n0_claims(runs), IMPACT_WORDS).verdict == NOT_RESOLVED
    heavy = runs.copy()
    sel = (heavy.algorithm == "FHN2") & (heavy.n0 == 47) & (heavy.run == 0)
    heavy.loc[sel, "stopping_time"] *= 100.0
    row = _by(fhn_n0_claims(heavy), IMPACT_WORDS)
    assert row.verdict == NOT_RESOLVED, row.ours


def test_configs_rerun_fhn_around_the_papers_n0():
    """config/config.yaml and config/paper.yaml rerun FHN on a grid holding J.1's FHN n0
    at their δ, with values below and above it."""
    from pathlib import Path

    import yaml

    from baiuv.simulation.engine import fhn_n0

    root = Path(__file__).resolve().parents[2]
    for name in ("config.yaml", "paper.yaml"):
        sim = yaml.safe_load((root / "config" / name).read_text())["simulation"]
        grid = sim["fhn_n0_grid"]
        paper = fhn_n0(sim["delta"])
        assert paper in grid and min(grid) < paper < max(grid), name
