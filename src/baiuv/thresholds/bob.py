"""BoB and EV-BoB optimisation problems as a Pyomo model, solved with Ipopt.

Corollaries cor:delta_correct_Kinf_thresholds (BoB) and cor:delta_correct_Kinf_thresholds_ev
(EV-BoB) define the threshold as the optimum of the 4-variable NLP (Appendix
app:ss_Kinf_thresholds)

    maximise   1/2 sum_c N_c ln(1 + y_c)        (EV-BoB: 1/2 sum_c N_c y_c)
    such that  y_c >= 0,  x_c y_c <= C_c,  x_c >= D_c  (c in {a, b}),
               1/2 sum_c N_c f(x_c, y_c) <= E,   f(x, y) = (1 + y) x - 1 - ln x,

with ``C_c = eps_mu(N_c, delta/2)``, ``D_c = 1 - eps_{-,sigma}(N_c - 1, delta/2)`` and
``E = c^KL(N_t, delta/2)``. :func:`solve_bob` takes ``(counts, C, D, E)`` and is independent
of how they are computed. ``E = +inf`` drops the KL constraint (decision D18).

Backends
--------
``"ipopt"``
    Pyomo's ``SolverFactory("ipopt")`` (an ``ipopt`` executable on ``PATH``).
``"cyipopt"``
    :class:`PyomoCyipoptBridge`: the same Pyomo model handed to the Ipopt 3.14 library
    bundled by the ``cyipopt-wheels`` PyPI wheel, with values, gradients, constraint
    Jacobian and (by default exact) Lagrangian Hessian from Pyomo's reverse-mode symbolic
    differentiation.
``"exact"``
    ``baiuv.thresholds.bob_exact.bob_exact`` (the exact numba solver).
``"auto"``
    ``"exact"`` when available (it returns the *global* maximum, with a proof), else
    ``"ipopt"`` if the executable exists, else ``"cyipopt"`` (decision D22).

The program is not convex (``x_c y_c <= C_c`` is not a convex constraint, decision D30), so
Ipopt can stop at a local maximum, which would give a threshold that is too small (not
δ-correct). The termination status is always checked, the returned point is checked for
feasibility, and, when the exact solver is importable, the Ipopt value is certified against
the global maximum (a local maximum is a failure); on failure :class:`BobSolverError` is raised, or with
``on_failure="fallback"`` the conservative bound ``min(Box(delta/2), KL(delta/2))`` (EV:
``EV-Box(delta/2)``) is returned and counted (:func:`bob_fallback_count`).
"""

from __future__ import annotations

import math
import shutil
import warnings
from collections.abc import Sequence

import numpy as np

from baiuv._deferred import DeferredModule
from baiuv._extras import import_module
from baiuv.model.validate import as_vector, check_real
from baiuv.thresholds.bob_exact import bob_exact

# Pyomo takes seconds to import and only the Ipopt backends need it (the pipeline's jobs
# and the exact solver do not).
_IPOPT = "the Ipopt backends of the BoB threshold (backend 'ipopt' or 'cyipopt')"
pyo = DeferredModule("pyomo.environ", _IPOPT)
_derivatives = DeferredModule("pyomo.core.expr.calculus.derivatives", _IPOPT)
_visitor = DeferredModule("pyomo.core.expr.visitor", _IPOPT)
_opt = DeferredModule("pyomo.opt", _IPOPT)

__all__ = [
    "BobSolverError",
    "PyomoCyipoptBridge",
    "build_bob_model",
    "set_bob_data",
    "solve_bob",
    "bob_fallback_count",
    "reset_bob_fallback_count",
    "available_backends",
    "resolve_backend",
    "ipopt_backend",
    "ipopt_solution",
    "bob_upper_bound",
]

BACKENDS = ("auto", "ipopt", "cyipopt", "exact")
_INF = 1e20  # Ipopt treats |bound| >= 1e19 as infinite
_FALLBACKS = {"count": 0}


class BobSolverError(RuntimeError):
    """Raised when the BoB NLP could not be solved to a verified optimum."""


def bob_fallback_count() -> int:
    """Number of :func:`solve_bob` calls that returned the conservative fallback."""
    return _FALLBACKS["count"]


def reset_bob_fallback_count() -> None:
    """Reset the fallback counter."""
    _FALLBACKS["count"] = 0


def available_backends() -> tuple[str, ...]:
    """Concrete backends usable in this environment."""
    out = ["exact"]
    if shutil.which("ipopt"):
        out.append("ipopt")
    try:  # cyipopt: an optional backend, absent where it is not installed
        import cyipopt  # noqa: F401

        out.append("cyipopt")
    except ImportError:  # pragma: no cover
        pass
    return tuple(out)


def resolve_backend(backend: str = "auto") -> str:
    """The concrete backend :func:`solve_bob` uses for ``backend`` (``"auto"``: the first of
    :func:`available_backends`, the exact solver whenever it is installed)."""
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    if backend != "auto":
        return backend
    avail = available_backends()
    if not avail:
        raise BobSolverError("no BoB backend available (ipopt, cyipopt, exact)")
    return avail[0]


def ipopt_backend() -> str | None:
    """The Ipopt backend of this environment: ``"ipopt"`` when an ``ipopt`` executable is
    found (on PATH, or installed by ``idaes get-extensions``: importing ``idaes`` puts its
    binary directory on PATH), else ``"cyipopt"`` when the library is installed, else
    ``None``."""
    try:  # optional extra `idaes`: makes `idaes get-extensions`' ipopt visible to Pyomo
        import idaes  # noqa: F401
    except ImportError:
        pass
    avail = available_backends()
    for b in ("ipopt", "cyipopt"):
        if b in avail:
            return b
    return None


# ----------------------------------------------------------------------------- model
def build_bob_model(counts, C, D, E, *, ev: bool = False) -> pyo.ConcreteModel:
    """Pyomo ``ConcreteModel`` of the BoB (``ev=False``) or EV-BoB (``ev=True``) NLP.

    Implements the optimisation problem of Corollary cor:delta_correct_Kinf_thresholds
    (resp. cor:delta_correct_Kinf_thresholds_ev). Data are mutable parameters; use
    :func:`set_bob_data` to change them. The KL constraint ``m.kl`` is deactivated when
    ``E`` is infinite. ``m.scaling_factor`` holds user scaling (variables ``y`` by
    ``D/C``, constraints and objective by their typical size).
    """
    n, c, d, e = _validate(counts, C, D, E)
    m = pyo.ConcreteModel(name="bob_ev" if ev else "bob")
    m.ev = bool(ev)
    m.I = pyo.Set(initialize=[0, 1], ordered=True)
    m.N = pyo.Param(m.I, mutable=True, initialize={0: n[0], 1: n[1]})
    m.C = pyo.Param(m.I, mutable=True, initialize={0: c[0], 1: c[1]})
    m.D = pyo.Param(m.I, mutable=True, initialize={0: d[0], 1: d[1]})
    m.E = pyo.Param(mutable=True, initialize=e if math.isfinite(e) else 0.0)
    m.x = pyo.Var(m.I, bounds=lambda m, i: (m.D[i], None), initialize=1.0)
    m.y = pyo.Var(m.I, bounds=(0.0, None), initialize=0.0)
    if ev:
        obj = 0.5 * sum(m.N[i] * m.y[i] for i in m.I)
    else:
        obj = 0.5 * sum(m.N[i] * pyo.log(1.0 + m.y[i]) for i in m.I)
    m.obj = pyo.Objective(expr=obj, sense=pyo.maximize)
    m.box = pyo.Constraint(m.I, rule=lambda m, i: m.x[i] * m.y[i] <= m.C[i])
    m.kl = pyo.Constraint(
        expr=0.5 * sum(m.N[i] * ((1.0 + m.y[i]) * m.x[i] - 1.0 - pyo.log(m.x[i])) for i in m.I)
        <= m.E
    )
    m.scaling_factor = pyo.Suffix(direction=pyo.Suffix.EXPORT)
    set_bob_data(m, n, c, d, e)
    return m


def set_bob_data(m: pyo.ConcreteModel, counts, C, D, E) -> None:
    """Update the data of a model built by :func:`build_bob_model` and reset its start."""
    n, c, d, e = _validate(counts, C, D, E)
    for i in (0, 1):
        m.N[i] = n[i]
        m.C[i] = c[i]
        m.D[i] = d[i]
        # start: x at max(D, 1), y at half its box bound (interior)
        x0 = max(d[i], 1.0)
        m.x[i].set_value(x0, skip_validation=True)
        m.y[i].set_value(0.5 * c[i] / x0, skip_validation=True)
        m.scaling_factor[m.y[i]] = min(1e8, d[i] / c[i])
        m.scaling_factor[m.box[i]] = min(1e8, 1.0 / c[i])
    if math.isfinite(e):
        m.E = e
        m.kl.activate()
        m.scaling_factor[m.kl] = 1.0 / max(1.0, e)
    else:
        m.E = 0.0
        m.kl.deactivate()
    box = _box_value(n, c, d, m.ev)
    m.scaling_factor[m.obj] = 1.0 / max(1.0, min(box, e) if not m.ev else box)


def _validate(counts, C, D, E):
    """Arguments of the BoB program: ``counts`` and ``C`` two finite numbers > 0, ``D`` two
    numbers in (0, 1] (``D = 1 - eps``), ``E`` a number > 0 or ``+inf``."""
    arrays = []
    for name, x, allowed in (
        ("counts", counts, "> 0"),
        ("C", C, "> 0"),
        ("D", D, "in (0, 1]"),
    ):
        arr = as_vector(x, name)
        if arr.shape != (2,):
            raise ValueError(f"{name} must have exactly 2 entries (one per arm), got {x!r}")
        bad = arr <= 0 if name != "D" else (arr <= 0) | (arr > 1)
        if np.any(bad):
            raise ValueError(f"{name} must be {allowed}, got {x!r}")
        arrays.append(arr)
    e = check_real(E, "E", "> 0 (or +inf to drop the KL constraint)")
    if math.isnan(e) or e <= 0:
        raise ValueError(f"E must be > 0 (or +inf to drop the KL constraint), got {E!r}")
    return (*arrays, e)


def _box_value(n, c, d, ev: bool) -> float:
    """Closed-form optimum without the KL constraint (proof of Lemma
    lem:delta_correct_box_thresholds)."""
    if ev:
        return float(0.5 * np.sum(n * c / d))
    return float(0.5 * np.sum(n * np.log1p(c / d)))


def bob_upper_bound(counts, C, D, E, *, ev: bool = False) -> float:
    """Conservative upper bound on the BoB optimum used as fallback.

    GLR: ``min(box optimum, E)`` = ``min(Box(delta/2), KL(delta/2))`` (Section ssec:beyond_box:
    ``ln(1 + y) = inf_x f(x, y)`` so the KL constraint bounds the objective). EV: the box
    optimum ``EV-Box(delta/2)``.
    """
    n, c, d, e = _validate(counts, C, D, E)
    box = _box_value(n, c, d, ev)
    return box if ev else min(box, e)


# ----------------------------------------------------------------------------- bridge
class PyomoCyipoptBridge:
    """Hand a Pyomo NLP (continuous variables, one objective, inequality/equality
    constraints) to ``cyipopt``.

    Values come from evaluating the Pyomo expressions; first derivatives from
    ``differentiate(..., mode=reverse_symbolic)``; the Hessian of the Lagrangian from
    differentiating those derivative expressions again (``hessian="exact"``) or Ipopt's
    limited-memory approximation (``hessian="limited-memory"``). Mutable parameters are
    read at every call, so one bridge serves successive data of the same model. Variable
    and constraint scaling is read from an export ``Suffix`` named ``scaling_factor``.
    """

    def __init__(self, model: pyo.ConcreteModel, *, hessian: str = "exact"):
        if hessian not in ("exact", "limited-memory"):
            raise ValueError(f"hessian must be 'exact' or 'limited-memory', got {hessian!r}")
        self.model = model
        self.hessian_mode = hessian
        self.vars = list(model.component_data_objects(pyo.Var, active=True, descend_into=True))
        objs = list(model.component_data_objects(pyo.Objective, active=True))
        if len(objs) != 1:
            raise ValueError("model must have exactly one active objective")
        self.obj = objs[0]
        self.sign = -1.0 if self.obj.sense == pyo.maximize else 1.0
        self._index = {id(v): k for k, v in enumerate(self.vars)}
        self._all_cons = list(
            model.component_data_objects(pyo.Constraint, active=None, descend_into=True)
        )
        self._grad = self._derivs(self.obj.expr)
        self._hess_obj = self._second(self._grad)
        self._cons_info = {}
        for con in self._all_cons:
            g = self._derivs(con.body)
            self._cons_info[id(con)] = (g, self._second(g))
        n = len(self.vars)
        self._hrows, self._hcols = np.tril_indices(n)

    # -- symbolic derivatives --------------------------------------------------------
    def _derivs(self, expr):
        used = {id(v) for v in _visitor.identify_variables(expr, include_fixed=False)}
        idx = [self._index[i] for i in used if i in self._index]
        idx.sort()
        if not idx:
            return []
        differentiate = _derivatives.differentiate
        ders = differentiate(
            expr, wrt_list=[self.vars[k] for k in idx], mode=differentiate.Modes.reverse_symbolic
        )
        return list(zip(idx, ders, strict=True))

    def _second(self, grad):
        out = []
        for k, gk in grad:
            for j, hkj in self._derivs(gk) if not isinstance(gk, int | float) else []:
                if j <= k:
                    out.append((k, j, hkj))
        return out

    # -- helpers ---------------------------------------------------------------------
    @property
    def constraints(self):
        """The model's active constraints, in the order of every constraint callback."""
        return [c for c in self._all_cons if c.active]

    def _set(self, x) -> None:
        for v, xi in zip(self.vars, x, strict=True):
            v.set_value(float(xi), skip_validation=True)

    @staticmethod
    def _val(e) -> float:
        return float(pyo.value(e))

    def bounds(self):
        """``(lb, ub, cl, cu)``: bounds of the variables and of the constraints (±inf if none)."""
        lb = np.array([-_INF if v.lb is None else float(v.lb) for v in self.vars])
        ub = np.array([_INF if v.ub is None else float(v.ub) for v in self.vars])
        cons = self.constraints
        cl = np.array([-_INF if not c.has_lb() else self._val(c.lower) for c in cons])
        cu = np.array([_INF if not c.has_ub() else self._val(c.upper) for c in cons])
        return lb, ub, cl, cu

    # -- cyipopt callbacks -----------------------------------------------------------
    def objective(self, x):
        """cyipopt callback: objective at ``x`` (negated when the model maximises)."""
        self._set(x)
        return self.sign * self._val(self.obj.expr)

    def gradient(self, x):
        """cyipopt callback: gradient of :meth:`objective` at ``x``."""
        self._set(x)
        g = np.zeros(len(self.vars))
        for k, d in self._grad:
            g[k] = self.sign * self._val(d)
        return g

    def constraints_values(self, x):
        """Values of the active constraints' bodies at ``x`` (cyipopt's ``constraints``)."""
        self._set(x)
        return np.array([self._val(c.body) for c in self.constraints])

    def jacobianstructure(self):
        """cyipopt callback: ``(rows, cols)`` of the constraint Jacobian's non-zeros."""
        rows, cols = [], []
        for r, c in enumerate(self.constraints):
            for k, _ in self._cons_info[id(c)][0]:
                rows.append(r)
                cols.append(k)
        return np.array(rows, dtype=int), np.array(cols, dtype=int)

    def jacobian(self, x):
        """cyipopt callback: the Jacobian's non-zeros at ``x``, in :meth:`jacobianstructure` order."""
        self._set(x)
        vals = []
        for c in self.constraints:
            for _, d in self._cons_info[id(c)][0]:
                vals.append(self._val(d))
        return np.array(vals)

    def hessianstructure(self):
        """cyipopt callback: ``(rows, cols)`` of the Lagrangian Hessian's lower triangle."""
        return self._hrows, self._hcols

    def hessian(self, x, lagrange, obj_factor):
        """cyipopt callback: the Lagrangian Hessian's non-zeros at ``x``."""
        self._set(x)
        n = len(self.vars)
        H = np.zeros((n, n))
        for k, j, h in self._hess_obj:
            H[k, j] += obj_factor * self.sign * self._val(h)
        for lam, c in zip(lagrange, self.constraints, strict=True):
            for k, j, h in self._cons_info[id(c)][1]:
                H[k, j] += lam * self._val(h)
        return H[self._hrows, self._hcols]

    # -- solve -----------------------------------------------------------------------
    def solve(self, x0=None, *, options: dict | None = None):
        """Solve with cyipopt; returns ``(x, info)`` (info from ``cyipopt.Problem.solve``).

        The variable values of the Pyomo model are set to the returned point.
        """
        cyipopt = import_module("cyipopt", _IPOPT)

        lb, ub, cl, cu = self.bounds()
        cons = self.constraints
        bridge = self

        class _Problem:
            objective = staticmethod(bridge.objective)
            gradient = staticmethod(bridge.gradient)
            constraints = staticmethod(bridge.constraints_values)
            jacobian = staticmethod(bridge.jacobian)
            jacobianstructure = staticmethod(bridge.jacobianstructure)
            if bridge.hessian_mode == "exact":
                hessian = staticmethod(bridge.hessian)
                hessianstructure = staticmethod(bridge.hessianstructure)

        nlp = cyipopt.Problem(
            n=len(self.vars), m=len(cons), problem_obj=_Problem(), lb=lb, ub=ub, cl=cl, cu=cu
        )
        opts = {
            "print_level": 0,
            "sb": "yes",
            "tol": 1e-10,
            "max_iter": 500,
            "honor_original_bounds": "yes",
            "bound_relax_factor": 1e-10,
        }
        if self.hessian_mode == "limited-memory":
            opts["hessian_approximation"] = "limited-memory"
        sf = getattr(self.model, "scaling_factor", None)
        if sf is not None and len(sf) > 0:
            obj_s = float(sf.get(self.obj, 1.0))
            x_s = np.array([float(sf.get(v, 1.0)) for v in self.vars])
            g_s = np.array([float(sf.get(c, 1.0)) for c in cons])
            nlp.set_problem_scaling(obj_scaling=obj_s, x_scaling=x_s, g_scaling=g_s)
            opts["nlp_scaling_method"] = "user-scaling"
        opts.update(options or {})
        for k, v in opts.items():
            nlp.add_option(k, v)
        if x0 is None:
            x0 = np.array([v.value if v.value is not None else 0.0 for v in self.vars])
        x, info = nlp.solve(np.asarray(x0, dtype=float))
        self._set(x)
        return x, info


# ----------------------------------------------------------------------------- solve
_CACHE: dict = {}


def _cached(ev: bool, hessian: str):
    key = (bool(ev), hessian)
    if key not in _CACHE:
        m = build_bob_model([2.0, 2.0], [1.0, 1.0], [0.5, 0.5], 1.0, ev=ev)
        _CACHE[key] = (m, None)
    return _CACHE[key]


def _bridge_for(ev: bool, hessian: str):
    m, br = _cached(ev, hessian)
    if br is None:
        br = PyomoCyipoptBridge(m, hessian=hessian)
        _CACHE[(bool(ev), hessian)] = (m, br)
    return m, br


_SUCCESS_CYIPOPT = (0, 1)  # Solve_Succeeded, Solved_To_Acceptable_Level (then verified)


def _verify(m, n, c, d, e, ev: bool, certify: bool = True) -> float:
    """Check feasibility of the model's current point; return its objective value
    (``certify``: also check it against the exact global maximum)."""
    x = np.array([pyo.value(m.x[i]) for i in (0, 1)])
    y = np.array([pyo.value(m.y[i]) for i in (0, 1)])
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
        raise BobSolverError("solver returned a non-finite point")
    if np.any(x < d * (1 - 1e-7)) or np.any(y < -1e-10):
        raise BobSolverError(f"solver point violates bounds: x={x}, y={y}")
    if np.any(x * y > c * (1 + 1e-5) + 1e-12):
        raise BobSolverError(f"solver point violates x*y <= C: {x * y} > {c}")
    if math.isfinite(e):
        kl = 0.5 * np.sum(n * ((1 + y) * x - 1 - np.log(x)))
        if kl > e + 1e-5 * max(1.0, e):
            raise BobSolverError(f"solver point violates the KL constraint: {kl} > {e}")
    y = np.maximum(y, 0.0)
    val = 0.5 * float(np.sum(n * y)) if ev else 0.5 * float(np.sum(n * np.log1p(y)))
    ub = bob_upper_bound(n, c, d, e, ev=ev)
    if val > ub * (1 + 1e-5) + 1e-9:
        raise BobSolverError(f"solver value {val} exceeds the a-priori upper bound {ub}")
    if not certify:
        return val
    glob = float(bob_exact(n[0], n[1], c[0], c[1], d[0], d[1], e, bool(ev)))
    if math.isfinite(glob) and val < glob * (1 - 1e-6) - 1e-9:
        raise BobSolverError(
            f"Ipopt stopped at a local maximum: value {val} < global maximum {glob} "
            "(the BoB program is not convex, decision D30)"
        )
    return val


def _solve_ipopt_exe(n, c, d, e, ev, options, certify=True):
    m, _ = _cached(ev, "exact")
    set_bob_data(m, n, c, d, e)
    opt = _opt.SolverFactory("ipopt")
    if not opt.available(exception_flag=False):
        raise BobSolverError("backend 'ipopt': no ipopt executable on PATH")
    opt.options.update(
        {
            "tol": 1e-10,
            "max_iter": 500,
            "nlp_scaling_method": "user-scaling",
            "honor_original_bounds": "yes",
            "bound_relax_factor": 1e-10,
        }
    )
    opt.options.update(options or {})
    res = opt.solve(m, load_solutions=False)
    tc = res.solver.termination_condition
    if tc not in (_opt.TerminationCondition.optimal, _opt.TerminationCondition.locallyOptimal):
        raise BobSolverError(f"ipopt terminated with {tc}")
    m.solutions.load_from(res)
    return _verify(m, n, c, d, e, ev, certify)


def _solve_cyipopt(n, c, d, e, ev, options, hessian, certify=True):
    m, br = _bridge_for(ev, hessian)
    set_bob_data(m, n, c, d, e)
    x0 = np.array([v.value for v in br.vars])
    _, info = br.solve(x0, options=options)
    if info["status"] not in _SUCCESS_CYIPOPT:
        raise BobSolverError(
            f"cyipopt terminated with status {info['status']}: {info['status_msg']!r}"
        )
    return _verify(m, n, c, d, e, ev, certify)


def _solve_exact(n, c, d, e, ev):
    val = float(bob_exact(n[0], n[1], c[0], c[1], d[0], d[1], e, bool(ev)))
    if not math.isfinite(val):
        raise BobSolverError(f"bob_exact returned {val}")
    return val


def solve_bob(
    counts: Sequence[float],
    C: Sequence[float],
    D: Sequence[float],
    E: float,
    *,
    ev: bool = False,
    backend: str = "auto",
    on_failure: str = "raise",
    hessian: str = "exact",
    options: dict | None = None,
) -> float:
    """Optimum of the BoB (or EV-BoB) NLP.

    Implements the optimisation problems of Corollary 7 (cor:delta_correct_Kinf_thresholds)
    and Corollary cor:delta_correct_Kinf_thresholds_ev:
    maximise ``1/2 sum_c N_c ln(1 + y_c)`` (``ev``: ``1/2 sum_c N_c y_c``) subject to
    ``y_c >= 0``, ``x_c y_c <= C_c``, ``x_c >= D_c`` and
    ``1/2 sum_c N_c ((1 + y_c) x_c - 1 - ln x_c) <= E``.

    Parameters
    ----------
    counts, C, D : sequence of 2 positive floats
        ``N_c``, ``C_c = eps_mu(N_c, delta/2)``, ``D_c = 1 - eps_{-,sigma}(N_c - 1, delta/2)``.
    E : float
        Right-hand side of the KL constraint (``c^KL(N_t, delta/2)``); ``+inf`` drops it.
    ev : bool
        EV-BoB objective (linear in ``y``).
    backend : {"auto", "ipopt", "cyipopt", "exact"}
        See the module docstring.
    on_failure : {"raise", "fallback"}
        On a solver failure raise :class:`BobSolverError`, or return
        :func:`bob_upper_bound` (``min(Box(delta/2), KL(delta/2))``; EV: ``EV-Box(delta/2)``)
        and increment :func:`bob_fallback_count`.
    hessian : {"exact", "limited-memory"}
        Hessian used by the ``cyipopt`` bridge.
    options : dict, optional
        Extra Ipopt options.

    Returns
    -------
    float
        The optimum value (the threshold).

    Raises
    ------
    ValueError
        On invalid arguments.
    BobSolverError
        On solver failure with ``on_failure="raise"``.
    """
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    if on_failure not in ("raise", "fallback"):
        raise ValueError(f"on_failure must be 'raise' or 'fallback', got {on_failure!r}")
    if hessian not in ("exact", "limited-memory"):
        raise ValueError(f"hessian must be 'exact' or 'limited-memory', got {hessian!r}")
    n, c, d, e = _validate(counts, C, D, E)
    backend = resolve_backend(backend)
    try:
        if backend == "ipopt":
            return _solve_ipopt_exe(n, c, d, e, ev, options)
        if backend == "cyipopt":
            return _solve_cyipopt(n, c, d, e, ev, options, hessian)
        return _solve_exact(n, c, d, e, ev)
    except BobSolverError:
        if on_failure == "raise":
            raise
        _FALLBACKS["count"] += 1
        warnings.warn(
            "BoB solver failed; returning the conservative bound min(Box, KL)",
            RuntimeWarning,
            stacklevel=2,
        )
        return bob_upper_bound(n, c, d, e, ev=ev)


def ipopt_solution(
    counts: Sequence[float],
    C: Sequence[float],
    D: Sequence[float],
    E: float,
    *,
    ev: bool = False,
    backend: str = "cyipopt",
    options: dict | None = None,
) -> float:
    """Objective value at the point Ipopt returns for the BoB (or EV-BoB) NLP, checked for
    feasibility but *not* certified against the global maximum (the program is not convex,
    see the module docstring): what Ipopt alone gives, for the agreement table of the pipeline. Use
    :func:`solve_bob` for a threshold.

    Raises
    ------
    ValueError
        If ``backend`` is not ``"ipopt"`` or ``"cyipopt"``.
    BobSolverError
        If Ipopt fails or returns an infeasible point.
    """
    if backend not in ("ipopt", "cyipopt"):
        raise ValueError(f"backend must be 'ipopt' or 'cyipopt', got {backend!r}")
    n, c, d, e = _validate(counts, C, D, E)
    if backend == "ipopt":
        return _solve_ipopt_exe(n, c, d, e, ev, options, certify=False)
    return _solve_cyipopt(n, c, d, e, ev, options, "exact", certify=False)
