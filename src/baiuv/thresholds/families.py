"""Threshold families for the GLR and EV-GLR stopping rules.

Families (:data:`FAMILIES`): ``heuristic`` ``ln((1 + ln t)/delta)`` (Section ssec:experiments,
usable with both rules); GLR: ``student`` (Lemma lem:delta_correct_student_thresholds),
``box`` (Lemma lem:delta_correct_box_thresholds), ``kl`` (Theorem
thm:delta_correct_complex_threshold_glrt), ``bob`` (Corollary cor:delta_correct_Kinf_thresholds);
EV-GLR: ``ev-student`` (Lemma lem:delta_correct_student_thresholds_ev), ``ev-box`` (Lemma
lem:delta_correct_box_thresholds_ev), ``ev-bob`` (Corollary cor:delta_correct_Kinf_thresholds_ev).
Beyond the paper: ``ev-heuristic-student``, the heuristic recalibrated for the studentised
EV-GLR gap (``kernels.ev_heuristic_student``, not δ-correct; :mod:`baiuv.studies.ev_remedies`).

The numba entry points for the simulation engine are :func:`make_threshold` and
``kernels.pair_threshold_kernel``; :func:`pair_threshold` is the validated Python entry point (it
uses exact scipy Student quantiles at every count and :func:`~baiuv.thresholds.bob.solve_bob`
for BoB).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from baiuv.model.validate import (
    check_integer,
    check_real,
    delta_from_log,
    is_real,
    log_inv_delta_of,
)
from baiuv.registry import (
    EV_FAMILIES,
    FAMILIES,
    FAMILY_CODES,
    GLR_FAMILIES,
    STATEFUL,
    THRESHOLD_FAMILIES,
    THRESHOLD_PARAM_FIELDS,
    ThresholdFamily,
    family_parameter,
)

from . import kernels as _k
from .bob import solve_bob
from .concentration import (
    _box_initial_count_lid,
    _monotonicity_initial_count_lid,
    check_K,
    riemann_zeta,
)

__all__ = [
    "FAMILIES",
    "GLR_FAMILIES",
    "EV_FAMILIES",
    "FAMILY_CODES",
    "ThresholdParams",
    "ThresholdSpec",
    "make_threshold",
    "pair_threshold",
    "student_log_ratio",
    "student_quantile",
    "initial_count",
    "new_arm_state",
    "update_arm_state",
    "arm_state_from_samples",
    "bob_constants",
    "student_max_log_inv_delta",
    "STUDENT_LOG_ALPHA_MIN",
]

# FAMILIES, GLR_FAMILIES, EV_FAMILIES, FAMILY_CODES and STATEFUL come from the registry.
DEFAULT_TABLE_SIZE = 2**17
#: ``ln`` of the smallest Student tail probability ``alpha_n`` evaluated with scipy
#: (``e^-300``; decision D152: scipy's ``t.isf`` returns ``-inf`` or wrong values from about
#: ``e^-400`` on for small degrees of freedom). Below it the Student families refuse.
STUDENT_LOG_ALPHA_MIN = -300.0
LN2, LN3, LN6 = math.log(2.0), math.log(3.0), math.log(6.0)


@dataclass(frozen=True)
class ThresholdParams:
    """Hyper-parameters of the thresholds (Appendix app:ss_implementation_details).

    Parameters
    ----------
    s : float
        Peeling exponent ``s > 1`` (default 2).
    gamma : float
        Geometric grid ``gamma > 1`` of the KL/BoB data-dependent term (default 1.2).
    eta0, eta1 : float or None
        Slice ratios ``> 0``; ``None`` means ``1/ln(1/delta)`` (the paper's choice) with the
        nominal ``delta`` of the threshold (decision D12).
    kl_union_over_pairs : bool
        ``False`` (default) follows Theorem thm:delta_correct_complex_threshold_glrt as
        written (``ln(2 zeta(s)^2/delta)``); ``True`` adds ``ln(K-1)`` to the main term for the
        union bound over the ``K-1`` pairs (decision D11; identical for ``K = 2``).
    extra : tuple of (name, value) pairs
        Values of the parameters that registered families declare
        (:attr:`baiuv.registry.ThresholdFamily.params`), each within its schema's bounds;
        kept sorted by name. A family reads its own with :meth:`value`.
    """

    s: float = 2.0
    gamma: float = 1.2
    eta0: float | None = None
    eta1: float | None = None
    kl_union_over_pairs: bool = False
    extra: tuple[tuple[str, float], ...] = ()

    def __post_init__(self):
        object.__setattr__(self, "extra", _check_extra(self.extra))
        for name in ("s", "gamma"):
            v = check_real(getattr(self, name), name, "> 1")
            if not (v > 1.0) or math.isinf(v):
                raise ValueError(f"{name} must be a finite number > 1, got {getattr(self, name)!r}")
        for name in ("eta0", "eta1"):
            v = getattr(self, name)
            if v is not None and (not is_real(v) or not (float(v) > 0.0) or math.isinf(float(v))):
                raise ValueError(f"{name} must be None or a finite number > 0, got {v!r}")
        if not isinstance(self.kl_union_over_pairs, bool | np.bool_):
            raise ValueError(
                f"kl_union_over_pairs must be True or False, got {self.kl_union_over_pairs!r}"
            )

    def etas(self, delta: float | None = None, *, log_inv_delta=None) -> tuple[float, float]:
        """``(eta0, eta1)`` with ``None`` resolved to ``1/ln(1/delta)`` (give ``delta`` or
        ``log_inv_delta``)."""
        return self._etas(log_inv_delta_of(delta, log_inv_delta))

    def _etas(self, log_inv_delta: float) -> tuple[float, float]:
        """:meth:`etas` at ``ln(1/delta) = log_inv_delta`` (resolved by the caller)."""
        default = 1.0 / log_inv_delta
        e0 = default if self.eta0 is None else float(self.eta0)
        e1 = default if self.eta1 is None else float(self.eta1)
        return e0, e1

    def value(self, name: str):
        """The value of the family parameter ``name``: the one given in :attr:`extra`,
        else the declaring family's default."""
        for k, v in self.extra:
            if k == name:
                return v
        found = family_parameter(name)
        if found is None:
            raise ValueError(f"{name!r} is not a parameter of a registered threshold family")
        return found[1].default

    @classmethod
    def from_mapping(cls, mapping: Mapping | None) -> ThresholdParams:
        """Build from a ``threshold_params`` mapping: its keys among the fields go to the
        fields, the parameters of registered families to :attr:`extra` (a family ignores
        another's); ``ValueError`` naming the allowed keys on any other key."""
        if isinstance(mapping, ThresholdParams):
            return mapping
        fields, extra = {}, []
        for k, v in dict(mapping or {}).items():
            if k in THRESHOLD_PARAM_FIELDS:
                fields[k] = v
            elif isinstance(k, str) and family_parameter(k) is not None:
                extra.append((k, v))
            else:
                allowed = [*THRESHOLD_PARAM_FIELDS]
                allowed += [p.name for f in THRESHOLD_FAMILIES.values() for p in f.params]
                raise ValueError(
                    f"threshold_params keys must be among {', '.join(allowed)}; got {k!r}"
                )
        return cls(**fields, extra=tuple(extra))

    @classmethod
    def from_config(cls, cfg: dict) -> ThresholdParams:
        """Build from a config mapping with keys ``s``, ``gamma``, ``eta0``, ``eta1``."""
        return cls(
            s=float(cfg.get("s", 2.0)),
            gamma=float(cfg.get("gamma", 1.2)),
            eta0=cfg.get("eta0"),
            eta1=cfg.get("eta1"),
            kl_union_over_pairs=bool(cfg.get("kl_union_over_pairs", False)),
        )


def _check_extra(extra) -> tuple[tuple[str, float], ...]:
    """``extra`` checked (pairs of a registered family's parameter and a value within its
    bounds, each name once) and sorted by name."""
    if not isinstance(extra, tuple | list) or not all(
        isinstance(e, tuple | list) and len(e) == 2 and isinstance(e[0], str) for e in extra
    ):
        raise ValueError(f"extra must be a tuple of (name, value) pairs, got {extra!r}")
    out = {}
    for name, v in extra:
        found = family_parameter(name)
        if found is None or name in out:
            raise ValueError(
                f"extra names each parameter of a registered threshold family once, got {name!r}"
            )
        fam, p = found
        integer = p.schema["type"] == "integer"
        kind = "an integer" if integer else "a number"
        if (
            not is_real(v)
            or isinstance(v, bool | np.bool_)
            or (integer and int(v) != v)
            or not p.accepts(v)
        ):
            raise ValueError(
                f"{name} (parameter of threshold family {fam.name!r}) must be {kind} "
                f"{p.allowed}, got {v!r}"
            )
        out[name] = int(v) if integer else float(v)
    return tuple(sorted(out.items()))


class ThresholdSpec(NamedTuple):
    """Numba-ready description of one threshold: ``code`` (see ``kernels``), ``fparams``
    (float64, layout ``kernels.P_*``) and ``table`` (Student ``y_n`` by count; else empty)."""

    code: int
    fparams: np.ndarray
    table: np.ndarray


def _check_family(name: str) -> str:
    if name not in FAMILIES:
        raise ValueError(f"family must be one of {FAMILIES}, got {name!r}")
    return name


def _check_params(params) -> ThresholdParams:
    if params is None:
        return ThresholdParams()
    if not isinstance(params, ThresholdParams):
        raise ValueError(f"params must be a ThresholdParams, got {type(params).__name__}")
    return params


# ----------------------------------------------------------------------------- Student
def student_max_log_inv_delta(n_max: float, *, K: int = 2, s: float = 2.0) -> float:
    """Largest ``ln(1/delta)`` for which the Student tail probability ``alpha_n = delta /
    (4(K-1) zeta(s) n^s)`` stays ``>= e^STUDENT_LOG_ALPHA_MIN`` (``e^-300``) for every count
    ``n <= n_max``: the smallest ``delta`` the Student families support is its ``exp(-.)``."""
    return (
        -STUDENT_LOG_ALPHA_MIN
        - math.log(4.0 * (check_K(K) - 1) * riemann_zeta(s))
        - float(s) * math.log(float(n_max))
    )


def _student_log_alpha(arr: np.ndarray, lid: float, K: int, s: float) -> np.ndarray:
    """``ln alpha_n`` at the counts ``arr``; ``ValueError`` naming the smallest supported
    ``delta`` when some ``alpha_n`` is below ``e^-300`` (scipy's Student quantiles are not
    evaluated there; decision D152)."""
    log_alpha = -lid - math.log(4.0 * (K - 1) * riemann_zeta(s)) - float(s) * np.log(arr)
    if np.any(log_alpha < STUDENT_LOG_ALPHA_MIN):
        n_max = float(np.max(arr))
        lmax = student_max_log_inv_delta(n_max, K=K, s=s)
        raise ValueError(
            f"the Student thresholds cannot be evaluated at ln(1/delta) = {lid:.6g}: counts up "
            f"to {n_max:.0f} need delta >= {math.exp(-lmax):.3g} (ln(1/delta) <= {lmax:.6g}; "
            "tail probabilities below e^-300 are not evaluated); use the heuristic, box, kl or "
            "bob thresholds (ev-box, ev-bob for the EV-GLR rule) for smaller delta"
        )
    return log_alpha


def student_log_ratio(
    n, delta: float | None = None, *, K: int = 2, s: float = 2.0, log_inv_delta=None
):
    """``y_n = ln(1 + Q(1 - alpha_n; T_{n-1})^2 / (n - 1))`` with
    ``alpha_n = delta / (4(K-1) zeta(s) n^s)`` (exact, scipy, accurate in the far tail).

    The Student threshold of Lemma lem:delta_correct_student_thresholds is
    ``beta^S(n, delta) = n y_n`` and the EV-Student threshold of Lemma
    lem:delta_correct_student_thresholds_ev is ``n/(n-1) Q^2 = n (e^{y_n} - 1)``.

    Parameters
    ----------
    n : int or array_like of int
        Counts ``>= 2``.
    delta, log_inv_delta : float
        Confidence level or ``ln(1/delta)`` (exactly one).

    Raises
    ------
    ValueError
        On invalid arguments, or when some ``alpha_n < e^-300`` (the message names the
        smallest supported ``delta``, :func:`student_max_log_inv_delta`).
    """
    arr = np.asarray(n, dtype=np.float64)
    if np.any(~np.isfinite(arr)) or np.any(arr < 2) or np.any(arr != np.floor(arr)):
        raise ValueError(f"n must be integers >= 2, got {n!r}")
    return _student_log_ratio_lid(arr, log_inv_delta_of(delta, log_inv_delta), check_K(K), s)


def _student_log_ratio_lid(arr: np.ndarray, lid: float, K: int, s: float):
    """:func:`student_log_ratio` at the float counts ``arr`` (integers ``>= 2``) and
    ``ln(1/delta) = lid`` (resolved by the caller), ``K`` checked."""
    log_alpha = _student_log_alpha(arr, lid, K, s)
    from scipy import stats  # imported on use: scipy.stats is slow to import

    q = stats.t.isf(np.exp(log_alpha), arr - 1.0)
    nu = arr - 1.0
    with np.errstate(over="ignore"):
        big = q > 1e150
        y = np.where(big, 2.0 * np.log(q) - np.log(nu), np.log1p(np.square(q) / nu))
    return float(y) if np.ndim(y) == 0 else y


def student_quantile(
    n, delta: float | None = None, *, K: int = 2, s: float = 2.0, log_inv_delta=None
):
    """``Q(1 - delta / (4(K-1) zeta(s) n^s); T_{n-1})`` of eq:def_student_threshold_glrt
    (same refusal as :func:`student_log_ratio` below ``alpha_n = e^-300``)."""
    arr = np.asarray(n, dtype=np.float64)
    if np.any(arr < 2) or np.any(arr != np.floor(arr)):
        raise ValueError(f"n must be integers >= 2, got {n!r}")
    log_alpha = _student_log_alpha(arr, log_inv_delta_of(delta, log_inv_delta), check_K(K), s)
    # scipy.stats is slow to import: loaded on first use
    from scipy import stats

    out = stats.t.isf(np.exp(log_alpha), arr - 1.0)
    return float(out) if np.ndim(out) == 0 else out


# ----------------------------------------------------------------------------- specs
def initial_count(
    name: str,
    K: int,
    delta: float | None = None,
    params: ThresholdParams | None = None,
    *,
    log_inv_delta: float | None = None,
) -> int:
    """Smallest per-arm count from which family ``name`` can be finite (both arms must
    reach it): the stochastic initial times of its Lemma/Theorem/Corollary as counts.

    student: ``max(2, (delta/(4(K-1)zeta(s)))^{1/s})`` (eq:def_initial_time_student_thresholds);
    box, ev-box: ``t^Box(delta)``; kl: ``max(t^Box(delta/3), t^m(delta))``; bob:
    ``max(t^Box(delta/6), t^m(delta/2))``; ev-bob: ``t^Box(delta/6)``; heuristic: 1.
    For KL/BoB the data-dependent term can still be infinite later (decision D16).
    The splits ``delta/2, delta/3, delta/6`` are taken in log space (``ln(1/delta) + ln 2``...;
    decision D150). Give ``delta`` or ``log_inv_delta``.
    """
    _check_family(name)
    if THRESHOLD_FAMILIES[name].kernel is not None:
        raise ValueError(
            f"family {name!r} is registered with its own kernel: its initial times are its "
            "kernel's (+inf before them)"
        )
    p = _check_params(params)
    lid = log_inv_delta_of(delta, log_inv_delta)
    K = check_K(K)
    return _initial_count(name, K, lid, p)


def _initial_count(name: str, K: int, lid: float, p: ThresholdParams) -> int:
    e0, e1 = p._etas(lid)
    s = p.s
    if name == "heuristic":
        return 1
    if name == "ev-heuristic-student":  # finite once both arms have 2 samples
        return 2
    if name in ("student", "ev-student"):
        # (delta/(4(K-1)zeta))^{1/s} < 1 for every delta in (0, 1): the max is 2
        return max(2, math.ceil(math.exp(-(lid + math.log(4.0 * (K - 1) * riemann_zeta(s))) / s)))
    if name in ("box", "ev-box"):
        return _box_initial_count_lid(lid, K, s, e0)
    if name == "kl":
        return max(
            _box_initial_count_lid(lid + LN3, K, s, e0),
            _monotonicity_initial_count_lid(lid, K, s, e0, e1),
        )
    if name == "bob":
        return _initial_count("kl", K, lid + LN2, _with_etas(p, e0, e1))
    # ev-bob
    return _box_initial_count_lid(lid + LN6, K, s, e0)


def _with_etas(p: ThresholdParams, e0: float, e1: float) -> ThresholdParams:
    return replace(p, eta0=e0, eta1=e1)


@lru_cache(maxsize=256)
def _spec_cached(
    family: ThresholdFamily, K: int, lid: float, params: ThresholdParams, n_table: int
):
    name = family.name
    e0, e1 = params._etas(lid)
    s, gamma = params.s, params.gamma
    own = family.kernel is not None  # a registered kernel: its constants are its own
    # zeta(s) only for the families that use it: scipy.special costs a quarter of a second
    # to import, in every process that builds the heuristic threshold's spec
    z = math.nan if name in ("heuristic", "ev-heuristic-student") or own else riemann_zeta(s)
    fp = np.full(_k.FPARAMS_SIZE, np.nan)
    fp[_k.P_DELTA] = delta_from_log(lid)  # informational: 0.0 once delta underflows
    fp[_k.P_K] = K
    fp[_k.P_S] = s
    fp[_k.P_GAMMA] = gamma
    fp[_k.P_ETA0] = e0
    fp[_k.P_ETA1] = e1
    fp[_k.P_LOGINVDELTA] = lid
    fp[_k.P_NMIN] = 1 if own else _initial_count(name, K, lid, params)
    fp[_k.P_NMIN_KL] = fp[_k.P_NMIN]
    fp[_k.P_STATEFUL] = 1.0 if family.stateful else 0.0
    fp[_k.P_T_ONLY] = 1.0 if family.t_only else 0.0
    fp[_k.P_EPS] = 0.0  # the paper's problem; the identifier and the simulator set their own
    table = np.empty(0)
    if own:
        make = family.constants_function()
        if make is not None:
            table = np.array(make(K, lid, params), dtype=np.float64, ndmin=1)
            if table.ndim != 1:
                raise ValueError(
                    f"constants of threshold family {name!r} must return a 1-D array, got "
                    f"shape {table.shape}"
                )
    elif name in ("student", "ev-student"):
        fp[_k.P_LSTUD] = -lid - math.log(2.0 * (K - 1) * z)
        table = np.full(n_table, np.inf)
        if n_table > 2:
            counts = np.arange(2, n_table, dtype=np.float64)
            table[2:] = _student_log_ratio_lid(counts, lid, K, s)
    elif name in ("box", "ev-box"):
        fp[_k.P_LBOX] = math.log(4.0 * (K - 1) * z) + lid
    elif name in ("kl", "bob", "ev-bob"):
        lk = lid if name == "kl" else lid + LN2  # ln(1/delta'') of the KL part
        union = math.log(K - 1) if params.kl_union_over_pairs else 0.0
        fp[_k.P_LPRE] = math.log(12.0 * (K - 1) * z) + lk
        fp[_k.P_LMAIN] = math.log(2.0 * z * z) + lk + union
        if name != "kl":
            fp[_k.P_LBOX] = math.log(4.0 * (K - 1) * z) + lid + LN2
            fp[_k.P_NMIN_KL] = _initial_count("kl", K, lk, _with_etas(params, e0, e1))
    fp[_k.P_LB_MODE] = _k.LB_NONE
    if not own and name in ("box", "ev-box"):
        fp[_k.P_LB_MODE] = _k.LB_WINDOW
    elif not own and name == "ev-heuristic-student":
        fp[_k.P_LB_MODE] = _k.LB_FLOOR
    elif not own and name in ("bob", "ev-bob"):
        fp[_k.P_LB_MODE] = _k.LB_PROGRAM
    fp[_k.P_LB_NMIN] = math.inf if own else _lower_bound_nmin(name, fp, table)
    fp.setflags(write=False)
    table.setflags(write=False)
    return fp, table


def _valley_count(name: str, fp: np.ndarray) -> float:
    """The count ``n*`` from which the Box (EV-Box) term ``h(n)``, the threshold at equal
    counts ``n``, does not decrease: bisection on the sign of ``h(n + d) - h(n)``,
    ``d = n // 2^14 + 1``, between the initial count and ``kernels.LB_MAX_COUNT`` (``h`` decreases,
    then increases; decision D254); ``inf`` when ``h`` still decreases at
    ``LB_MAX_COUNT``. The step ``d`` keeps the differences far above the rounding of
    ``h`` (at large counts ``h(n + 1) - h(n)`` is below it), and ``h`` varies over ``d``
    counts around its minimum by far less than the cache's margin."""
    code = FAMILY_CODES[name]
    st0 = _EMPTY_STATE
    empty = np.empty(0)
    empty.setflags(write=False)  # the loop's table type: no second compiled signature

    def rises(n: int) -> bool:
        m = n + n // 2**14 + 1
        h0 = _k.pair_threshold_kernel(code, fp, empty, 0.0, n, n, st0, st0)
        h1 = _k.pair_threshold_kernel(code, fp, empty, 0.0, m, m, st0, st0)
        return bool(h1 >= h0)

    lo = int(fp[_k.P_NMIN])
    if rises(lo):
        return float(lo)
    hi = _k.LB_MAX_COUNT
    if not rises(hi):
        return math.inf
    while hi - lo > 1:  # h(lo + 1) < h(lo), h(hi + 1) >= h(hi)
        mid = (lo + hi) // 2
        if rises(mid):
            hi = mid
        else:
            lo = mid
    return float(hi)


#: smallest Student table from which the lower bounds of D254 are used
LB_MIN_TABLE = 2**10


def _lower_bound_nmin(name: str, fp: np.ndarray, table: np.ndarray) -> float:
    """``kernels.P_LB_NMIN`` of a built-in family (decision D254): the smallest count of
    both arms from which its pair threshold is non-decreasing in each count (the states
    at fixed peeling levels); ``inf`` where it is not.

    KL: every count (``Wbar_{-1}`` and ``ln(1 + log_gamma N)`` increase; ``ln(gamma R)``
    is constant while the level is). Student, EV-Student: ``max(g(N_a), g(N_b))`` with
    ``g(n) = n y_n`` or ``n (e^{y_n} - 1)``, decreasing at small counts: the count after
    the table's last descent of ``g``, provided ``g`` does not descend where the kernel
    leaves the table for the closed-form bound (non-decreasing beyond, checked by
    ``tests/unit/test_lower_bound_cache.py``). Box, EV-Box: ``(h(N_a) + h(N_b))/2`` with
    ``h`` decreasing from the initial count to a minimum, then increasing: the count of
    that minimum (:func:`_valley_count`; below it, windows: ``P_LB_MODE = LB_WINDOW``).
    The Student-calibrated heuristic decreases in the smaller count: none (its floor
    ``kernels.lower_bound_floor`` instead, ``LB_FLOOR``). BoB, EV-BoB decrease within
    the peeling levels while the box constraints bind: none (a relaxed program over
    windows instead, ``kernels.program_lower_bound``, ``LB_PROGRAM``)."""
    if name == "kl":
        return float(fp[_k.P_NMIN])
    if name in ("box", "ev-box"):
        return _valley_count(name, fp)
    if name not in ("student", "ev-student") or table.shape[0] < LB_MIN_TABLE:
        return math.inf
    n = np.arange(table.shape[0], dtype=np.float64)
    y = table[2:]
    g = n[2:] * (y if name == "student" else np.expm1(y))
    down = np.nonzero(g[1:] < g[:-1])[0]
    n_star = 2 + (int(down[-1]) + 1 if down.size else 0)
    n_end = table.shape[0]
    y_end = _k.student_y_bound(float(n_end), fp[_k.P_LSTUD], fp[_k.P_S])
    g_end = n_end * (y_end if name == "student" else math.expm1(y_end))
    if n_star >= n_end - 1 or not (g_end >= g[-1]):
        return math.inf
    return float(max(n_star, fp[_k.P_NMIN]))


def make_threshold(
    name: str,
    K: int,
    delta: float | None = None,
    params: ThresholdParams | None = None,
    *,
    n_table: int = DEFAULT_TABLE_SIZE,
    log_inv_delta: float | None = None,
) -> ThresholdSpec:
    """Numba-ready :class:`ThresholdSpec` for family ``name``.

    Parameters
    ----------
    name : str
        One of :data:`FAMILIES`.
    K : int
        Number of arms (``>= 2``; enters the union bounds).
    delta : float, optional
        Confidence level in ``(0, 1)``.
    params : ThresholdParams, optional
        Hyper-parameters (paper defaults).
    n_table : int
        Length of the exact Student table (``y_n`` for ``n < n_table``); larger counts use
        the safe closed-form bound ``kernels.student_y_bound`` (decision D13).
    log_inv_delta : float, optional
        ``ln(1/delta)`` instead of ``delta`` (exactly one of them; decision D150). Every log
        term of the spec is ``ln(constant) + ln(1/delta)``, so ``ln(1/delta) = 1000`` is exact.

    Raises
    ------
    ValueError
        On invalid arguments; for the Student families when ``delta`` is below the smallest
        level their table supports (:func:`student_max_log_inv_delta` at ``n_table - 1``).
    """
    _check_family(name)
    _check_params(params)
    return _make_threshold_lid(name, K, log_inv_delta_of(delta, log_inv_delta), params, n_table)


def _make_threshold_lid(
    name: str, K, lid: float, params: ThresholdParams | None, n_table=DEFAULT_TABLE_SIZE
) -> ThresholdSpec:
    """:func:`make_threshold` at ``ln(1/delta) = lid`` (resolved by the caller)."""
    _check_family(name)
    p = _check_params(params)
    K = check_K(K)
    check_integer(n_table, "n_table", 3)
    n_table = int(n_table) if name in ("student", "ev-student") else 0
    fp, table = _spec_cached(THRESHOLD_FAMILIES[name], K, lid, p, n_table)
    return ThresholdSpec(FAMILY_CODES[name], fp.copy(), table)


# ----------------------------------------------------------------------------- states
def new_arm_state() -> np.ndarray:
    """Fresh per-arm KL/BoB state (see ``kernels`` for the layout)."""
    return _k.new_state()


def update_arm_state(
    name: str,
    state: np.ndarray,
    n: int,
    mean: float,
    var: float,
    *,
    K: int,
    delta: float | None = None,
    params: ThresholdParams | None = None,
    log_inv_delta: float | None = None,
) -> np.ndarray:
    """Update ``state`` in place after the arm's count became ``n`` (``mean``: empirical mean,
    ``var``: 1/n empirical variance of its ``n`` samples); returns it."""
    spec = _make_threshold_lid(name, K, log_inv_delta_of(delta, log_inv_delta), params)
    st = _check_state_array(state, "state")
    if int(n) != n or n < 1:
        raise ValueError(f"n must be an integer >= 1, got {n!r}")
    _k.update_state(spec.code, spec.fparams, st, int(n), float(mean), float(var))
    return st


def _check_state_array(state, name: str) -> np.ndarray:
    if not isinstance(state, np.ndarray) or state.shape != (_k.STATE_SIZE,):
        raise ValueError(f"{name} must be a float64 array of length {_k.STATE_SIZE}")
    if state.dtype != np.float64:
        raise ValueError(f"{name} must have dtype float64")
    return state


def arm_state_from_samples(
    name: str,
    samples,
    *,
    K: int,
    delta: float | None = None,
    params: ThresholdParams | None = None,
    log_inv_delta: float | None = None,
) -> np.ndarray:
    """KL/BoB state of an arm after observing ``samples`` in order (``update_state`` after
    each sample, with running mean and 1/n variance)."""
    x = np.asarray(samples, dtype=np.float64).reshape(-1)
    if x.size == 0 or not np.all(np.isfinite(x)):
        raise ValueError("samples must be a non-empty array of finite floats")
    spec = _make_threshold_lid(name, K, log_inv_delta_of(delta, log_inv_delta), params)
    return _k.states_at_counts(spec.code, spec.fparams, x, np.array([x.shape[0]]))[0]


# ----------------------------------------------------------------------------- pair
def bob_constants(
    name: str,
    n_a: int,
    n_b: int,
    state_a,
    state_b,
    *,
    K: int,
    delta: float | None = None,
    params: ThresholdParams | None = None,
    log_inv_delta: float | None = None,
) -> tuple[np.ndarray, np.ndarray, float]:
    """``(C, D, E)`` of the BoB/EV-BoB NLP at counts ``(n_a, n_b)``:
    ``C_c = eps_mu(N_c, delta/2)``, ``D_c = 1 - eps_{-,sigma}(N_c - 1, delta/2)``,
    ``E = c^KL(N_t, delta/2)`` (``+inf`` when the KL part is not defined, decision D18)."""
    if name not in ("bob", "ev-bob"):
        raise ValueError(f"name must be 'bob' or 'ev-bob', got {name!r}")
    lid = log_inv_delta_of(delta, log_inv_delta)
    return _bob_constants_lid(name, n_a, n_b, state_a, state_b, K, lid, params)


def _bob_constants_lid(name: str, n_a, n_b, state_a, state_b, K, lid: float, params):
    """:func:`bob_constants` at ``ln(1/delta) = lid`` (resolved by the caller)."""
    spec = _make_threshold_lid(name, K, lid, params)
    fp = spec.fparams
    s, e0, gamma = fp[_k.P_S], fp[_k.P_ETA0], fp[_k.P_GAMMA]
    ca, da = _k.box_constants(float(n_a), fp[_k.P_LBOX], s, e0)
    cb, db = _k.box_constants(float(n_b), fp[_k.P_LBOX], s, e0)
    e = math.inf
    if n_a >= fp[_k.P_NMIN_KL] and n_b >= fp[_k.P_NMIN_KL]:
        lgr_a = _k.check_state(state_a, int(n_a), fp)
        lgr_b = _k.check_state(state_b, int(n_b), fp)
        e = _k.kl_value(float(n_a), float(n_b), lgr_a, lgr_b, fp[_k.P_LMAIN], s, gamma)
    return np.array([ca, cb]), np.array([da, db]), e


def pair_threshold(
    family: str,
    *,
    n_a: int,
    n_b: int,
    t: float | None = None,
    K: int,
    delta: float | None = None,
    params: ThresholdParams | None = None,
    state_a: np.ndarray | None = None,
    state_b: np.ndarray | None = None,
    backend: str = "auto",
    on_failure: str = "raise",
    log_inv_delta: float | None = None,
) -> float:
    """Threshold ``c_{a,b}(N_t, delta)`` of one pair of arms (``+inf`` before the initial times).

    Parameters
    ----------
    family : str
        One of :data:`FAMILIES`.
    n_a, n_b : int
        Counts ``N_{t,a}``, ``N_{t,b}`` (``>= 1``).
    t : float, optional
        Total time (only the heuristic uses it; defaults to ``n_a + n_b``).
    K : int
        Number of arms.
    delta : float, optional
        Confidence level.
    params : ThresholdParams, optional
        Hyper-parameters.
    log_inv_delta : float, optional
        ``ln(1/delta)`` instead of ``delta`` (exactly one of them; decision D150).
    state_a, state_b : numpy.ndarray, optional
        Per-arm states (required for kl, bob, ev-bob), see :func:`arm_state_from_samples`.
    backend, on_failure : str
        Passed to :func:`~baiuv.thresholds.bob.solve_bob` (bob, ev-bob).

    Raises
    ------
    ValueError
        On invalid arguments.
    """
    _check_family(family)
    p = _check_params(params)
    n_a = check_integer(n_a, "n_a", 1)
    n_b = check_integer(n_b, "n_b", 1)
    if t is None:
        t = float(n_a + n_b)
    if not (check_real(t, "t", ">= 1") >= 1.0):
        raise ValueError(f"t must be >= 1, got {t!r}")
    lid = log_inv_delta_of(delta, log_inv_delta)
    spec = _make_threshold_lid(family, K, lid, p, n_table=3)
    if family in STATEFUL:
        if state_a is None or state_b is None:
            raise ValueError(f"family {family!r} needs state_a and state_b")
        state_a = _check_state_array(state_a, "state_a")
        state_b = _check_state_array(state_b, "state_b")
    else:
        state_a = state_b = _EMPTY_STATE
    if family in ("student", "ev-student"):
        nmin = spec.fparams[_k.P_NMIN]
        if n_a < nmin or n_b < nmin:
            return math.inf
        y = _student_log_ratio_lid(np.array([n_a, n_b], dtype=np.float64), lid, check_K(K), p.s)
        n = np.array([n_a, n_b], dtype=float)
        vals = n * y if family == "student" else n * np.expm1(y)
        return float(np.max(vals))
    if family in ("bob", "ev-bob"):
        if n_a < spec.fparams[_k.P_NMIN] or n_b < spec.fparams[_k.P_NMIN]:
            return math.inf
        C, D, E = _bob_constants_lid(family, n_a, n_b, state_a, state_b, K, lid, p)
        if not np.all(D > 0):
            return math.inf
        return solve_bob(
            [n_a, n_b], C, D, E, ev=family == "ev-bob", backend=backend, on_failure=on_failure
        )
    kernel = THRESHOLD_FAMILIES[family].threshold_kernel() or _k.pair_threshold_kernel
    return float(kernel(spec.code, spec.fparams, spec.table, float(t), n_a, n_b, state_a, state_b))


_EMPTY_STATE = _k.new_state()
