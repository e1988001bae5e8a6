"""The fits over the levels of the asymptotic study and their paired comparisons.

:func:`fit_slope` (a line) and :func:`fit_second_order` (``c0 + T x + c1 ln x``) are the
weighted least-squares fits of the mean stopping times on ``x = ln(1/delta)``, with normal
intervals from the standard errors of independent levels (D83: the slope; D154: the
verdict's second-order fit).

Each run of a cell ``(instance, algorithm, threshold)`` is one trajectory that serves every
level ``ln(1/delta)`` (D306: one trajectory serves every stopping level; D307: the levels
of a run share its stream), so the stopping times of one run at different levels are
paired, and correlated. The intervals that compare levels, or fit a line through them,
resample the runs, each with its stopping times at every level
(:func:`baiuv.claims.bootstrap_interval` with ``paired=True``; D308: paired bootstrap over
trajectories):

* :func:`paired_level_table`: for every level, ``E[tau_delta]/ln(1/delta)`` divided by its
  value at the deepest level, with its paired interval (and the unpaired one beside, to
  show what the pairing gains), judged against ``[1 - tol, 1 + tol]``;
* :func:`paired_fit_interval`: the interval of a coefficient of a weighted least-squares
  fit over the levels (the slope of :func:`~baiuv.studies.asymptotic.slope_table`, the
  ``T`` of :func:`~baiuv.studies.asymptotic.verdict_table`).
"""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np
import pandas as pd

from baiuv.claims import Band, bootstrap_interval, bootstrap_ratio
from baiuv.registry import label
from baiuv.tables import markdown_table

__all__ = [
    "fit_second_order",
    "fit_slope",
    "paired_fit_interval",
    "paired_level_table",
    "paired_markdown",
    "run_matrix",
]

#: Columns of a cell's runs that key it.
CELL_KEYS = ["instance", "algorithm", "threshold"]


def normal_quantile(level: float) -> float:
    """The two-sided normal quantile of ``level`` (``1.96`` at ``0.95``)."""
    if not (0.0 < level < 1.0):
        raise ValueError(f"level must be in (0, 1), got {level!r}")
    return NormalDist().inv_cdf(0.5 + 0.5 * level)


def fit_slope(x, y, se, *, level: float = 0.95) -> dict[str, float]:
    """Weighted least-squares line ``y = a + b x`` with known standard errors ``se``.

    Minimises ``sum_i (y_i - a - b x_i)^2 / se_i^2``; the covariance of ``(a, b)`` is
    ``(X^T W X)^{-1}`` with ``W = diag(1/se^2)`` (the ``se`` are taken as known, as for
    means of many runs). The interval is ``b -+ z se_b`` with ``z`` the normal quantile of
    ``level``. ``chi2`` is the weighted residual sum of squares (``dof = n - 2`` degrees
    of freedom; a large value signals curvature, i.e. that the smallest ``delta`` are not
    yet asymptotic). Zero standard errors are floored at the rounding error
    ``sqrt(1/12)/1e3`` of an integer mean (decision D83).

    Returns
    -------
    dict
        ``slope, slope_se, slope_low, slope_high, intercept, intercept_se, chi2, dof``.
    """
    x, y, s = fit_inputs(x, y, se)
    if x.size < 2:
        raise ValueError(f"x must have at least 2 points, got {x.size}")
    if np.unique(x).size < 2:
        raise ValueError("x must contain at least two distinct values")
    z = normal_quantile(level)
    coef, cov, chi2 = _wls(np.column_stack([np.ones_like(x), x]), y, s)
    b_se = math.sqrt(cov[1, 1])
    return {
        "slope": float(coef[1]),
        "slope_se": b_se,
        "slope_low": float(coef[1] - z * b_se),
        "slope_high": float(coef[1] + z * b_se),
        "intercept": float(coef[0]),
        "intercept_se": math.sqrt(cov[0, 0]),
        "chi2": chi2,
        "dof": int(x.size - 2),
    }


#: Floor of the standard errors of mean stopping times (rounding error of an integer mean).
_SE_FLOOR = math.sqrt(1.0 / 12.0) / 1e3


def fit_inputs(x, y, se):
    """``(x, y, se)`` as float arrays of one length, finite, ``se >= 0`` floored at
    :data:`_SE_FLOOR`; ``ValueError`` otherwise."""
    x = np.asarray(x, float)
    y = np.asarray(y, float)
    s = np.asarray(se, float)
    if x.ndim != 1 or x.shape != y.shape or x.shape != s.shape:
        raise ValueError("x, y and se must be 1-D arrays of the same length")
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
        raise ValueError("x and y must be finite")
    if np.any(~np.isfinite(s)) or np.any(s < 0):
        raise ValueError("se must be finite and >= 0")
    return x, y, np.maximum(s, _SE_FLOOR)


def _wls(X: np.ndarray, y: np.ndarray, se: np.ndarray):
    """Weighted least squares with known standard errors: ``(coef, cov, chi2)``."""
    w = 1.0 / se**2
    A = X.T @ (w[:, None] * X)
    cov = np.linalg.inv(A)
    coef = cov @ (X.T @ (w * y))
    resid = y - X @ coef
    return coef, cov, float(np.sum(w * resid**2))


def fit_second_order(x, y, se, *, level: float = 0.95) -> dict[str, float]:
    """Weighted least squares ``y = c0 + T x + c1 ln x`` with known standard errors ``se``.

    ``x = ln(1/delta)`` and ``y = E[tau_delta]``: the second-order model of the asymptotic
    verdict (decision D154), whose ``T`` estimates ``lim E[tau_delta]/ln(1/delta)`` with the
    ``ln ln(1/delta)`` term of the thresholds (``ln(1 + ln t)``, the ``ln ln`` of the
    peeling) absorbed by ``c1``. Needs at least 3 distinct ``x > 0``; ``dof = n - 3``.

    Returns
    -------
    dict
        ``T, T_se, T_low, T_high, c0, c1, chi2, dof``.
    """
    x, y, s = fit_inputs(x, y, se)
    if np.unique(x).size < 3:
        raise ValueError(f"x must contain at least 3 distinct values, got {np.unique(x).size}")
    if np.any(x <= 0):
        raise ValueError("x must be > 0 (ln x enters the model)")
    z = normal_quantile(level)
    coef, cov, chi2 = _wls(np.column_stack([np.ones_like(x), x, np.log(x)]), y, s)
    t_se = math.sqrt(cov[1, 1])
    return {
        "T": float(coef[1]),
        "T_se": t_se,
        "T_low": float(coef[1] - z * t_se),
        "T_high": float(coef[1] + z * t_se),
        "c0": float(coef[0]),
        "c1": float(coef[2]),
        "chi2": chi2,
        "dof": int(x.size - 3),
    }


def run_matrix(g: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """``(levels, taus)`` of one cell's runs: the sorted ``ln(1/delta)`` and the stopping
    times as a ``runs x levels`` matrix (row: one run, i.e. one trajectory). ``ValueError``
    when a run lacks a level (the runs are then not paired)."""
    piv = g.pivot_table(
        index="run", columns="log_inv_delta", values="stopping_time", aggfunc="first"
    ).sort_index(axis=1)
    per_level = g.groupby("log_inv_delta")["run"].nunique()
    if piv.isna().to_numpy().any() or (per_level != len(piv)).any():
        raise ValueError("paired levels: every run must have a stopping time at every level")
    return piv.columns.to_numpy(float), piv.to_numpy(float)


def is_paired(g: pd.DataFrame) -> bool:
    """Whether every run of the cell ``g`` has every level (:func:`run_matrix` applies)."""
    try:
        run_matrix(g)
    except ValueError:
        return False
    return g["run"].nunique() > 1


def paired_fit_interval(
    taus: np.ndarray,
    design: np.ndarray,
    se: np.ndarray,
    coef: int,
    *,
    identity: tuple,
    level: float,
) -> tuple[float, float]:
    """Percentile interval of coefficient ``coef`` of the weighted least-squares fit of the
    levels' mean stopping times on ``design`` (a ``levels x p`` matrix), weights
    ``1/se^2`` held fixed, over the runs resampled with all their levels (the rows of
    ``taus``, ``runs x levels``; :func:`baiuv.claims.bootstrap_interval`, paired)."""
    w = 1.0 / np.asarray(se, float) ** 2
    A = design.T @ (w[:, None] * design)
    m = np.linalg.solve(A, design.T * w)[coef]  # coefficient = m @ level means

    def statistic(s):
        means = np.stack([s[str(j)].mean(axis=1) for j in range(taus.shape[1])], axis=1)
        return means @ m

    samples = {str(j): taus[:, j] for j in range(taus.shape[1])}
    return bootstrap_interval(samples, statistic, identity=identity, paired=True, level=level)


def paired_level_table(runs: pd.DataFrame, *, tol: float, level: float = 0.95) -> pd.DataFrame:
    """Per cell and level below the deepest: ``E[tau_delta]/ln(1/delta)`` over its value at
    the cell's deepest level (``paired_ratio``), with its interval from the runs resampled
    with all their levels (``paired_low``, ``paired_high``) and, beside it, the interval
    that resamples the two levels independently (``unpaired_low``, ``unpaired_high``); the
    verdict (:func:`baiuv.claims.judge`) against ``[1 - tol, 1 + tol]``: ``reproduced``
    when the level's ratio is within ``tol`` of the deepest level's (the limit is reached
    from that level on), ``differs`` when it is outside, ``not resolved`` otherwise."""
    if not (0.0 < tol < 1.0):
        raise ValueError(f"tol must be in (0, 1), got {tol!r}")
    band = Band(
        1.0 - tol,
        1.0 + tol,
        words="E[τ_δ]/ln(1/δ) tends to a constant",
        where="Theorem thm:upper_bound_sample_complexity_algorithm",
    )
    rows = []
    for (iname, alg, thr), g in runs.groupby(CELL_KEYS, sort=False):
        lids, taus = run_matrix(g)
        ref = taus[:, -1] / lids[-1]
        for j in range(lids.size - 1):
            num = taus[:, j] / lids[j]
            ident = ("asymptotic", "paired", iname, alg, thr, float(lids[j]))
            paired = bootstrap_ratio(num, ref, band, identity=ident, paired=True, level=level)
            alone = bootstrap_ratio(num, ref, band, identity=ident, paired=False, level=level)
            rows.append(
                {
                    "instance": iname,
                    "algorithm": alg,
                    "threshold": thr,
                    "log_inv_delta": float(lids[j]),
                    "log_inv_delta_ref": float(lids[-1]),
                    "runs": int(taus.shape[0]),
                    "paired_ratio": paired.statistic,
                    "paired_low": paired.interval[0],
                    "paired_high": paired.interval[1],
                    "median_ratio": paired.median,
                    "unpaired_low": alone.interval[0],
                    "unpaired_high": alone.interval[1],
                    "width_gain": _gain(alone.interval, paired.interval),
                    "verdict": paired.verdict,
                    "tolerance": float(tol),
                }
            )
    return pd.DataFrame(rows)


def _gain(unpaired: tuple[float, float], paired: tuple[float, float]) -> float:
    """Width of the unpaired interval over that of the paired one (``nan`` when the paired
    one has no width)."""
    w = paired[1] - paired[0]
    return (unpaired[1] - unpaired[0]) / w if w > 0 else math.nan


def paired_markdown(table: pd.DataFrame, *, level: float) -> str:
    """The section of the asymptotic report on :func:`paired_level_table`."""
    if table.empty:
        return ""
    t = table.copy()
    t["cell"] = [
        f"{label(a)} + {label(b)} threshold"
        for a, b in zip(t["algorithm"], t["threshold"], strict=True)
    ]
    t["ln(1/δ) / deepest"] = [
        f"{a:.4g} / {b:.4g}"
        for a, b in zip(t["log_inv_delta"], t["log_inv_delta_ref"], strict=True)
    ]
    t["paired ratio [CI]"] = [
        f"{r:.3f} [{lo:.3f}, {hi:.3f}]"
        for r, lo, hi in zip(t["paired_ratio"], t["paired_low"], t["paired_high"], strict=True)
    ]
    t["unpaired CI"] = [
        f"[{lo:.3f}, {hi:.3f}]"
        for lo, hi in zip(t["unpaired_low"], t["unpaired_high"], strict=True)
    ]
    t["CI width, unpaired/paired"] = [f"{g:.2f}" for g in t["width_gain"]]
    tol = float(t["tolerance"].iloc[0])
    cols = [
        "instance",
        "cell",
        "ln(1/δ) / deepest",
        "runs",
        "paired ratio [CI]",
        "unpaired CI",
        "CI width, unpaired/paired",
        "verdict",
    ]
    return (
        "## Each level against the deepest, paired over runs\n\n"
        "Every run serves every level on one trajectory, so the levels of a run are paired: "
        "the ratio is (E[τ_δ]/ln(1/δ)) / (E[τ_δ']/ln(1/δ')) with δ' the deepest level, its "
        f"{level:.0%} interval a percentile bootstrap over runs (each with all its levels); "
        "the unpaired interval, which resamples the two levels independently, is shown "
        f"beside it. Verdict: *reproduced* when the interval lies within ±{tol:.0%} of 1 "
        "(the ratio has settled from that level on), *differs* when it lies outside.\n\n"
        + markdown_table(t[cols])
    )
