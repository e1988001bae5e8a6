"""The asymptotic regime ``delta -> 0``.

Theorem ``thm:upper_bound_sample_complexity_algorithm`` states that, with the GLR stopping
rule and an asymptotically tight family of thresholds (Definition
``def:asymptotically_tight_threshold``; the KL and BoB thresholds are tight by Lemma
``lem:kl_Kinf_thresholds_asymptotically_tight``, the heuristic ``log((1 + log t)/delta)``
as well), TaS satisfies ``limsup E[tau_delta]/log(1/delta) <= T*(mu, sigma^2)`` and
beta-EB-TCI ``<= T*_beta(mu, sigma^2)``; Appendix ``app:expected_sample_complexity`` gives
``T*_{sigma^2}(mu)`` (resp. ``T*_{sigma^2, beta}(mu)``) for EV-TaS (resp. beta-EB-EVTCI)
with the EV-GLR stopping rule, which is below the lower bound ``T*(mu, sigma^2)
log(1/(2.4 delta))`` of Lemma ``lem:lower_bound_sample_complexity`` for delta-correct
algorithms, hence Theorem ``thm:impossibility_result``.

This module simulates ``E[tau_delta]`` over a grid of ``ln(1/delta)`` (one cell per instance,
algorithm and threshold, each run one trajectory for every level), summarises each level,
and decides whether
``E[tau_delta]/ln(1/delta)`` reaches the theoretical constant of :data:`THEORY`
(:func:`verdict_table`; rule of decision D154: within :data:`TOLERANCE` of the constant at the
largest ``ln(1/delta)``, or a second-order fit ``c0 + T ln(1/delta) + c1 ln ln(1/delta)``
whose ``T`` interval contains the constant). The levels are carried as ``ln(1/delta)``
(decision D150), so the grid reaches ``ln(1/delta) = 1000`` (``delta = e^-1000``, far below
the smallest double); the linear slope on the largest levels (:func:`slope_table`) is kept
as a diagnostic.

Random streams: run ``r`` of a cell uses ``run_seed(seed, "asymptotic:<threshold>",
instance, algorithm, r)`` (:mod:`baiuv.simulation.rng`) for every level (D307: the levels of
a run share its trajectory), so the levels of a run are paired (:func:`paired_level_table`)
and results do not depend on sharding.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from baiuv.experiments.spec import instances_of
from baiuv.experiments.stopping_times import wilson_interval
from baiuv.model.characteristic import characteristic_time
from baiuv.model.instance import GaussianInstance
from baiuv.model.validate import check_beta, check_delta, delta_from_log, log_inv_delta_of
from baiuv.registry import (
    ALGORITHMS,
    FAMILIES,
    PARAMETERS,
    TIGHT,
    label,
    selection,
)
from baiuv.simulation.engine import (
    OUTCOME_COLUMNS,
    CellRun,
    RunSettings,
    get_algorithm,
    run_cell,
    shard_runs,
)
from baiuv.storage.grids import grid
from baiuv.studies.asymptotic_fits import (
    fit_inputs,
    fit_second_order,
    fit_slope,
    is_paired,
    normal_quantile,
    paired_fit_interval,
    paired_level_table,
    paired_markdown,
    run_matrix,
)
from baiuv.tables import markdown_table

__all__ = [
    "THEORY",
    "TOLERANCE",
    "CONSTANT_LABELS",
    "asymptotic_levels",
    "asymptotic_pairs",
    "fit_second_order",
    "level_label",
    "verdict_table",
    "AsymptoticInstance",
    "asymptotic_instances",
    "check_asymptotic_config",
    "delta_label",
    "fit_slope",
    "paired_level_table",
    "run_asymptotic_cell",
    "slope_table",
    "asymptotic_markdown",
    "TIGHT",
    "summarize_asymptotic",
    "theoretical_constants",
]

#: Relative tolerance of the verdict rule at the largest ln(1/delta) (decision D154).
TOLERANCE = 0.05

#: Human-readable names of the four characteristic times.
CONSTANT_LABELS = {
    "T_star": "T*(μ,σ²)",
    "T_star_beta": "T*_β(μ,σ²)",
    "T_star_known": "T*_σ²(μ)",
    "T_star_known_beta": "T*_σ²,β(μ)",
}


class _Theory(Mapping):
    """Read-only view of the registry: algorithm name -> ``(key of
    :func:`theoretical_constants`, where the constant comes from)``, for every registered
    algorithm with an asymptotic constant (:attr:`baiuv.registry.Algorithm.constant`)."""

    def __getitem__(self, name: str) -> tuple[str, str]:
        alg = ALGORITHMS.get(name)
        if alg is None or alg.constant is None:
            raise KeyError(name)
        return alg.constant, alg.constant_source

    def __iter__(self):
        return iter(selection("asymptotic_algorithms"))

    def __len__(self) -> int:
        return len(selection("asymptotic_algorithms"))


#: Asymptotic constant of ``E[tau_delta]/log(1/delta)`` per algorithm (from the registry).
#: DKM/FWS are not analysed in the paper (Section ssec:experiments: "we believe that
#: similar guarantees ... can be shown").
THEORY: Mapping[str, tuple[str, str]] = _Theory()


def delta_label(delta: float) -> str:
    """File-name label of a confidence level: ``format(delta, ".6g")`` (``1e-10``, ``0.001``)."""
    d = check_delta(delta)
    return format(d, ".6g")


def level_label(log_inv_delta: float) -> str:
    """File-name label of a level ``ln(1/delta)``: ``format(ln(1/delta), ".6g")``
    (``1000``, ``23.0259``)."""
    return format(log_inv_delta_of(None, log_inv_delta), ".6g")


def asymptotic_levels(section: Mapping) -> list[float]:
    """Sorted ``ln(1/delta)`` values of the ``asymptotic`` section: exactly one of
    ``deltas`` (list of levels in ``(0, 1)``) and ``log_inv_deltas`` (list of values ``> 0``
    or a grid ``{min, max, num, scale}``, :func:`baiuv.storage.grids.grid`). ``ValueError`` naming the
    field on a bad entry or on two values with the same :func:`level_label`."""
    has_d, has_l = "deltas" in section, "log_inv_deltas" in section
    if has_d == has_l:
        raise ValueError("asymptotic: give exactly one of 'deltas' and 'log_inv_deltas'")
    out = []
    if has_d:
        for j, d in enumerate(section["deltas"]):
            try:
                out.append(log_inv_delta_of(d, None))
            except ValueError as exc:
                raise ValueError(f"asymptotic.deltas[{j}]: {exc}") from None
        key = "deltas"
    else:
        spec = section["log_inv_deltas"]
        try:
            vals = grid(spec) if isinstance(spec, Mapping) else list(spec)
        except (ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"asymptotic.log_inv_deltas: {exc}") from None
        for j, v in enumerate(vals):
            try:
                out.append(log_inv_delta_of(None, v))
            except ValueError as exc:
                raise ValueError(f"asymptotic.log_inv_deltas[{j}]: {exc}") from None
        key = "log_inv_deltas"
    labels = [level_label(x) for x in out]
    if len(set(labels)) != len(labels):
        raise ValueError(f"asymptotic.{key}: values must be distinct, got ln(1/delta) {labels}")
    if len(out) < 2:
        raise ValueError(f"asymptotic.{key}: at least 2 levels are required")
    return sorted(out)


def asymptotic_pairs(section: Mapping) -> list[tuple[str, str]]:
    """``(algorithm, threshold)`` cells of the ``asymptotic`` section: the entries of
    ``cells`` (``{algorithm, threshold}``), in order; ``ValueError`` naming the field on an
    algorithm without asymptotic constant, an unknown family or a duplicate."""
    cells = section.get("cells")
    if not cells:
        raise ValueError("asymptotic.cells: at least one {algorithm, threshold} is required")
    out: list[tuple[str, str]] = []
    for j, c in enumerate(cells):
        a, t = c.get("algorithm"), c.get("threshold")
        if a not in THEORY:
            raise ValueError(
                f"asymptotic.cells[{j}].algorithm: {a!r} has no asymptotic constant; allowed: "
                f"{sorted(THEORY)}"
            )
        if t not in FAMILIES:
            raise ValueError(f"asymptotic.cells[{j}].threshold: {t!r} not in {FAMILIES}")
        if (a, t) in out:
            raise ValueError(f"asymptotic.cells[{j}]: duplicate cell ({a}, {t})")
        out.append((a, t))
    return out


def theoretical_constants(mu, sigma2, beta: float = 0.5) -> dict[str, float]:
    """The four characteristic times of an instance.

    ``T*(mu, sigma^2)``, ``T*_beta(mu, sigma^2)``, ``T*_{sigma^2}(mu)`` and
    ``T*_{sigma^2, beta}(mu)`` (Lemma ``lem:lower_bound_sample_complexity`` and the
    beta-versions of Section ``ssec:lower_bounds``), keyed as in :data:`CONSTANT_LABELS`.
    """
    b = check_beta(beta)
    return {
        "T_star": characteristic_time(mu, sigma2),
        "T_star_beta": characteristic_time(mu, sigma2, beta=b),
        "T_star_known": characteristic_time(mu, sigma2, known_variance=True),
        "T_star_known_beta": characteristic_time(mu, sigma2, known_variance=True, beta=b),
    }


@dataclass(frozen=True)
class AsymptoticInstance:
    """An instance of the asymptotic experiment and its number of runs per cell."""

    instance: GaussianInstance
    runs: int

    def __post_init__(self):
        if not isinstance(self.instance, GaussianInstance):
            raise ValueError("instance must be a GaussianInstance")
        if not self.instance.name:
            raise ValueError("instance must have a name")
        if int(self.runs) != self.runs or self.runs < 1:
            raise ValueError(f"runs must be a positive integer, got {self.runs!r}")

    @property
    def name(self) -> str:
        return str(self.instance.name)


def asymptotic_instances(
    specs: Sequence[Mapping], named: Mapping[str, Mapping]
) -> list[AsymptoticInstance]:
    """Instances of the ``asymptotic.instances`` config entry.

    Each entry is ``{instance: <name of a top-level instance>, runs}`` or an inline
    ``{name, mu, sigma2, runs}``. ``ValueError`` naming the field on a bad entry.
    """
    out: list[AsymptoticInstance] = []
    seen: set[str] = set()
    for j, spec in enumerate(specs):
        field = f"asymptotic.instances[{j}]"
        if "runs" not in spec:
            raise ValueError(f"{field}.runs: required")
        if "instance" in spec:
            if any(k in spec for k in ("name", "mu", "sigma2")):
                raise ValueError(f"{field}: give either 'instance' or 'name, mu, sigma2'")
            name = spec["instance"]
            if name not in named:
                raise ValueError(
                    f"{field}.instance: unknown instance {name!r}; allowed: {sorted(named)}"
                )
            mu, s2 = named[name]["mu"], named[name]["sigma2"]
        else:
            missing = [k for k in ("name", "mu", "sigma2") if k not in spec]
            if missing:
                raise ValueError(f"{field}: missing {missing} (or give 'instance')")
            name, mu, s2 = spec["name"], spec["mu"], spec["sigma2"]
        if name in seen:
            raise ValueError(f"{field}: duplicate instance name {name!r}")
        seen.add(name)
        try:
            inst = GaussianInstance(np.asarray(mu, float), np.asarray(s2, float), str(name))
        except ValueError as exc:
            raise ValueError(f"{field} ({name}): {exc}") from None
        out.append(AsymptoticInstance(inst, int(spec["runs"])))
    if not out:
        raise ValueError("asymptotic.instances: at least one instance is required")
    return out


def check_asymptotic_config(section: Mapping, named: Mapping[str, Mapping]) -> None:
    """Cross-field checks of the ``asymptotic`` config section (``ValueError`` naming the
    field): instances, levels (:func:`asymptotic_levels`), cells (:func:`asymptotic_pairs`),
    ``fit_points`` between 2 and the number of levels; Student families only while their
    quantiles can be evaluated at the largest level (decision D152)."""
    asymptotic_instances(section["instances"], named)
    levels = asymptotic_levels(section)
    pairs = asymptotic_pairs(section)
    fp = int(section.get("fit_points", 3))
    if not (2 <= fp <= len(levels)):
        raise ValueError(
            f"asymptotic.fit_points must be in [2, {len(levels)}] (number of levels), got {fp}"
        )
    tol = float(section.get("tolerance", TOLERANCE))
    if not (0.0 < tol < 1.0):
        raise ValueError(f"asymptotic.tolerance must be in (0, 1), got {tol!r}")
    for j, (_, thr) in enumerate(pairs):
        if "student" in thr:
            # numba loads with the thresholds, only where one is built
            from baiuv.thresholds.families import make_threshold

            for a in asymptotic_instances(section["instances"], named):
                try:
                    make_threshold(thr, a.instance.K, log_inv_delta=levels[-1])
                except ValueError as exc:
                    raise ValueError(f"asymptotic.cells[{j}].threshold: {exc}") from None


#: Columns of :func:`run_asymptotic_cell`.
RUN_COLUMNS = [
    "instance",
    "K",
    "algorithm",
    "threshold",
    "delta",
    "log_inv_delta",
    "n0",
    *OUTCOME_COLUMNS,
]


def run_asymptotic_cell(
    instance: GaussianInstance,
    algorithm: str,
    threshold: str,
    *,
    log_inv_deltas: Sequence[float],
    runs: int,
    seed: int,
    n0: int = 6,
    beta: float = 0.5,
    max_samples: int = PARAMETERS["max_samples"].default,
    n_shards: int = 1,
    shard: int = 0,
    progress=None,
) -> pd.DataFrame:
    """Simulate the runs of one shard of one cell ``(instance, algorithm, threshold)`` at
    every level ``ln(1/delta)`` of ``log_inv_deltas``: each run is one trajectory that
    serves every level (D306: one trajectory serves every stopping level), so the levels of
    a run are paired.

    Parameters
    ----------
    instance : GaussianInstance
        A named instance (its name keys the random streams).
    algorithm : str
        A key of :data:`THEORY` (the engine's algorithm name).
    threshold : str
        Threshold family (``baiuv.thresholds.FAMILIES``).
    log_inv_deltas : sequence of float
        The levels ``ln(1/delta)`` (decisions D150, D252: resolved once by the caller, e.g.
        :func:`asymptotic_levels`); the column ``delta`` is ``exp(-ln(1/delta))``.
    runs, n_shards, shard : int
        Total runs of the cell and the contiguous block of them simulated here.
    seed, n0, beta, max_samples
        Root seed and engine settings (:class:`~baiuv.simulation.engine.RunSettings`).
    progress : callable, optional
        Called as ``progress(done, total)`` after each run (e.g. ``baiuv.pipeline.logs.Progress``).

    Returns
    -------
    DataFrame
        One row per run and level: ``instance, K, algorithm, threshold, delta,
        log_inv_delta, n0, run, stopping_time, correct, truncated, wall_time`` (the wall
        time is the whole trajectory's). Run ``r`` draws from ``run_seed(seed,
        "asymptotic:<threshold>", instance, algorithm, r)`` (D307: one stream per run,
        shared by its levels), so each row equals a run of its level alone with that seed.
    """
    if not isinstance(instance, GaussianInstance) or not instance.name:
        raise ValueError("instance must be a named GaussianInstance")
    alg = get_algorithm(algorithm)
    if alg.name not in THEORY:
        raise ValueError(f"algorithm must be one of {sorted(THEORY)}, got {alg.name!r}")
    if int(runs) != runs or runs < 1:
        raise ValueError(f"runs must be a positive integer, got {runs!r}")
    if isinstance(log_inv_deltas, str | bytes) or not isinstance(log_inv_deltas, Sequence):
        raise ValueError(f"log_inv_deltas must be a list of levels, got {log_inv_deltas!r}")
    if not log_inv_deltas:
        raise ValueError("log_inv_deltas: at least one level is required")
    lids = [log_inv_delta_of(None, x) for x in log_inv_deltas]
    settings = RunSettings(
        log_inv_delta=lids[0], threshold=threshold, n0=n0, beta=beta, max_samples=max_samples
    )
    cell = {
        "instance": instance.name,
        "K": instance.K,
        "algorithm": alg.name,
        "threshold": threshold,
        "n0": int(n0),
    }
    jobs = [
        CellRun(instance, instance.name, r, cell) for r in shard_runs(int(runs), n_shards, shard)
    ]
    return run_cell(
        alg,
        settings,
        jobs,
        seed=seed,
        experiment=f"asymptotic:{threshold}",
        columns=RUN_COLUMNS,
        progress=progress,
        levels=[{"log_inv_delta": x} for x in lids],
        level_fields=[{"delta": delta_from_log(x), "log_inv_delta": x} for x in lids],
    )


def summarize_asymptotic(
    runs: pd.DataFrame,
    instances: Mapping[str, GaussianInstance],
    *,
    beta: float = 0.5,
    level: float = 0.95,
) -> pd.DataFrame:
    """Per cell ``(instance, algorithm, threshold, ln(1/delta))`` (runs carry ``log_inv_delta``,
    or ``delta`` from which it is computed): mean stopping time with its
    standard error and ``level`` normal interval, ``E[tau]/log(1/delta)`` with its band,
    the error rate with its Wilson interval, the four characteristic times
    (:func:`theoretical_constants`), the algorithm's asymptotic constant (:data:`THEORY`)
    and the lower bound ``T*(mu, sigma^2) log(1/(2.4 delta))`` of Lemma
    ``lem:lower_bound_sample_complexity`` (also divided by ``log(1/delta)``).
    """
    need = {"instance", "algorithm", "threshold", "stopping_time", "correct"}
    missing = need - set(runs.columns)
    if not ({"delta", "log_inv_delta"} & set(runs.columns)):
        missing.add("log_inv_delta")
    if missing:
        raise ValueError(f"runs is missing columns {sorted(missing)}")
    if len(runs) == 0:
        raise ValueError("runs must not be empty")
    if "log_inv_delta" not in runs.columns:
        runs = runs.assign(log_inv_delta=[log_inv_delta_of(d, None) for d in runs["delta"]])
    z = normal_quantile(level)
    consts = {}
    rows = []
    keys = ["instance", "algorithm", "threshold", "log_inv_delta"]
    for (iname, alg, thr, L), g in runs.groupby(keys, sort=False):
        if iname not in instances:
            raise ValueError(f"instances has no entry for instance {iname!r}")
        if iname not in consts:
            inst = instances[iname]
            consts[iname] = theoretical_constants(inst.mu, inst.sigma2, beta)
        c = consts[iname]
        tau = g["stopping_time"].to_numpy(float)
        n = tau.size
        mean = float(tau.mean())
        se = float(tau.std(ddof=1) / math.sqrt(n)) if n > 1 else math.nan
        L = float(L)
        err = int((~g["correct"].astype(bool)).sum())
        wlo, whi = wilson_interval(err, n, level)
        key = THEORY.get(alg, (None, ""))[0]
        lb = c["T_star"] * max(0.0, L - math.log(2.4))  # T* ln(1/(2.4 delta))
        rows.append(
            {
                "instance": iname,
                "algorithm": alg,
                "threshold": thr,
                "delta": float(g["delta"].iloc[0]) if "delta" in g else delta_from_log(L),
                "log_inv_delta": L,
                "runs": n,
                "mean": mean,
                "se": se,
                "mean_low": mean - z * se,
                "mean_high": mean + z * se,
                "ratio": mean / L,
                "ratio_low": (mean - z * se) / L,
                "ratio_high": (mean + z * se) / L,
                "errors": err,
                "error_rate": err / n,
                "wilson_low": wlo,
                "wilson_high": whi,
                "truncated": int(g["truncated"].sum()) if "truncated" in g else 0,
                **c,
                "constant": key or "",
                "theory": c[key] if key else math.nan,
                "lower_bound": lb,
                "lower_bound_ratio": lb / L,
            }
        )
    out = pd.DataFrame(rows)
    return out.sort_values(["instance", "algorithm", "threshold", "log_inv_delta"], kind="stable")


def slope_table(
    summary: pd.DataFrame,
    *,
    fit_points: int = 3,
    level: float = 0.95,
    runs: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Fitted slope of ``E[tau_delta]`` against ``log(1/delta)`` per (instance, algorithm,
    threshold), by :func:`fit_slope` on the ``fit_points`` largest ``log(1/delta)``, next to
    the algorithm's asymptotic constant (:data:`THEORY`) and ``T*(mu, sigma^2)``. With the
    ``runs`` of a cell whose levels share trajectories (every run at every level), the
    slope's interval resamples the runs with all their levels
    (:func:`~baiuv.studies.asymptotic_fits.paired_fit_interval`; D308: the levels of
    a run are correlated); ``interval`` says which interval a row has.

    ``slope/theory`` close to 1 is what Theorem
    ``thm:upper_bound_sample_complexity_algorithm`` predicts as ``delta -> 0``.
    """
    if int(fit_points) != fit_points or fit_points < 2:
        raise ValueError(f"fit_points must be an integer >= 2, got {fit_points!r}")
    rows = []
    for (iname, alg, thr), g in summary.groupby(["instance", "algorithm", "threshold"], sort=False):
        g = g.sort_values("log_inv_delta")
        if len(g) < 2:
            raise ValueError(f"cell ({iname}, {alg}, {thr}) has {len(g)} delta value(s); need >= 2")
        use = g.iloc[-min(int(fit_points), len(g)) :]
        f = fit_slope(use["log_inv_delta"], use["mean"], use["se"].fillna(0.0), level=level)
        paired = _paired_runs(runs, iname, alg, thr)
        if paired is not None:
            x, _, se = fit_inputs(use["log_inv_delta"], use["mean"], use["se"].fillna(0.0))
            cols = np.searchsorted(paired[0], x)
            f["slope_low"], f["slope_high"] = paired_fit_interval(
                paired[1][:, cols],
                np.column_stack([np.ones_like(x), x]),
                se,
                1,
                identity=("asymptotic", "slope", iname, alg, thr),
                level=level,
            )
        theory = float(g["theory"].iloc[0])
        rows.append(
            {
                "instance": iname,
                "algorithm": alg,
                "threshold": thr,
                "points": len(use),
                "delta_min": float(use["delta"].min()),
                "delta_max": float(use["delta"].max()),
                "log_inv_delta_min": float(use["log_inv_delta"].min()),
                "log_inv_delta_max": float(use["log_inv_delta"].max()),
                **f,
                "constant": g["constant"].iloc[0],
                "theory": theory,
                "slope_over_theory": f["slope"] / theory if theory > 0 else math.nan,
                "T_star": float(g["T_star"].iloc[0]),
                "T_star_known": float(g["T_star_known"].iloc[0]),
                "theory_in_interval": bool(f["slope_low"] <= theory <= f["slope_high"]),
                "interval": _interval_name(paired),
            }
        )
    return pd.DataFrame(rows)


def _paired_runs(runs: pd.DataFrame | None, iname, alg, thr):
    """``run_matrix`` of the cell's runs when they are paired across levels, else ``None``."""
    if runs is None:
        return None
    g = runs[(runs["instance"] == iname) & (runs["algorithm"] == alg) & (runs["threshold"] == thr)]
    return run_matrix(g) if is_paired(g) else None


def _interval_name(paired) -> str:
    return "paired bootstrap over runs" if paired is not None else "normal, independent levels"


# TIGHT (from the registry, ``ThresholdFamily.tight``): the asymptotically tight families
# (Definition def:asymptotically_tight_threshold); the theorems' limits apply to these only.


def is_plug_in(name) -> bool:
    """Stopped by the EV-GLR rule (the registry's EV wrapper)."""
    return ALGORITHMS[str(name)].plug_in


def verdict_table(
    summary: pd.DataFrame,
    *,
    tol: float = TOLERANCE,
    level: float = 0.95,
    runs: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Verdict of each (instance, algorithm, threshold) on ``E[tau_delta]/ln(1/delta) -> C``
    with ``C`` the algorithm's constant (:data:`THEORY`), decision D154.

    Rule: (a) at the largest ``ln(1/delta)`` of the grid the ratio is within ``tol`` of
    ``C`` (``|ratio/C - 1| <= tol``), or (b) the second-order fit :func:`fit_second_order`
    on every level gives a ``T`` whose ``level`` interval contains ``C`` and is informative
    (half-width ``<= tol C``). ``reached`` is (a) or (b).

    Also, for the impossibility mechanism: ``below_T_star`` (the ratio's interval at the
    largest level lies below ``T*(mu, sigma^2)``) and ``below_lower_bound`` (the mean's
    interval lies below ``T*(mu, sigma^2) ln(1/(2.4 delta))``, Lemma
    lem:lower_bound_sample_complexity).

    With the ``runs`` of a cell whose levels share trajectories, the interval of ``T``
    resamples the runs with all their levels (D308: paired bootstrap over trajectories);
    ``interval`` says which interval a row has.
    """
    if not (0.0 < tol < 1.0):
        raise ValueError(f"tol must be in (0, 1), got {tol!r}")
    rows = []
    for (iname, alg, thr), g in summary.groupby(["instance", "algorithm", "threshold"], sort=False):
        g = g.sort_values("log_inv_delta")
        last = g.iloc[-1]
        C = float(last["theory"])
        ratio = float(last["ratio"])
        rule_a = bool(abs(ratio / C - 1.0) <= tol) if C > 0 else False
        fit = {k: math.nan for k in ("T", "T_se", "T_low", "T_high", "c0", "c1", "chi2")}
        fit["dof"] = -1
        paired = _paired_runs(runs, iname, alg, thr)
        if g["log_inv_delta"].nunique() >= 3:
            fit = fit_second_order(g["log_inv_delta"], g["mean"], g["se"].fillna(0.0), level=level)
            if paired is not None:
                x, _, se = fit_inputs(g["log_inv_delta"], g["mean"], g["se"].fillna(0.0))
                fit["T_low"], fit["T_high"] = paired_fit_interval(
                    paired[1][:, np.searchsorted(paired[0], x)],
                    np.column_stack([np.ones_like(x), x, np.log(x)]),
                    se,
                    1,
                    identity=("asymptotic", "T", iname, alg, thr),
                    level=level,
                )
        rule_b = bool(
            C > 0
            and fit["T_low"] <= C <= fit["T_high"]
            and 0.5 * (fit["T_high"] - fit["T_low"]) <= tol * C
        )
        rows.append(
            {
                "instance": iname,
                "algorithm": alg,
                "threshold": thr,
                "levels": int(len(g)),
                "log_inv_delta_max": float(last["log_inv_delta"]),
                "runs": int(last["runs"]),
                "ratio": ratio,
                "ratio_low": float(last["ratio_low"]),
                "ratio_high": float(last["ratio_high"]),
                "constant": last["constant"],
                "theory": C,
                "ratio_over_theory": ratio / C if C > 0 else math.nan,
                **{f"fit_{k}": v for k, v in fit.items()},
                "rule_a": rule_a,
                "rule_b": rule_b,
                "reached": rule_a or rule_b,
                "tolerance": float(tol),
                "T_star": float(last["T_star"]),
                "T_star_known": float(last["T_star_known"]),
                "below_T_star": bool(float(last["ratio_high"]) < float(last["T_star"])),
                "below_lower_bound": bool(float(last["mean_high"]) < float(last["lower_bound"])),
                "errors": int(g["errors"].sum()),
                "total_runs": int(g["runs"].sum()),
                "interval": _interval_name(paired),
            }
        )
    return pd.DataFrame(rows)


def cell_name(alg: str, thr: str) -> str:
    return f"{label(alg)} + {label(thr)} threshold"


def asymptotic_markdown(
    verdicts: pd.DataFrame,
    slopes: pd.DataFrame,
    summary: pd.DataFrame,
    *,
    fit_points: int,
    level: float = 0.95,
    n0: int | None = None,
    paired: pd.DataFrame | None = None,
) -> str:
    """Markdown report: the verdicts of :func:`verdict_table` (ratio at the largest
    ``ln(1/delta)`` with its interval, constant, second-order fit), the linear slopes of
    :func:`slope_table` (diagnostic), the error counts of every cell and, when given, the
    paired comparison of the levels
    (:func:`~baiuv.studies.asymptotic_fits.paired_level_table`)."""
    v = verdicts.copy()
    v["cell"] = [cell_name(a, t) for a, t in zip(v["algorithm"], v["threshold"], strict=True)]
    v["ln(1/δ)"] = [f"{x:.4g}" for x in v["log_inv_delta_max"]]
    v["E[τ]/ln(1/δ) [CI]"] = [
        f"{a:.4g} [{b:.4g}, {c:.4g}]"
        for a, b, c in zip(v["ratio"], v["ratio_low"], v["ratio_high"], strict=True)
    ]
    v["constant"] = [
        f"{CONSTANT_LABELS.get(k, k)} = {x:.4g}"
        for k, x in zip(v["constant"], v["theory"], strict=True)
    ]
    v["ratio/constant"] = [f"{x:.3f}" for x in v["ratio_over_theory"]]
    v["2nd-order T [CI]"] = [
        f"{a:.4g} [{b:.4g}, {c:.4g}]" if d >= 0 else "–"
        for a, b, c, d in zip(
            v["fit_T"], v["fit_T_low"], v["fit_T_high"], v["fit_dof"], strict=True
        )
    ]
    v["T*(μ,σ²)"] = [f"{x:.4g}" for x in v["T_star"]]
    v["verdict"] = [
        ("reached" if r else "not reached") + f" ({'a' if a else ''}{'b' if b else ''})"
        for r, a, b in zip(v["reached"], v["rule_a"], v["rule_b"], strict=True)
    ]
    vt = markdown_table(
        v[
            [
                "instance",
                "cell",
                "ln(1/δ)",
                "runs",
                "E[τ]/ln(1/δ) [CI]",
                "constant",
                "ratio/constant",
                "2nd-order T [CI]",
                "T*(μ,σ²)",
                "verdict",
            ]
        ]
    )
    t = slopes.copy()
    t["cell"] = [cell_name(a, b) for a, b in zip(t["algorithm"], t["threshold"], strict=True)]
    t["slope [CI]"] = [
        f"{s:.4g} [{lo:.4g}, {hi:.4g}]"
        for s, lo, hi in zip(t["slope"], t["slope_low"], t["slope_high"], strict=True)
    ]
    t["constant"] = [
        f"{CONSTANT_LABELS.get(k, k)} = {x:.4g}"
        for k, x in zip(t["constant"], t["theory"], strict=True)
    ]
    t["slope/constant"] = [f"{x:.3f}" for x in t["slope_over_theory"]]
    t["χ²/dof"] = [f"{c:.2f}/{d}" for c, d in zip(t["chi2"], t["dof"], strict=True)]
    t["ln(1/δ) range"] = [
        f"{a:.4g} – {b:.4g}"
        for a, b in zip(t["log_inv_delta_min"], t["log_inv_delta_max"], strict=True)
    ]
    st = markdown_table(
        t[
            [
                "instance",
                "cell",
                "slope [CI]",
                "constant",
                "slope/constant",
                "χ²/dof",
                "ln(1/δ) range",
            ]
        ]
    )
    err = (
        summary.groupby(["instance", "algorithm", "threshold"], sort=False)
        .agg(runs=("runs", "sum"), errors=("errors", "sum"), truncated=("truncated", "sum"))
        .reset_index()
    )
    n0_txt = f", n0 = {n0}" if n0 is not None else ""
    tol = float(verdicts["tolerance"].iloc[0]) if len(verdicts) else TOLERANCE
    return (
        "# Asymptotic regime: E[τ_δ]/ln(1/δ) as δ → 0\n\n"
        "Levels are carried as ln(1/δ) (δ = e^-1000 is far below the smallest double). "
        "Constants: Theorem thm:upper_bound_sample_complexity_algorithm (TaS: T*(μ,σ²); "
        "β-EB-TCI: T*_β(μ,σ²), β = 1/2) and Appendix app:expected_sample_complexity "
        "(EV-TaS: T*_σ²(μ); β-EB-EVTCI: T*_σ²,β(μ)); every δ-correct algorithm has "
        "E[τ_δ] ≥ T*(μ,σ²) ln(1/(2.4δ)) (Lemma lem:lower_bound_sample_complexity).\n\n"
        f"**Verdict rule** (decision D154): the limit is *reached* when (a) the ratio at the "
        f"largest ln(1/δ) is within ±{tol:.0%} of the constant, or (b) the weighted fit "
        "E[τ_δ] = c₀ + T·ln(1/δ) + c₁·ln ln(1/δ) on every level gives a T whose "
        f"{level:.0%} interval contains the constant with half-width ≤ {tol:.0%} of it. "
        f"Intervals: {level:.0%}; of a ratio, normal from the standard error of its mean; of T "
        "and of the slopes, a percentile bootstrap over runs, each run with all its levels "
        "(every run serves every level on one trajectory, so the levels are correlated), "
        f"where the column *interval* says so{n0_txt}.\n\n"
        + vt
        + f"\n## Linear slope of E[τ_δ] on the {fit_points} largest ln(1/δ) (diagnostic)\n\n"
        + st
        + "\n## Errors over all levels of the grid\n\n"
        + markdown_table(err)
        + ("\n" + paired_markdown(paired, level=level) if paired is not None else "")
    )


def check_section(section: Mapping, config: Mapping) -> None:
    """:func:`check_asymptotic_config` of the configuration's section."""
    check_asymptotic_config(section, instances_of(config))
