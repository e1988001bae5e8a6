"""Threshold experiments of Section ssec:simulations_stopping_thresholds and Appendix
app:sss_exp_thresholds: curves against ln(1/delta) and t, initial times, evaluation costs,
and their Markdown tables.

Setting: K = 2 arms, instance ``(mu, sigma2)`` (paper: ``(0, -0.2)``, ``(1, 0.5)``), data
stream alternating between the arms (arm a first), so at time ``t``
``N_a = ceil(t/2)``, ``N_b = floor(t/2)``. Deterministic families are computed once;
data-dependent ones (kl, bob, ev-bob) on ``streams`` independent streams.

The threshold families, their kernels and the BoB solvers (numba) are imported by the
functions that compute thresholds, so the job that renders the Markdown tables does not
import numba.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

import numpy as np
import pandas as pd

from baiuv._deferred import DeferredModule
from baiuv.model.validate import log_inv_delta_of
from baiuv.registry import EV_FAMILIES, FAMILIES, PAPER_FAMILIES, STATEFUL, THRESHOLD_FAMILIES
from baiuv.simulation.rng import run_generator
from baiuv.tables import markdown_table

if TYPE_CHECKING:
    from baiuv.thresholds.families import ThresholdParams

#: The threshold kernels, imported by the first function that computes a threshold.
_k = DeferredModule("baiuv.thresholds.kernels")

__all__ = [
    "CurveGrid",
    "curve_grid",
    "threshold_curves",
    "initial_times",
    "threshold_costs",
    "ipopt_agreement",
    "agreement_summary",
    "family_rule",
    "initial_times_markdown",
    "costs_markdown",
    "agreement_markdown",
]


def _tabulated() -> list[str]:
    """The families of the initial-time and cost tables: those drawn with the paper's
    (:data:`~baiuv.registry.PAPER_FAMILIES`) whose formula is a built-in kernel (a family
    registered with its own kernel has no statement of initial times)."""
    return [f for f in PAPER_FAMILIES if THRESHOLD_FAMILIES[f].kernel is None]


def family_rule(name: str) -> str:
    """``"glr"``, ``"ev"`` or ``"both"`` (heuristic)."""
    if name == "heuristic":
        return "both"
    return "ev" if name in EV_FAMILIES else "glr"


def _grid_points(axis, t_fixed, delta_fixed, log_inv_delta, times) -> list[tuple]:
    """``(x, ln(1/delta), t)`` of each grid point along ``axis`` (levels carried as
    ``ln(1/delta)``: no underflow for large grids)."""
    if axis == "delta":
        xs = np.asarray(log_inv_delta, dtype=float)
        if xs.size == 0 or np.any(xs <= 0):
            raise ValueError("log_inv_delta must be a non-empty grid of positive values")
        return [(float(x), float(x), int(t_fixed)) for x in xs]
    ts = np.asarray(times, dtype=np.int64)
    if ts.size == 0 or np.any(ts < 2):
        raise ValueError("times must be a non-empty grid of integers >= 2")
    if not (0 < delta_fixed < 1):
        raise ValueError(f"delta_fixed must be in (0, 1), got {delta_fixed!r}")
    return [(float(t), math.log(1.0 / float(delta_fixed)), int(t)) for t in ts]


def _pair_states(spec, xs_r, na: int, nb: int) -> list:
    """Per-arm states of the stateful family ``spec`` after ``na``/``nb`` samples of the
    two-arm stream ``xs_r``."""
    return [
        _k.states_at_counts(spec.code, spec.fparams, xs_r[c], np.array([n]))[0]
        for c, n in ((0, na), (1, nb))
    ]


def _check_axis_streams(axis: str, streams: int) -> None:
    if axis not in ("delta", "time"):
        raise ValueError(f"axis must be 'delta' or 'time', got {axis!r}")
    if int(streams) < 1:
        raise ValueError(f"streams must be >= 1, got {streams!r}")


def _streams(seed: int, seed_offset: int, R: int, n_max: int, mu, sigma2):
    out = []
    for r in range(R):
        rng = run_generator(seed, "thresholds", "alternating", "stream", seed_offset + r)
        out.append(
            np.stack([mu[c] + math.sqrt(sigma2[c]) * rng.standard_normal(n_max) for c in (0, 1)])
        )
    return out


class CurveGrid(NamedTuple):
    """The grid of the threshold curves (:func:`curve_grid`)."""

    params: ThresholdParams
    #: ``(x, ln(1/delta), t, delta, N_a, N_b)`` of each grid point; ``delta`` is the
    #: table's column: ``delta_fixed`` on the time axis, else ``exp(-x)`` (0.0 once it
    #: underflows)
    points: list[tuple]
    #: the two-arm data streams, arrays of shape ``(2, N_max)``
    streams: list[np.ndarray]


def curve_grid(
    axis: str,
    *,
    mu: Sequence[float] = (0.0, -0.2),
    sigma2: Sequence[float] = (1.0, 0.5),
    params: ThresholdParams | None = None,
    t_fixed: int = 5000,
    delta_fixed: float = 0.01,
    log_inv_delta: Sequence[float] = (),
    times: Sequence[int] = (),
    streams: int = 10,
    seed: int = 0,
    seed_offset: int = 0,
) -> CurveGrid:
    """The grid shared by :func:`threshold_curves` and :func:`ipopt_agreement`, which
    take these keyword arguments: ``axis="delta"``, the ``log_inv_delta`` grid at
    ``t_fixed``; ``axis="time"``, the ``times`` grid at ``delta_fixed``; ``streams``
    data streams alternating between the two arms of the instance ``(mu, sigma2)``
    (arm a first, so ``N_a = ceil(t/2)``, ``N_b = floor(t/2)``), seeded by ``seed`` and
    numbered from ``seed_offset``; ``params`` of the thresholds (default
    :class:`ThresholdParams`)."""
    # numba loads with the thresholds, only where one is built
    from baiuv.thresholds.families import ThresholdParams

    _check_axis_streams(axis, streams)
    if len(mu) != 2 or len(sigma2) != 2 or min(sigma2) <= 0:
        raise ValueError("mu and sigma2 must have 2 entries (K = 2), sigma2 > 0")
    grid = _grid_points(axis, t_fixed, delta_fixed, log_inv_delta, times)
    points = [
        (x, lid, t, float(delta_fixed) if axis == "time" else math.exp(-lid), (t + 1) // 2, t // 2)
        for x, lid, t in grid
    ]
    n_max = max(t for _, _, t in grid) // 2 + 1
    data = _streams(seed, seed_offset, int(streams), n_max, mu, sigma2)
    return CurveGrid(params or ThresholdParams(), points, data)


def threshold_curves(
    axis: str, *, families: Sequence[str] = PAPER_FAMILIES, backend: str = "auto", **grid
) -> pd.DataFrame:
    """Thresholds along ``axis="delta"`` (ln(1/delta) grid at ``t_fixed``) or ``axis="time"``
    (t grid at ``delta_fixed``), figures fig:stopping_thresholds_evolutions_glrt/_evglrt.

    Returns a long DataFrame with columns ``axis, family, rule, x, delta, t, n_a, n_b,
    stream, value`` (``stream = -1`` for deterministic families; ``value = inf`` before the
    initial times). BoB values failing to solve raise (never silently replaced). The grid
    (``mu``, ``sigma2``, ``params``, ``t_fixed``, ``delta_fixed``, ``log_inv_delta``,
    ``times``, ``streams``, ``seed``, ``seed_offset``): keyword arguments of
    :func:`curve_grid`.
    """
    # numba loads with the thresholds, only where one is built
    from baiuv.thresholds.families import make_threshold, pair_threshold

    for f in families:
        if f not in FAMILIES:
            raise ValueError(f"families must be in {FAMILIES}, got {f!r}")
    params, points, data = curve_grid(axis, **grid)
    rows = []
    for name in families:
        det = name not in STATEFUL
        for x, lid, t, delta, na, nb in points:
            base = dict(
                axis=axis,
                family=name,
                rule=family_rule(name),
                x=x,
                delta=delta,
                t=t,
                n_a=na,
                n_b=nb,
            )
            if det:
                v = pair_threshold(name, n_a=na, n_b=nb, t=t, K=2, params=params, log_inv_delta=lid)
                rows.append(base | dict(stream=-1, value=v))
                continue
            spec = make_threshold(name, 2, params=params, log_inv_delta=lid)
            for r, xs_r in enumerate(data):
                st = _pair_states(spec, xs_r, na, nb)
                v = pair_threshold(
                    name,
                    n_a=na,
                    n_b=nb,
                    t=t,
                    K=2,
                    params=params,
                    log_inv_delta=lid,
                    state_a=st[0],
                    state_b=st[1],
                    backend=backend,
                )
                rows.append(base | dict(stream=r, value=v))
    return pd.DataFrame(rows)


def initial_times(
    deltas: Sequence[float], *, params: ThresholdParams | None = None, K: int = 2
) -> pd.DataFrame:
    """Initial times per family and delta, as per-arm counts.

    ``statement_count``: the count from the statement's initial times (:func:`initial_count`);
    ``first_finite_count``: the first ``n`` with a finite threshold at ``N_a = N_b = n`` (for
    KL/BoB the data-dependent term can be infinite a bit longer, decision D16; finiteness
    does not depend on the data); ``monotonicity_count``: the first count satisfying the
    monotonicity condition ``t^m(delta)`` (eq:def_initial_time_monotonicity) alone, for KL
    (``t^m(delta/2)`` for BoB; missing for the other families); ``count_at_third``: for Box,
    the statement's count at ``delta/3`` (the split inside the KL theorem, decision D21), the
    other reading of the paper's Box counts.
    """
    # numba loads with the thresholds, only where one is built
    from baiuv.thresholds.concentration import monotonicity_initial_count
    from baiuv.thresholds.families import (
        ThresholdParams,
        initial_count,
        make_threshold,
        new_arm_state,
    )

    params = params or ThresholdParams()
    rows = []
    dummy = np.linspace(-1.0, 1.0, 4096)  # any non-degenerate data
    for delta in deltas:
        # each level converted once; delta/2 and delta/3 as the table's readings state them
        lid = log_inv_delta_of(delta)
        for name in _tabulated():
            if name == "heuristic":
                continue
            n0 = initial_count(name, K, params=params, log_inv_delta=lid)
            first = None
            spec = make_threshold(name, K, params=params, log_inv_delta=lid)
            counts = np.arange(1, 4097)
            states = (
                _k.states_at_counts(spec.code, spec.fparams, dummy, counts)
                if name in STATEFUL
                else None
            )
            for n in range(2, 4097):
                st = states[n - 1] if states is not None else new_arm_state()
                if name in ("bob", "ev-bob"):
                    C, D, E = _bob_cde(spec, n, st)
                    finite = n >= spec.fparams[_k.P_NMIN] and np.all(D > 0)
                else:
                    v = _k.pair_threshold_kernel(
                        spec.code, spec.fparams, spec.table, 2.0 * n, n, n, st, st
                    )
                    finite = math.isfinite(v)
                if finite:
                    first = n
                    break
            mono = math.nan
            if name in ("kl", "bob"):
                e0, e1 = params.etas(log_inv_delta=lid)
                lid_m = lid if name == "kl" else log_inv_delta_of(delta / 2)
                mono = monotonicity_initial_count(
                    K=K, s=params.s, eta0=e0, eta1=e1, log_inv_delta=lid_m
                )
            rows.append(
                dict(
                    delta=delta,
                    family=name,
                    rule=family_rule(name),
                    statement_count=n0,
                    first_finite_count=first,
                    monotonicity_count=mono,
                    count_at_third=(
                        initial_count(
                            name, K, params=params, log_inv_delta=log_inv_delta_of(delta / 3)
                        )
                        if name == "box"
                        else math.nan
                    ),
                )
            )
    return pd.DataFrame(rows)


def _bob_cde(spec, n, st):
    fp = spec.fparams
    c, d = _k.box_constants(float(n), fp[_k.P_LBOX], fp[_k.P_S], fp[_k.P_ETA0])
    return np.array([c, c]), np.array([d, d]), math.inf


def threshold_costs(
    *,
    delta: float = 0.01,
    n: int = 2500,
    repeats: int = 20,
    params: ThresholdParams | None = None,
    seed: int = 0,
    backend: str = "auto",
) -> pd.DataFrame:
    """Wall-clock cost of one threshold evaluation per family at ``N_a = N_b = n``.

    ``python_s``: one :func:`pair_threshold` call (BoB through ``backend``, resolved to a
    concrete one in the column ``bob_backend``: ``auto`` is the exact solver whenever it is
    installed); ``ipopt_s``: for bob/ev-bob, one Pyomo + Ipopt solve (backend in
    ``ipopt_backend``, the executable when one exists, else cyipopt; NaN without Ipopt);
    ``kernel_s``: one numba ``pair_threshold_kernel`` call Median over ``repeats``.
    """
    # numba loads with the thresholds, only where one is built
    from baiuv.thresholds.bob import ipopt_backend, resolve_backend
    from baiuv.thresholds.families import ThresholdParams, make_threshold, pair_threshold

    lid = log_inv_delta_of(delta)
    used = resolve_backend(backend)
    ipb = ipopt_backend()
    params = params or ThresholdParams()
    rng = run_generator(seed, "thresholds", "costs", "stream", 0)
    xa = rng.standard_normal(n)
    xb = -0.2 + math.sqrt(0.5) * rng.standard_normal(n)
    rows = []
    for name in _tabulated():
        spec = make_threshold(name, 2, params=params, log_inv_delta=lid)
        sa = _k.states_at_counts(spec.code, spec.fparams, xa, np.array([n]))[0]
        sb = _k.states_at_counts(spec.code, spec.fparams, xb, np.array([n]))[0]
        kw = dict(n_a=n, n_b=n, t=2 * n, K=2, params=params, log_inv_delta=lid)
        kw.update(state_a=sa, state_b=sb)
        if name not in STATEFUL:
            kw.pop("state_a")
            kw.pop("state_b")
        value = (
            pair_threshold(name, backend=backend, **kw)
            if name in ("bob", "ev-bob")
            else (pair_threshold(name, **kw))
        )
        py = []
        for _ in range(int(repeats)):
            t0 = time.perf_counter()
            if name in ("bob", "ev-bob"):
                pair_threshold(name, backend=backend, **kw)
            else:
                pair_threshold(name, **kw)
            py.append(time.perf_counter() - t0)
        ip = math.nan
        if name in ("bob", "ev-bob") and ipb is not None:
            pair_threshold(name, backend=ipb, **kw)  # builds and caches the Pyomo model
            ip = _median_time(
                lambda name=name, kw=kw: pair_threshold(name, backend=ipb, **kw), int(repeats)
            )
        _k.pair_threshold_loop(spec.code, spec.fparams, spec.table, n, sa, sb, 10)  # compile
        reps = 2000
        t0 = time.perf_counter()
        _k.pair_threshold_loop(spec.code, spec.fparams, spec.table, n, sa, sb, reps)
        kern = (time.perf_counter() - t0) / reps
        rows.append(
            dict(
                family=name,
                rule=family_rule(name),
                value=value,
                python_s=float(np.median(py)),
                kernel_s=kern,
                bob_backend=used,
                ipopt_s=ip,
                ipopt_backend=ipb or "",
            )
        )
    df = pd.DataFrame(rows)
    bob_py = float(df.loc[df.family == "bob", "python_s"].iloc[0])
    df["bob_over_python"] = bob_py / df["python_s"]
    return df


def _median_time(fn, repeats: int) -> float:
    out = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return float(np.median(out))


#: The range of ln(1/δ) on which Figures 1(a) and 4(a) are judged, whatever the grid of a
#: run: the figures' own range (decision D233). The wide-range behaviour of BoB is the
#: separate row of :func:`baiuv.experiments.threshold_claims.bob_slope_claim`.
FIGURE_RANGE = (1.0, 20.0)

#: A local maximum: an Ipopt value below the global maximum by more than this (relative),
#: the tolerance of the certification in :func:`~baiuv.thresholds.bob.solve_bob` (D172).
LOCAL_MAX_TOL = 1e-6

#: Ipopt options of the re-solves of a program flagged as a local maximum: a tolerance 1e4
#: times tighter than the pipeline's 1e-10, and interior starting points pushed to several
#: distances from the bounds (``bound_push``/``bound_frac``) and barrier parameters.
TIGHT_RESOLVES = (
    {"tol": 1e-14, "acceptable_tol": 1e-14, "max_iter": 5000},
    {"tol": 1e-14, "acceptable_tol": 1e-14, "max_iter": 5000, "bound_push": 0.1, "bound_frac": 0.1},
    {"tol": 1e-14, "acceptable_tol": 1e-14, "max_iter": 5000, "bound_push": 0.4, "bound_frac": 0.4},
    {"tol": 1e-14, "acceptable_tol": 1e-14, "max_iter": 5000, "mu_init": 1.0},
)


def _tight_resolve(counts, C, D, E, *, ev: bool, backend: str) -> float:
    """The best objective Ipopt reaches on one program over :data:`TIGHT_RESOLVES` (NaN if
    every re-solve fails): still below the global maximum by more than
    :data:`LOCAL_MAX_TOL`, Ipopt stops below the maximum from every start tried (no second
    maximiser is computed); within it, the first answer was Ipopt's stopping tolerance."""
    # numba loads with the thresholds, only where one is built
    from baiuv.thresholds.bob import BobSolverError, ipopt_solution

    best = math.nan
    for opts in TIGHT_RESOLVES:
        try:
            v = ipopt_solution(counts, C, D, E, ev=ev, backend=backend, options=dict(opts))
        except BobSolverError:
            continue
        best = v if not math.isfinite(best) else max(best, v)
    return best


def ipopt_agreement(
    axis: str,
    *,
    families: Sequence[str] = ("bob", "ev-bob"),
    backend: str | None = None,
    streams: int = 1,
    **grid,
) -> pd.DataFrame:
    """BoB and EV-BoB on the grid of :func:`threshold_curves` (same streams: its first
    ``streams``), solved by the exact global solver and by the Pyomo model through Ipopt
    (``backend``: ``"ipopt"`` or ``"cyipopt"``; ``None``: :func:`ipopt_backend`).

    One row per finite grid point and stream: ``axis, family, x, delta, t, stream, exact,
    ipopt`` (Ipopt's objective at its returned point, feasibility-checked, *not* certified;
    NaN when Ipopt failed), ``rel_diff = (exact - ipopt)/exact``, ``local_max`` (Ipopt below
    the global maximum by more than 1e-6 relative, the tolerance of the certification in
    :func:`~baiuv.thresholds.bob.solve_bob`), ``ipopt_tight`` and ``tight_rel_diff`` (the
    best of the re-solves :data:`TIGHT_RESOLVES` of a flagged program, NaN elsewhere),
    ``status`` and the solve times. The grid:
    keyword arguments of :func:`curve_grid` (``streams`` defaults to 1 here).

    Raises
    ------
    ValueError
        On bad arguments; ``BobSolverError`` when no Ipopt backend is available.
    """
    # numba loads with the thresholds, only where one is built
    from baiuv.thresholds.bob import BobSolverError, ipopt_backend, ipopt_solution, solve_bob
    from baiuv.thresholds.families import bob_constants, make_threshold

    for f in families:
        if f not in ("bob", "ev-bob"):
            raise ValueError(f"families must be 'bob' or 'ev-bob', got {f!r}")
    params, points, data = curve_grid(axis, streams=streams, **grid)
    backend = backend or ipopt_backend()
    if backend is None:
        raise BobSolverError("no Ipopt backend (ipopt executable or cyipopt) available")
    rows, warmed = [], set()
    for name in families:
        ev = name == "ev-bob"
        for x, lid, t, delta, na, nb in points:
            spec = make_threshold(name, 2, params=params, log_inv_delta=lid)
            if min(na, nb) < spec.fparams[_k.P_NMIN]:
                continue
            for r, xs_r in enumerate(data):
                st = _pair_states(spec, xs_r, na, nb)
                C, D, E = bob_constants(
                    name, na, nb, st[0], st[1], K=2, params=params, log_inv_delta=lid
                )
                if not np.all(D > 0):
                    continue
                if name not in warmed:  # compile / build the model outside the timings
                    warmed.add(name)
                    solve_bob([na, nb], C, D, E, ev=ev, backend="exact")
                    try:
                        ipopt_solution([na, nb], C, D, E, ev=ev, backend=backend)
                    except BobSolverError:
                        pass
                t0 = time.perf_counter()
                exact = solve_bob([na, nb], C, D, E, ev=ev, backend="exact")
                t1 = time.perf_counter()
                try:
                    ip, status = ipopt_solution([na, nb], C, D, E, ev=ev, backend=backend), "ok"
                except BobSolverError as exc:
                    ip, status = math.nan, str(exc)[:120]
                t2 = time.perf_counter()
                rel = (exact - ip) / exact if math.isfinite(ip) else math.nan
                tight = math.nan
                if math.isfinite(ip) and rel > LOCAL_MAX_TOL:
                    tight = _tight_resolve([na, nb], C, D, E, ev=ev, backend=backend)
                rows.append(
                    dict(
                        axis=axis,
                        family=name,
                        x=x,
                        delta=delta,
                        t=t,
                        stream=r,
                        exact=exact,
                        ipopt=ip,
                        rel_diff=rel,
                        local_max=bool(math.isfinite(ip) and rel > LOCAL_MAX_TOL),
                        ipopt_tight=tight,
                        tight_rel_diff=(exact - tight) / exact
                        if math.isfinite(tight)
                        else math.nan,
                        status=status,
                        backend=backend,
                        exact_s=t1 - t0,
                        ipopt_s=t2 - t1,
                    )
                )
    return pd.DataFrame(rows)


def agreement_summary(df: pd.DataFrame) -> pd.DataFrame:
    """Per family and axis: programs solved, Ipopt failures, local maxima caught (Ipopt below
    the global maximum), the largest relative difference ``|exact - ipopt|/exact`` over the
    programs Ipopt solved, the largest shortfall, and the median solve times (``nan`` when
    ``df`` has no timing columns ``exact_s``, ``ipopt_s``: the result file keeps them apart,
    in its timing file)."""
    rows = []
    for (fam, axis), g in df.groupby(["family", "axis"], sort=True):
        ok = g[np.isfinite(g["ipopt"])]
        rows.append(
            dict(
                family=fam,
                axis=axis,
                backend=str(g["backend"].iloc[0]),
                programs=len(g),
                failures=int(len(g) - len(ok)),
                local_maxima=int(ok["local_max"].sum()),
                # a flagged program stays a local maximum unless a tighter re-solve closed
                # the gap (a re-solve that failed does not clear it)
                confirmed_local_maxima=int(
                    (ok["local_max"] & ~(ok.get("tight_rel_diff", ok["rel_diff"]) <= LOCAL_MAX_TOL))
                    .astype(bool)
                    .sum()
                ),
                max_abs_rel_diff=float(ok["rel_diff"].abs().max()) if len(ok) else math.nan,
                max_shortfall=float(ok["rel_diff"].max()) if len(ok) else math.nan,
                exact_median_us=float(g.get("exact_s", pd.Series([math.nan])).median() * 1e6),
                ipopt_median_ms=float(g.get("ipopt_s", pd.Series([math.nan])).median() * 1e3),
            )
        )
    return pd.DataFrame(rows)


# Section sec:calibration_stopping_rules: Box condition after 16 (delta=0.1) and 20
# (delta=0.001) samples per arm; KL monotonicity condition after 2 samples.
PAPER_BOX = {0.1: 16, 0.001: 20}
# Section ssec:simulations_stopping_thresholds: BoB cost / family cost.
PAPER_COST_RATIO = {"kl": 400, "box": 600, "student": 800}


def initial_times_markdown(df: pd.DataFrame, params: dict) -> str:
    """Table of initial counts per family (rows) and delta (columns)."""
    wide = df.pivot(
        index="family", columns="delta", values=["statement_count", "first_finite_count"]
    )
    deltas = sorted(df["delta"].unique(), reverse=True)
    rows = []
    for fam in df["family"].unique():
        row = {"family": fam}
        for d in deltas:
            a = int(wide.loc[fam, ("statement_count", d)])
            b = int(wide.loc[fam, ("first_finite_count", d)])
            row[f"δ={d:g}"] = f"{a}" if a == b else f"{a} (finite from {b})"
        rows.append(row)
        if fam == "box" and "count_at_third" in df.columns:
            third = df[df["family"] == "box"].set_index("delta")["count_at_third"]
            rows.append(
                {"family": "box at δ/3 (D21)", **{f"δ={d:g}": f"{int(third[d])}" for d in deltas}}
            )
    text = (
        "Per-arm count from which each threshold is finite (alternating stream, K = 2, "
        f"s = {params.get('s')}, γ = {params.get('gamma')}, η0 = η1 = "
        f"{params.get('eta0') or '1/ln(1/δ)'}). First number: the initial times of the "
        "statement as counts; in parentheses, when later, the first count at which the "
        "KL term R is informative (decision D16).\n\n"
    )
    text += markdown_table(pd.DataFrame(rows))
    text += (
        "\nPaper: Box condition after 16 samples per arm at δ = 0.1 and 20 at δ = 0.001; KL "
        "monotonicity condition after 2. The row `box at δ/3` evaluates the Box condition at "
        "δ/3 (the level used inside the KL theorem, decision D21), the other reading of the "
        "paper's counts; the reproduction report compares both readings with the paper.\n"
    )
    return text


#: Readable names of the BoB backends (the ``bob_backend`` column of the cost table).
BACKEND_LABELS = {
    "exact": "exact global solver",
    "cyipopt": "Pyomo + Ipopt (cyipopt)",
    "ipopt": "Pyomo + Ipopt (executable)",
}


def backend_label(backend: str) -> str:
    """Human-readable name of a concrete BoB backend (``exact``, ``cyipopt``, ``ipopt``)."""
    if backend not in BACKEND_LABELS:
        raise ValueError(f"backend must be one of {tuple(BACKEND_LABELS)}, got {backend!r}")
    return BACKEND_LABELS[backend]


def costs_markdown(df: pd.DataFrame, params: dict) -> str:
    """Table of evaluation costs and BoB cost ratios (BoB by the backend actually used, and
    by Pyomo + Ipopt when available)."""
    d = df.copy()
    bob = d[d.family == "bob"].iloc[0]
    bob_k = float(bob["kernel_s"])
    used = str(bob.get("bob_backend", params.get("bob_backend", "auto")))
    label = backend_label(used) if used in ("exact", "cyipopt", "ipopt") else used
    cols = {
        "family": d["family"],
        "value": d["value"],
        "python call (µs)": d["python_s"] * 1e6,
        "numba kernel (µs)": d["kernel_s"] * 1e6,
        f"BoB ({label}) / python call": d["bob_over_python"],
    }
    ip = float(bob.get("ipopt_s", math.nan))
    iplabel = ""
    if math.isfinite(ip):
        iplabel = backend_label(str(bob["ipopt_backend"]))
        cols[f"BoB ({iplabel}) / python call"] = ip / d["python_s"]
    cols["BoB (numba) / kernel"] = bob_k / d["kernel_s"]
    cols["paper BoB ratio"] = [PAPER_COST_RATIO.get(f, float("nan")) for f in d["family"]]
    out = pd.DataFrame(cols)
    text = (
        "# Threshold evaluation costs (timings: machine-dependent)\n\n"
        f"Measured on: {params.get('machine', 'unknown machine')}.\n\n"
        "Wall-clock timings differ between machines and between runs on one machine; this "
        "table is kept apart from the results (`results/tables/`), which are reproducible "
        "byte for byte.\n\n"
        "Cost of one threshold evaluation at N_a = N_b = "
        f"{int(params.get('t_fixed', 5000)) // 2}, δ = {params.get('delta_fixed')}: median "
        "wall-clock of one Python `pair_threshold` call (BoB by the "
        f"{label}: configured backend `{params.get('bob_backend', 'auto')}`"
        + (
            ", which resolves to the exact solver whenever it is installed"
            if used == "exact"
            else ""
        )
        + ")"
        + (f"; one BoB solve by {iplabel} takes {ip * 1e3:.3g} ms" if iplabel else "")
        + "; and mean of one numba `pair_threshold_kernel` call (BoB through `bob_exact`). Measured "
        "on the machine that ran the pipeline.\n\n"
    )
    text += markdown_table(out, floatfmt=".4g")
    text += (
        "\nPaper: BoB costs on average 400, 600 and 800 times the KL, Box and Student "
        "thresholds (Julia/JuMP + Ipopt). Ratios depend on the implementation: our Student "
        "call evaluates a scipy quantile, while the kernel reads a precomputed table.\n"
    )
    return text


def agreement_markdown(df: pd.DataFrame, params: dict) -> str:
    """Agreement of Pyomo + Ipopt with the exact BoB solver on the figure grids."""
    s = agreement_summary(df)
    backend = str(s["backend"].iloc[0]) if len(s) else "none"
    tab = pd.DataFrame(
        {
            "family": s["family"],
            "grid": s["axis"].map({"delta": "ln(1/δ) (Fig. a)", "time": "t (Fig. b)"}),
            "programs": s["programs"],
            "Ipopt failures": s["failures"],
            "local maxima caught": s["local_maxima"],
            "still below after tighter re-solves": s["confirmed_local_maxima"],
            "max relative difference exact vs Ipopt": s["max_abs_rel_diff"],
        }
    )
    streams = int(df["stream"].max()) + 1 if len(df) else 0
    text = (
        f"BoB and EV-BoB programs of the threshold figures ({streams} data stream(s) of "
        f"{params.get('streams')}), solved by "
        f"{backend_label(backend) if backend in ('ipopt', 'cyipopt') else backend} and by the "
        "exact global solver. A local maximum is an Ipopt value below the global maximum by "
        "more than 1e-6 (relative); the pipeline's thresholds never use such a value "
        "(decisions D22, D30). Each such program is solved again by Ipopt with a tolerance of "
        "1e-14 (the pipeline uses 1e-10) from four starting conditions; a program still below "
        "by more than 1e-6 after all of them is counted as such (no second maximiser is "
        "computed, so this does not show a distinct local maximum), otherwise the gap was "
        "Ipopt's stopping tolerance. Solve times: `results/timings/ipopt_agreement.md`.\n\n"
    )
    text += markdown_table(tab, floatfmt=".3g")
    return text


def agreement_timings_markdown(df: pd.DataFrame, machine: str) -> str:
    """Median solve times of the agreement table's programs (machine-dependent: a timing
    file, not a result table), naming the ``machine``."""
    s = agreement_summary(df)
    tab = pd.DataFrame(
        {
            "family": s["family"],
            "grid": s["axis"],
            "programs": s["programs"],
            "median exact solve (µs)": s["exact_median_us"],
            "median Ipopt solve (ms)": s["ipopt_median_ms"],
        }
    )
    return (
        "# Solve times of the Ipopt agreement table\n\n"
        f"Measured on: {machine}.\n\n" + markdown_table(tab, floatfmt=".3g")
    )
