"""Threshold families for the GLR and EV-GLR stopping rules.

Families (:data:`FAMILIES`): ``heuristic`` ``ln((1 + ln t)/delta)`` (Section ssec:experiments,
usable with both rules); GLR: ``student`` (Lemma lem:delta_correct_student_thresholds),
``box`` (Lemma lem:delta_correct_box_thresholds), ``kl`` (Theorem
thm:delta_correct_complex_threshold_glrt), ``bob`` (Corollary cor:delta_correct_Kinf_thresholds);
EV-GLR: ``ev-student`` (Lemma lem:delta_correct_student_thresholds_ev), ``ev-box`` (Lemma
lem:delta_correct_box_thresholds_ev), ``ev-bob`` (Corollary cor:delta_correct_Kinf_thresholds_ev).
Beyond the paper: ``ev-heuristic-student``, the heuristic recalibrated for the studentised
EV-GLR gap (``builtin.ev_heuristic_student``, not δ-correct; :mod:`baiuv.studies.ev_remedies`).

Each built-in family is one module of :mod:`baiuv.thresholds.builtin` (its initial count,
constants, lower-bound mode and Python reference); the functions here reach it through the
registry record's ``module`` (D395), by no name.

The numba entry points for the simulation engine are :func:`make_threshold` and
``kernels.pair_threshold_kernel``; :func:`pair_threshold` is the validated Python entry point (it
uses exact scipy Student quantiles at every count and :func:`~baiuv.thresholds.bob.solve_bob`
for BoB).
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Mapping
from dataclasses import dataclass
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
from .builtin import bob as _bob
from .builtin.student import (
    STUDENT_LOG_ALPHA_MIN,
    _student_log_ratio_lid,  # noqa: F401 (read by the experiments)
    student_log_ratio,
    student_max_log_inv_delta,
    student_quantile,
)
from .concentration import check_K

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
# STUDENT_LOG_ALPHA_MIN and the Student functions come from the Student families' module.


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


def _module(family: ThresholdFamily):
    """The module of a built-in family (its record's ``module``, imported on first use;
    D395: the Python side dispatches through the registry's records)."""
    return importlib.import_module(family.module)


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
    return _module(THRESHOLD_FAMILIES[name]).initial_count(name, K, lid, p)


@lru_cache(maxsize=256)
def _spec_cached(
    family: ThresholdFamily, K: int, lid: float, params: ThresholdParams, n_table: int
):
    name = family.name
    e0, e1 = params._etas(lid)
    s, gamma = params.s, params.gamma
    own = family.kernel is not None  # a registered kernel: its constants are its own
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
        fp[_k.P_LB_MODE], fp[_k.P_LB_NMIN] = _k.LB_NONE, math.inf
    else:
        # the module's constants; zeta(s) only for the families that use it (scipy.special
        # costs a quarter of a second to import, in every process that builds the
        # heuristic threshold's spec)
        mod = _module(family)
        table = mod.constants(name, fp, K, lid, params, n_table)
        fp[_k.P_LB_MODE], fp[_k.P_LB_NMIN] = mod.lower_bound(name, fp, table)
    fp.setflags(write=False)
    table.setflags(write=False)
    return fp, table


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
    family = THRESHOLD_FAMILIES[name]
    uses_table = family.kernel is None and getattr(_module(family), "USES_N_TABLE", False)
    n_table = int(n_table) if uses_table else 0
    fp, table = _spec_cached(family, K, lid, p, n_table)
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
    if name not in _bob.NAMES:
        raise ValueError(f"name must be 'bob' or 'ev-bob', got {name!r}")
    lid = log_inv_delta_of(delta, log_inv_delta)
    return _bob_constants_lid(name, n_a, n_b, state_a, state_b, K, lid, params)


def _bob_constants_lid(name: str, n_a, n_b, state_a, state_b, K, lid: float, params):
    """:func:`bob_constants` at ``ln(1/delta) = lid`` (resolved by the caller)."""
    spec = _make_threshold_lid(name, K, lid, params)
    return _bob.bob_constants_at(spec.fparams, n_a, n_b, state_a, state_b)


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
    record = THRESHOLD_FAMILIES[family]
    reference = None if record.kernel is not None else getattr(_module(record), "reference", None)
    if reference is not None:  # exact Student quantiles, the BoB solver
        return reference(
            family,
            spec,
            n_a=n_a,
            n_b=n_b,
            state_a=state_a,
            state_b=state_b,
            K=K,
            lid=lid,
            params=p,
            backend=backend,
            on_failure=on_failure,
        )
    kernel = record.threshold_kernel() or _k.pair_threshold_kernel
    return float(kernel(spec.code, spec.fparams, spec.table, float(t), n_a, n_b, state_a, state_b))


_EMPTY_STATE = _k.new_state()
