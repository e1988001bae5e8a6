"""FHN1/FHN2 across their initial sample size n0 (Appendix ``app:ss_implementation_details``):
"The choice of the initial time n0 impacts the empirical performance of the algorithm" and
"The impact of the choice of n0 is more important for FHN1 since S_{b,a}(n0) is used for
elimination" (decision D341).

The runs of every stopping-time experiment repeated for FHN1 and FHN2 at each n0 of a grid
(:func:`fhn_n0_runs`); run ``r`` draws from the same stream at every n0 (the seed does not
depend on n0), so the comparisons across n0 are paired. The rows
(:func:`fhn_n0_claims`) compare the smallest and the largest n0 of the grid by the one
verdict rule (:func:`baiuv.claims.judge`), 95 % bootstrap over runs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from baiuv.claims import (
    NOT_RESOLVED,
    REPRODUCED,
    Band,
    Claim,
    bootstrap_interval,
    judge,
)
from baiuv.experiments.spec import ExperimentSpec
from baiuv.experiments.stopping_times import experiment_from_config, run_shard
from baiuv.simulation import RunSettings
from baiuv.storage.shards import split_timings

__all__ = ["FHN_ALGORITHMS", "SPEC", "fhn_n0_claims", "fhn_n0_runs"]

FHN_ALGORITHMS = ("FHN1", "FHN2")
WHERE = "App. app:ss_implementation_details (Sampling rules: FHN2, FHN1), D341"
IMPACT_WORDS = (
    '"The choice of the initial time n0 impacts the empirical performance of the algorithm"'
)
FHN1_WORDS = (
    '"The impact of the choice of n0 is more important for FHN1 since S_{b,a}(n0) is used for '
    'elimination"'
)


def fhn_n0_runs(
    experiments: Mapping[str, Mapping],
    instances: Mapping[str, Mapping],
    grid: Sequence[int],
    *,
    seed: int,
    settings: Mapping,
) -> pd.DataFrame:
    """The runs of FHN1 and FHN2 on every experiment (``simulation.experiments`` entries,
    ``instances`` by name) at each ``n0`` of ``grid``; ``settings``: the simulation's run
    settings (``fhn_n0`` replaced by each n0). One row per run with the columns of
    :func:`baiuv.experiments.stopping_times.run_shard` but its wall time (a results table
    is the same bytes at every run, D131), and ``experiment``, ``n0``."""
    grid = [int(n) for n in grid]
    if len(grid) < 2 or len(set(grid)) != len(grid) or min(grid) < 2:
        raise ValueError(f"fhn_n0_grid must hold at least 2 distinct integers >= 2, got {grid!r}")
    out = []
    for name, spec in experiments.items():
        exp = experiment_from_config(name, spec, instances)
        for alg in FHN_ALGORITHMS:
            for n0 in grid:
                s = RunSettings(**{**dict(settings), "fhn_n0": n0})
                df, _ = split_timings(run_shard(exp, alg, seed=seed, settings=s))
                out.append(df.assign(experiment=name, n0=n0))
    return pd.concat(out, ignore_index=True)


def _times(runs: pd.DataFrame, alg: str, n0: int) -> np.ndarray:
    g = runs[(runs["algorithm"] == alg) & (runs["n0"] == n0)]
    return g.sort_values(["instance_index", "run"])["stopping_time"].to_numpy(float)


def _ratio(s, a: str):
    """mean τ at the grid's largest n0 / at its smallest, of algorithm ``a``."""
    return s[f"{a}:hi"].mean(axis=-1) / s[f"{a}:lo"].mean(axis=-1)


def _gap(s):
    """|ln R(FHN1)| − |ln R(FHN2)|."""
    return np.abs(np.log(_ratio(s, "FHN1"))) - np.abs(np.log(_ratio(s, "FHN2")))


def fhn_n0_claims(runs: pd.DataFrame) -> list[Claim]:
    """Two rows per experiment of :func:`fhn_n0_runs`'s table (D341), with ``lo``/``hi``
    the smallest and the largest n0 of the grid and ``R = mean τ(hi) / mean τ(lo)``:

    * "n0 impacts the empirical performance" (FHN2, the algorithm of the paragraph; FHN1
      beside): reproduced when R's interval lies on one side of 1, not resolved otherwise
      (equal performance cannot be shown by an interval, so the row cannot differ);
    * "more important for FHN1": ``|ln R(FHN1)| − |ln R(FHN2)| > 0``, one-sided.

    Intervals: 95 % bootstrap over runs, paired across n0 (the same streams)."""
    out = []
    for exp, g in runs.groupby("experiment", sort=False):
        grid = sorted(int(n) for n in g["n0"].unique())
        lo, hi = grid[0], grid[-1]
        x = {(a, n): _times(g, a, n) for a in FHN_ALGORITHMS for n in (lo, hi)}
        if len({v.size for v in x.values()}) != 1 or next(iter(x.values())).size == 0:
            continue
        samples = {f"{a}:{'lo' if n == lo else 'hi'}": v for (a, n), v in x.items()}
        means = g.groupby(["algorithm", "n0"])["stopping_time"].mean()
        errors = g.groupby(["algorithm", "n0"])["correct"].apply(lambda c: int((~c).sum()))
        trunc = int(g["truncated"].sum())
        table = "; ".join(
            f"{a}: "
            + ", ".join(f"n0 = {n} {means[(a, n)]:.0f} ({errors[(a, n)]} err.)" for n in grid)
            for a in FHN_ALGORITHMS
        )

        ratios = {}
        for a in FHN_ALGORITHMS:
            point = float(_ratio(samples, a))
            ci = bootstrap_interval(
                samples, lambda s, a=a: _ratio(s, a), identity=(exp, "fhn n0", a), paired=True
            )
            ratios[a] = (point, ci)
        point, ci = ratios["FHN2"]
        above = Band(lo=1.0, strict_lo=True, words=IMPACT_WORDS, where=WHERE)
        below = Band(hi=1.0, strict_hi=True, words=IMPACT_WORDS, where=WHERE)
        resolved = REPRODUCED in (judge(point, ci, above), judge(point, ci, below))
        rtext = "; ".join(f"{a} {p:.3f} [{c[0]:.3f}, {c[1]:.3f}]" for a, (p, c) in ratios.items())
        ours = (
            f"mean τ (runs per n0: {x[('FHN2', lo)].size}; truncated runs {trunc}): {table}; "
            f"mean τ(n0 = {hi}) / mean τ(n0 = {lo}) [95% bootstrap over runs, paired]: {rtext}"
        )
        out.append(
            Claim(
                topic="FHN's initial size n0",
                claim=f"{IMPACT_WORDS} (FHN2, {exp})",
                where=WHERE,
                paper="FHN2's mean τ(largest n0) / mean τ(smallest n0) of the grid ≠ 1: "
                "interval entirely above or below 1",
                ours=ours,
                verdict=REPRODUCED if resolved else NOT_RESOLVED,
                reason=""
                if resolved
                else f"FHN2's ratio's interval [{ci[0]:.3f}, {ci[1]:.3f}] contains 1",
            )
        )

        d = float(_gap(samples))
        dci = bootstrap_interval(
            samples, _gap, identity=(exp, "fhn n0", "FHN1 vs FHN2"), paired=True
        )
        band = Band(lo=0.0, strict_lo=True, words=FHN1_WORDS, where=WHERE)
        v = judge(d, dci, band)
        reasons = {
            "differs": "n0 moves FHN2's mean τ more than FHN1's",
            "not resolved": "the interval contains 0",
        }
        out.append(
            Claim(
                topic="FHN's initial size n0",
                claim=f"{FHN1_WORDS} ({exp})",
                where=WHERE,
                paper=f"|ln R(FHN1)| − |ln R(FHN2)| {band.text()} (one-sided), R = mean "
                f"τ(n0 = {hi}) / mean τ(n0 = {lo})",
                ours=f"{d:.3f} [{dci[0]:.3f}, {dci[1]:.3f}] (95% bootstrap over runs, paired "
                f"across n0); R: {rtext}",
                verdict=v,
                reason=reasons.get(v, ""),
            )
        )
    return out


#: The FHN n0 experiment: runs when ``simulation.fhn_n0_grid`` is set.
SPEC = ExperimentSpec(
    name="fhn_n0",
    order=40,
    enabled=lambda config: bool(config["simulation"].get("fhn_n0_grid")),
    report_inputs=lambda config: {"fhn_n0": "results/fhn_n0.parquet"},
    claims=lambda tables, config: fhn_n0_claims(tables["fhn_n0"]),
)
