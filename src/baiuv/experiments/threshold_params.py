"""The hyper-parameters of the thresholds (Appendix ``app:ss_implementation_details``):
which way ``(eta0, eta1)``, ``s`` and ``gamma`` move the thresholds' dependency in δ, in
t and their constant term, measured on the formulas (decision D340).

Deterministic: K = 2, the two arms at equal counts ``N_a = N_b = t/2``, and for the
families with a per-arm state (KL, BoB, EV-BoB) the empirical mean and variance at every
count equal to the arm's ``(mu, sigma2)`` of Figure ``fig:stopping_thresholds_evolutions_glrt``
(no data stream, so no Monte Carlo). Measures (:func:`parameter_effects`):

* ``delta_slope``: least-squares slope of the threshold against ln(1/δ) over
  :data:`DELTA_GRID` (Figure 1(a)'s range) at :data:`T_FIXED`, the parameter held fixed;
* ``constant``: the constant term, the family's log term with its t- and δ-dependence
  removed (:func:`constant_term`; depends on s alone);
* ``low_delta_value``: the threshold at the smallest ln(1/δ) of that grid, at
  :data:`T_FIXED` (described beside the constant term, not judged);
* ``time_slope``: least-squares slope against ln t over :data:`T_GRID` (the last decade of
  Figure 1(b)'s range) at δ = :data:`DELTA_FIXED`;
* ``value at t = …, ln(1/δ) = …``: the threshold of every family of Figures 1 and 4 at
  :data:`RANK_POINTS`, ranked by the report ("the relative performance of the thresholds
  are not changed");
* ``updates``: how many times an arm's state records a new peeling level (the update of the
  ratio of eigenvalues ``R``) over its counts ``1 .. T_GRID[-1]/2``.

The grids of the parameters: :data:`ETA_SCALES` (multiples of the paper's ``1/ln(1/δ)`` at
δ = 0.01, held fixed along the ln(1/δ) axis), :data:`S_GRID`, :data:`GAMMA_GRID`; the other
parameters at the paper's values. The heuristic threshold, asymptotically tight, is
measured beside as the ideal dependency.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from baiuv._deferred import DeferredModule
from baiuv.registry import STATEFUL

_k = DeferredModule("baiuv.thresholds.kernels")

__all__ = [
    "DELTA_FIXED",
    "DELTA_GRID",
    "ETA_SCALES",
    "FAMILIES_BY_PARAMETER",
    "GAMMA_GRID",
    "PAPER_VALUES",
    "RANK_FAMILIES",
    "RANK_GROUPS",
    "RANK_POINTS",
    "S_GRID",
    "T_FIXED",
    "T_GRID",
    "constant_term",
    "parameter_effects",
    "rank_measure",
    "family_measures",
    "params_at",
    "threshold_at",
    "update_count",
]

#: Figure 1's instance (arm a, arm b)
MU = (0.0, -0.2)
SIGMA2 = (1.0, 0.5)
#: the ln(1/δ) grid of Figure 1(a) and its fixed time
DELTA_GRID = tuple(float(x) for x in range(1, 21))
T_FIXED = 5000
#: the last decade of Figure 1(b)'s range (t up to 1e5), at its δ
T_GRID = tuple(int(2 * round(0.5 * 10 ** (4 + k / 20))) for k in range(21))
DELTA_FIXED = 0.01
#: (eta0 = eta1) as multiples of the paper's 1/ln(1/δ) at δ = 0.01
ETA_SCALES = (0.5, 1.0, 2.0)
S_GRID = (1.5, 2.0, 3.0)
GAMMA_GRID = (1.1, 1.2, 1.5)
#: the points where the thresholds are ranked (t, ln(1/δ)): Figure 1's common point, the
#: end of its t axis and of its ln(1/δ) axis
RANK_POINTS = (
    (T_FIXED, math.log(1.0 / DELTA_FIXED)),
    (T_GRID[-1], math.log(1.0 / DELTA_FIXED)),
    (T_FIXED, DELTA_GRID[-1]),
)
#: the families ranked, by stopping rule (Figure 1: GLR, Figure 4: EV-GLR; a GLR and an
#: EV-GLR threshold bound different statistics, so they are not ranked together)
RANK_GROUPS = {
    "GLR": ("heuristic", "student", "box", "kl", "bob"),
    "EV-GLR": ("heuristic", "ev-student", "ev-box", "ev-bob"),
}
RANK_FAMILIES = tuple(dict.fromkeys(f for g in RANK_GROUPS.values() for f in g))
#: the paper's value of each parameter (its grid's reference)
PAPER_VALUES = {"eta": 1.0, "s": 2.0, "gamma": 1.2}
#: the paper's families that read each parameter (thresholds.families, kernels): eta0 the
#: lower variance box (Box, EV-Box, and the ratio R of KL, BoB, EV-BoB), eta1 the upper one
#: (R only); s every union bound but the heuristic's; gamma the peeling of R
FAMILIES_BY_PARAMETER = {
    "eta": ("box", "ev-box", "kl", "bob", "ev-bob"),
    "s": ("student", "ev-student", "box", "ev-box", "kl", "bob", "ev-bob"),
    "gamma": ("kl", "bob", "ev-bob"),
}


def params_at(parameter: str, value: float):
    """The :class:`baiuv.thresholds.ThresholdParams` with ``parameter`` at ``value`` (for
    ``"eta"``, ``eta0 = eta1 = value / ln(1/DELTA_FIXED)``) and the others at the paper's
    values (``eta`` then ``1/ln(1/δ)`` at each δ)."""
    # numba loads with the thresholds, only where one is built
    from baiuv.thresholds.families import ThresholdParams

    if parameter == "eta":
        eta = float(value) / math.log(1.0 / DELTA_FIXED)
        return ThresholdParams(eta0=eta, eta1=eta)
    if parameter == "s":
        return ThresholdParams(s=float(value))
    if parameter == "gamma":
        return ThresholdParams(gamma=float(value))
    raise ValueError(f"parameter must be 'eta', 's' or 'gamma', got {parameter!r}")


def threshold_at(name: str, params, log_inv_delta: float, n: int, *, backend="auto") -> float:
    """The threshold of family ``name`` at ``N_a = N_b = n`` (``t = 2n``), with the arms'
    states (KL, BoB, EV-BoB) recorded from the moments ``MU``, ``SIGMA2``."""
    # numba loads with the thresholds, only where one is built
    from baiuv.thresholds.families import make_threshold, pair_threshold

    states = {}
    if name in STATEFUL:
        spec = make_threshold(name, 2, params=params, log_inv_delta=log_inv_delta)
        for key, c in (("state_a", 0), ("state_b", 1)):
            st = _k.new_state()
            _k.update_state(spec.code, spec.fparams, st, int(n), MU[c], SIGMA2[c])
            states[key] = st
    kw = {"backend": backend} if name in ("bob", "ev-bob") else {}
    return pair_threshold(
        name,
        n_a=int(n),
        n_b=int(n),
        t=2.0 * n,
        K=2,
        params=params,
        log_inv_delta=log_inv_delta,
        **states,
        **kw,
    )


def update_count(gamma: float, n_max: int) -> int:
    """How many times :func:`baiuv.thresholds.kernels.update_state` records a new peeling
    level of an arm fed counts ``1 .. n_max`` (the updates of the ratio ``R``)."""
    # numba loads with the thresholds, only where one is built
    from baiuv.thresholds.families import make_threshold

    spec = make_threshold("kl", 2, params=params_at("gamma", gamma), log_inv_delta=1.0)
    st = _k.new_state()
    updates = 0
    for n in range(1, int(n_max) + 1):
        before = st[_k.S_LEVEL]
        _k.update_state(spec.code, spec.fparams, st, n, 0.0, 1.0)
        updates += int(st[_k.S_LEVEL] != before)
    return updates


def constant_term(name: str, params) -> float:
    """The constant term of family ``name``'s threshold at ``params`` (K = 2, D340: the part
    depending on neither t nor δ): its log term ``ln(C ζ(s)^k / δ)`` minus ``ln(1/δ)``,
    read from :func:`baiuv.thresholds.families.make_threshold`'s ``fparams`` --
    Box, EV-Box: ``ln(4(K−1)ζ(s))`` (Lemma 4's box term); KL: ``ln(2ζ(s)²)`` (the main
    term of c^KL); BoB, EV-BoB: ``ln(2ζ(s)²) + ln 2`` (their KL part at δ/2); Student,
    EV-Student: ``ln(4(K−1)ζ(s))`` (the level δ/(4(K−1)ζ(s)n^s) of the quantile without
    its n^s; the spec stores ``ln(2 α_n) + s ln n``)."""
    # numba loads with the thresholds, only where one is built
    from baiuv.thresholds.families import make_threshold

    lid = DELTA_GRID[0]
    fp = make_threshold(name, 2, params=params, log_inv_delta=lid).fparams
    if name in ("box", "ev-box"):
        return float(fp[_k.P_LBOX] - lid)
    if name in ("kl", "bob", "ev-bob"):
        return float(fp[_k.P_LMAIN] - lid)
    if name in ("student", "ev-student"):
        return float(-fp[_k.P_LSTUD] - lid + math.log(2.0))
    raise ValueError(f"no constant term read for threshold family {name!r}")


def rank_measure(t: int, log_inv_delta: float) -> str:
    """The table's name of the threshold's value at ``(t, ln(1/δ))`` (ranked by
    :func:`baiuv.experiments.threshold_param_claims.parameter_claims`)."""
    return f"value at t = {t}, ln(1/δ) = {log_inv_delta:.4g}"


def _slope(x: Sequence[float], y: Sequence[float]) -> float:
    return float(np.polyfit(np.asarray(x, float), np.asarray(y, float), 1)[0])


def family_measures(name: str, params, *, backend: str = "auto") -> dict[str, float]:
    """``delta_slope``, ``time_slope``, ``low_delta_value`` and, for the families reading
    s, ``constant`` of family ``name`` with ``params`` (the module's definitions)."""
    d = [threshold_at(name, params, x, T_FIXED // 2, backend=backend) for x in DELTA_GRID]
    lt = math.log(1.0 / DELTA_FIXED)
    v = [threshold_at(name, params, lt, t // 2, backend=backend) for t in T_GRID]
    out = {
        "delta_slope": _slope(DELTA_GRID, d),
        "time_slope": _slope(np.log(T_GRID), v),
        "low_delta_value": float(d[0]),
    }
    if name in FAMILIES_BY_PARAMETER["s"]:
        out["constant"] = constant_term(name, params)
    return out


def parameter_effects(*, backend: str = "auto") -> pd.DataFrame:
    """The measures of every family that reads each parameter, on the parameter's grid.

    Columns ``parameter, value, family, measure, statistic``; ``value`` is the grid's (the
    multiple of ``1/ln(1/δ)`` for ``eta``); the heuristic's ``delta_slope`` and
    ``time_slope`` (the ideal dependencies) come with ``parameter = "none"``.
    """
    # numba loads with the thresholds, only where one is built
    from baiuv.thresholds.families import ThresholdParams

    rows = []
    for m, x in family_measures("heuristic", ThresholdParams(), backend=backend).items():
        rows.append(
            dict(parameter="none", value=math.nan, family="heuristic", measure=m, statistic=x)
        )
    grids = {"eta": ETA_SCALES, "s": S_GRID, "gamma": GAMMA_GRID}
    for parameter, grid in grids.items():
        for value in grid:
            params = params_at(parameter, value)
            for name in FAMILIES_BY_PARAMETER[parameter]:
                for m, x in family_measures(name, params, backend=backend).items():
                    rows.append(
                        dict(parameter=parameter, value=value, family=name, measure=m, statistic=x)
                    )
            for name in RANK_FAMILIES:
                for t, lid in RANK_POINTS:
                    x = threshold_at(name, params, lid, t // 2, backend=backend)
                    rows.append(
                        dict(
                            parameter=parameter,
                            value=value,
                            family=name,
                            measure=rank_measure(t, lid),
                            statistic=x,
                        )
                    )
            if parameter == "gamma":
                n = update_count(value, T_GRID[-1] // 2)
                rows.append(
                    dict(
                        parameter=parameter,
                        value=value,
                        family="kl, bob, ev-bob",  # one state update for the three
                        measure="updates",
                        statistic=float(n),
                    )
                )
    return pd.DataFrame(rows)
