"""The registry: every sampling rule and every threshold family, with their kernel codes,
stopping rules and parameters. The single source of truth that the engine, the identifier,
the configuration schema (its enums and the defaults of the run parameters), the
experiments, the reproduction report and the figures read.

How to add a sampling rule, a run parameter or a threshold family (its module, a record
here, its test): ``docs/extending.md``.

The built-in rules are branches of :func:`~baiuv.simulation.rules.select_arm` under the
``RULE_*`` codes below (one module per rule family in :mod:`baiuv.simulation.rules`),
sharing :data:`BUILTIN_WORKSPACE`; the built-in families are branches of
:func:`~baiuv.thresholds.kernels.pair_threshold_kernel` under the codes below, with their
constants in :mod:`baiuv.thresholds.families`; both are compiled into the cached loop
:func:`~baiuv.simulation.rules.run_glr`.

Nothing here imports numba, scipy or the engine: the pipeline reads the registry when it
validates a configuration.
"""

from __future__ import annotations

import importlib
import operator
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import KW_ONLY, dataclass, field, replace
from typing import NamedTuple

__all__ = [
    "ALGORITHMS",
    "Algorithm",
    "BUILTIN_WORKSPACE",
    "EV_FAMILIES",
    "FAMILIES",
    "GLR_FAMILIES",
    "LAZY_SUFFIX",
    "PAPER_FAMILIES",
    "PARAMETERS",
    "Parameter",
    "RULE_PARAMETERS",
    "THRESHOLD_FAMILIES",
    "THRESHOLD_PARAM_FIELDS",
    "ThresholdFamily",
    "Workspace",
    "family_parameter",
    "get_algorithm",
    "label",
    "register",
    "run_parameters",
    "schema_properties",
    "selection",
]

# ------------------------------------------------------------------------ kernel codes
#: Codes of the sampling rules in :func:`baiuv.simulation.rules.select_arm`;
#: ``RULE_CUSTOM`` is the code a registered step kernel runs with.
RULE_CUSTOM = -1
RULE_UNIFORM = 0
RULE_FIXED = 1
RULE_TAS = 2
RULE_TCI = 3
RULE_DKM = 4
RULE_FWS = 5

#: Codes of the threshold families in :func:`baiuv.thresholds.kernels.pair_threshold_kernel`;
#: ``THRESHOLD_CUSTOM`` is the code a family registered with its own kernel runs with.
THRESHOLD_CUSTOM = -1
HEURISTIC = 0
STUDENT = 1
BOX = 2
KL = 3
BOB = 4
EV_STUDENT = 5
EV_BOX = 6
EV_BOB = 7
EV_HEURISTIC_STUDENT = 8

KERNELS = ("glr", "fhn")
#: Suffix of a threshold variant evaluated by the lazy stopping rule (``"bob-lazy"``).
LAZY_SUFFIX = "-lazy"
WRAPPERS = ("adapted", "EV", "baseline", "extension")


def _check_function(value, what: str) -> None:
    """``ValueError`` unless ``value`` is callable or names one as ``"module:function"``."""
    if isinstance(value, str):
        mod, _, fn = value.partition(":")
        if not (mod and fn.isidentifier()):
            raise ValueError(f"{what} must be 'module:function', got {value!r}")
    elif not callable(value):
        raise ValueError(f"{what} must be a compiled function or 'module:function', got {value!r}")


def _load_function(value, what: str):
    """``value`` itself, or the function that ``"module:function"`` names (imported now)."""
    if value is None or not isinstance(value, str):
        return value
    mod, _, fn = value.partition(":")
    try:
        return getattr(importlib.import_module(mod), fn)
    except (ImportError, AttributeError) as e:
        raise ValueError(f"{what}: cannot import {value!r} ({e})") from e


# -------------------------------------------------------------------------- parameters
#: Configuration sections whose schema may carry a rule parameter (generated there).
PARAMETER_SECTIONS = ("simulation", "asymptotic", "delta_correct")
_BOUNDS = {"minimum": ">=", "exclusiveMinimum": ">", "maximum": "<=", "exclusiveMaximum": "<"}
_OPS = {"minimum": operator.ge, "exclusiveMinimum": operator.gt, "maximum": operator.le}
_OPS["exclusiveMaximum"] = operator.lt


@dataclass(frozen=True)
class Parameter:
    """A parameter of a run (a field of :class:`baiuv.simulation.engine.RunSettings`).

    ``slot`` is its index in the ``params`` array that the sampling kernels read (``None``
    for parameters the engine itself uses). A parameter with a slot is a *rule parameter*:
    its field of ``RunSettings``, its keyword of
    :class:`~baiuv.simulation.identify.BestArmIdentifier`, the validation of its values and
    its key in the configuration sections ``sections`` (with this default and description)
    are made from this record. ``schema`` is its JSON-schema type and bounds (``{"type":
    "number", "exclusiveMinimum": 0}``). The simulation section's run parameters reach
    every run of the stopping-time experiments and of the audit; the asymptotic and
    δ-correct experiments read ``beta`` only.
    """

    name: str
    default: object
    description: str
    slot: int | None = None
    schema: Mapping | None = field(default=None, hash=False, compare=False)
    sections: tuple[str, ...] = ()

    def __post_init__(self):
        if self.slot is None:
            return
        self.check_schema("rule parameter")
        if not set(self.sections) <= set(PARAMETER_SECTIONS):
            raise ValueError(
                f"sections of {self.name!r} must be among {PARAMETER_SECTIONS}, got "
                f"{self.sections!r}"
            )

    def check_schema(self, what: str) -> None:
        """``ValueError`` unless ``schema`` gives a numeric type and only bounds, and the
        default is within them (``what`` names the kind of parameter in the message)."""
        sch = dict(self.schema or {})
        if sch.get("type") not in ("number", "integer") or not set(sch) <= {"type", *_BOUNDS}:
            raise ValueError(
                f"schema of {what} {self.name!r} must give its type ('number' or "
                f"'integer') and bounds ({', '.join(_BOUNDS)}), got {self.schema!r}"
            )
        if not self.accepts(self.default):
            raise ValueError(f"default of {self.name!r} must be {self.allowed}")

    @property
    def allowed(self) -> str:
        """The values a rule parameter accepts, in words (``"in (0, 1)"``, ``"> 0"``)."""
        sch = self.schema or {}
        lo = next(((k, sch[k]) for k in ("minimum", "exclusiveMinimum") if k in sch), None)
        hi = next(((k, sch[k]) for k in ("maximum", "exclusiveMaximum") if k in sch), None)
        if lo and hi:
            left = "[" if lo[0] == "minimum" else "("
            right = "]" if hi[0] == "maximum" else ")"
            return f"in {left}{lo[1]}, {hi[1]}{right}"
        return " and ".join(f"{_BOUNDS[b[0]]} {b[1]}" for b in (lo, hi) if b) or "any value"

    def accepts(self, value) -> bool:
        """Whether ``value`` (a number of the parameter's type) is within its bounds."""
        try:
            if not value == value:  # nan
                return False
            for k, b in (self.schema or {}).items():
                if k in _OPS and not _OPS[k](value, b):
                    return False
        except TypeError:
            return False
        return True


_UNIT = {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1}
_POSITIVE = {"type": "number", "exclusiveMinimum": 0}

#: Parameters of a run, with their defaults (the configuration schema's defaults of the
#: same keys are filled from here; the keys of the rule parameters are made from here).
PARAMETERS: dict[str, Parameter] = {
    p.name: p
    for p in (
        Parameter("delta", 0.01, "confidence level (used when log_inv_delta is not given)"),
        Parameter(
            "log_inv_delta", None, "confidence level as ln(1/delta) (exactly one of the two)"
        ),
        Parameter("threshold", "heuristic", "threshold family"),
        Parameter("n0", 2, "initial pulls of each arm (GLR-based rules)"),
        Parameter("fhn_n0", None, "initial sample size of FHN1/FHN2 (None: from delta)"),
        Parameter(
            "beta",
            0.5,
            "leader probability of the Top Two rules",
            slot=0,
            schema=_UNIT,
            sections=PARAMETER_SECTIONS,
        ),
        Parameter(
            "fws_exponent",
            0.9,
            "FWS radius r_t = t^(-fws_exponent)/K",
            slot=1,
            schema=_POSITIVE,
            sections=("simulation",),
        ),
        Parameter(
            "hedge_delta0",
            0.01,
            "initial AdaHedge mixability-gap budget (DKM)",
            slot=2,
            schema=_POSITIVE,
            sections=("simulation",),
        ),
        Parameter("max_samples", 10_000_000, "safety cap on a run's length"),
        Parameter("lazy_ratio", None, "grid ratio of the lazy stopping rule (None: eager)"),
    )
}

#: Names of the rule parameters (those with a kernel slot), in registry order.
RULE_PARAMETERS = tuple(n for n, p in PARAMETERS.items() if p.slot is not None)


def schema_properties(section: str) -> dict[str, dict]:
    """The configuration schema's keys of the rule parameters of ``section`` (its
    ``registry_parameters:`` mark), each with its type, bounds, default and description;
    in the ``simulation`` section also the registered threshold families' own parameters
    (type, bounds and description, no default: a family falls back to its declared one)."""
    props = {
        p.name: {**dict(p.schema), "default": p.default, "description": p.description}
        for p in PARAMETERS.values()
        if p.slot is not None and section in p.sections
    }
    if section == "simulation":
        for f in THRESHOLD_FAMILIES.values():
            for p in f.params:
                props[p.name] = {
                    **dict(p.schema),
                    "description": f"{p.description} (parameter of the threshold family "
                    f"{f.name!r}; default {p.default})",
                }
    return props


def run_parameters(section) -> dict:
    """The entries of a configuration section that are run parameters (keyword arguments
    of :class:`baiuv.simulation.engine.RunSettings`), in registry order; the threshold
    families' own parameters it gives go into ``threshold_params``."""
    out = {k: section[k] for k in PARAMETERS if k in section}
    own = {
        p.name: section[p.name]
        for f in THRESHOLD_FAMILIES.values()
        for p in f.params
        if p.name in section
    }
    if own:
        out["threshold_params"] = own
    return out


#: Number of the rule parameters, the first slots of the kernels' ``params`` array.
N_PARAMS = 1 + max(p.slot for p in PARAMETERS.values() if p.slot is not None)
if sorted(PARAMETERS[n].slot for n in RULE_PARAMETERS) != list(range(N_PARAMS)):
    raise ImportError("the rule parameters' slots must be 0, 1, ..., N_PARAMS - 1")
P_BETA = PARAMETERS["beta"].slot
P_FWS_EXPONENT = PARAMETERS["fws_exponent"].slot
P_HEDGE_DELTA0 = PARAMETERS["hedge_delta0"].slot
#: Slot of the sampling rules' indifference zone in the kernels' ``params`` array, after
#: the rule parameters: the run's ``sampling_epsilon``
#: (:class:`baiuv.simulation.RunSettings`), not a registry parameter; the Top Two rules
#: take their challenger with it (D323: the Top Two rules take their challenger with the
#: run's sampling epsilon).
P_SAMPLING_EPSILON = N_PARAMS
#: Length of the kernels' ``params`` array: the rule parameters and the sampling epsilon.
N_KERNEL_PARAMS = N_PARAMS + 1


# -------------------------------------------------------------------------- algorithms
class Workspace(NamedTuple):
    """The workspace a sampling rule keeps between its steps: ``ws``, a float64 array of
    ``rows + rows_per_arm * K`` rows of ``K`` entries (``rows_per_arm = 1`` adds a
    ``K x K`` block), and ``scal``, ``scalars`` floats; zero at the start of a run for a
    rule registered with its own step kernel
    (:func:`baiuv.simulation.rules.init_workspace`)."""

    rows: int = 0
    rows_per_arm: int = 0
    scalars: int = 0


#: The workspace of the built-in rules (one layout for all of them, its rows named and
#: initialised in :mod:`baiuv.simulation.rules.workspace`).
BUILTIN_WORKSPACE = Workspace(rows=17, rows_per_arm=1, scalars=5)


@dataclass(frozen=True)
class Algorithm:
    """A registered sampling rule.

    Attributes
    ----------
    name : str
        Registry key (used in file names, seeds and tables).
    kernel : {"glr", "fhn"}
        ``"glr"``: runs in :func:`baiuv.simulation.rules.run_glr` (with ``step``:
        :func:`baiuv.simulation.rules.run_glr_loop`); ``"fhn"``:
        :func:`baiuv.simulation.rules.run_fhn`.
    rule : int
        ``RULE_*`` code of its built-in step function (``glr`` only, without ``step``).
    plug_in : bool
        ``True`` for the empirical-variance ("EV-") wrapper: known-variance formulas with
        ``sigma_t^2`` plugged in, and the EV-GLR stopping rule; ``False``: adapted
        unknown-variance transportation costs and the GLR stopping rule.
    family : str
        Base algorithm shared by the two wrappers (``"TaS"`` for TaS and EV-TaS); pairs
        them in figures (one colour per family) and in the reproduction report.
    wrapper : {"adapted", "EV", "baseline", "extension"}
        Which wrapper of Section 4 (the paper's baselines have none); ``"extension"``
        (the default): a rule beyond the paper, outside the paper's comparisons (its
        claims, :attr:`in_paper`) though it runs in every experiment that names it.
    description : str
        One line for tables and ``--help``.
    constant : str or None
        Key of :func:`baiuv.studies.asymptotic.theoretical_constants` that
        ``E[tau_delta]/log(1/delta)`` tends to (``None``: no asymptotic constant).
    constant_source : str
        Where that constant comes from (theorem, appendix, conjecture).
    needs_instance : bool
        The rule reads the true instance (``fixed``): a baseline of the simulator only,
        not usable on real data (:class:`baiuv.BestArmIdentifier`) nor in the δ-correct
        experiment.
    step : callable, str or None
        The rule's own step kernel (``glr`` only, instead of a ``RULE_*`` code): a
        ``numba.njit`` function with the signature of
        :func:`baiuv.simulation.rules.select_arm`, or ``"module:function"`` naming one
        (imported when a run needs it, so the registry itself imports no numba). It runs
        in :func:`baiuv.simulation.rules.run_glr_loop` with ``rule = RULE_CUSTOM``.
    label : str
        Display name in reports and figures (default: ``name``).
    workspace : Workspace
        The size of the workspace ``ws``/``scal`` its step kernel reads and writes (a rule
        registered with ``step``: zero at the start of a run; default: none). The built-in
        rules share :data:`BUILTIN_WORKSPACE`.
    """

    name: str
    kernel: str
    _: KW_ONLY  # the other fields by keyword
    rule: int = -1
    plug_in: bool = False
    family: str = ""
    wrapper: str = "extension"
    description: str = ""
    constant: str | None = None
    constant_source: str = ""
    needs_instance: bool = False
    step: object = None
    label: str = ""
    workspace: Workspace | None = None

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name:
            raise ValueError(f"name must be a non-empty string, got {self.name!r}")
        ws = self.workspace
        if ws is None:
            ws = BUILTIN_WORKSPACE if self.step is None else Workspace()
        elif self.step is None and ws != BUILTIN_WORKSPACE:
            raise ValueError("workspace is declared by a rule registered with its own step kernel")
        if not (
            isinstance(ws, tuple)
            and len(ws) == 3
            and all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in ws)
        ):
            raise ValueError(
                f"workspace must be a Workspace(rows, rows_per_arm, scalars) of integers >= 0, "
                f"got {self.workspace!r}"
            )
        object.__setattr__(self, "workspace", Workspace(*ws))
        if self.kernel not in KERNELS:
            raise ValueError(f"kernel must be one of {KERNELS}, got {self.kernel!r}")
        if self.step is not None:
            if self.kernel != "glr" or self.rule != RULE_CUSTOM:
                raise ValueError(
                    "step is only for a glr rule without a RULE_* code (kernel='glr', rule "
                    f"left unset), got kernel={self.kernel!r}, rule={self.rule!r}"
                )
            _check_function(self.step, "step")
        elif self.kernel == "glr" and (not isinstance(self.rule, int) or self.rule < 0):
            raise ValueError(
                f"rule must be a RULE_* code >= 0 for a glr rule (or give a step kernel), "
                f"got {self.rule!r}"
            )
        if self.wrapper not in WRAPPERS:
            raise ValueError(f"wrapper must be one of {WRAPPERS}, got {self.wrapper!r}")
        if not self.family:
            object.__setattr__(self, "family", self.name)
        if not self.label:
            object.__setattr__(self, "label", self.name)

    @property
    def stopping(self) -> str:
        """Name of the stopping rule: ``"GLR"``, ``"EV-GLR"`` or ``"elimination"``."""
        if self.kernel == "fhn":
            return "elimination"
        return "EV-GLR" if self.plug_in else "GLR"

    def step_kernel(self):
        """The compiled step kernel of a rule registered with ``step`` (imported from
        ``"module:function"`` on first use), ``None`` for a built-in rule."""
        return _load_function(self.step, f"step of algorithm {self.name!r}")

    @property
    def shares_levels(self) -> bool:
        """One trajectory can serve several stopping levels (threshold family, ``ln(1/δ)``,
        lazy ratio, ε): the rule never reads the level (every ``glr`` rule, D306); FHN1/FHN2's
        elimination reads ``δ``, so one level per trajectory."""
        return self.kernel != "fhn"

    @property
    def in_paper(self) -> bool:
        """One of the paper's algorithms (a wrapper or a baseline), compared in its claims;
        ``False`` for a rule beyond the paper (``wrapper="extension"``)."""
        return self.wrapper != "extension"

    @property
    def wrapped(self) -> bool:
        """One of the paper's wrapped algorithms (adapted or EV wrapper)."""
        return self.wrapper in ("adapted", "EV")


def _pair(name, rule, desc, constants):
    (c, src), (c_ev, src_ev) = constants
    return (
        Algorithm(
            name,
            "glr",
            rule=rule,
            plug_in=False,
            family=name,
            wrapper="adapted",
            description=desc + " (adapted costs)",
            constant=c,
            constant_source=src,
        ),
        Algorithm(
            f"EV-{name}",
            "glr",
            rule=rule,
            plug_in=True,
            family=name,
            wrapper="EV",
            description=desc + " (empirical variance)",
            constant=c_ev,
            constant_source=src_ev,
        ),
    )


_CONJ = "conjectured (Section ssec:experiments)"
_ALL = (
    *_pair(
        "TaS",
        RULE_TAS,
        "Track-and-Stop, C-tracking + forced exploration",
        (
            ("T_star", "Theorem thm:upper_bound_sample_complexity_algorithm"),
            ("T_star_known", "Appendix app:expected_sample_complexity"),
        ),
    ),
    *_pair(
        "TCI",
        RULE_TCI,
        "beta-EB-TCI Top Two",
        (
            ("T_star_beta", "Theorem thm:upper_bound_sample_complexity_algorithm (n0 >= 4)"),
            ("T_star_known_beta", "Appendix app:expected_sample_complexity (n0 >= 6)"),
        ),
    ),
    *_pair(
        "DKM",
        RULE_DKM,
        "Degenne-Koolen-Menard game, AdaHedge + best response",
        (("T_star", _CONJ), ("T_star_known", _CONJ)),
    ),
    *_pair("FWS", RULE_FWS, "Frank-Wolfe Sampling", (("T_star", _CONJ), ("T_star_known", _CONJ))),
    Algorithm(
        "FHN2",
        "fhn",
        rule=-1,
        plug_in=False,
        family="FHN2",
        wrapper="baseline",
        description="Fan-Hong-Nelson procedure 2",
    ),
    Algorithm(
        "FHN1",
        "fhn",
        rule=-1,
        plug_in=False,
        family="FHN1",
        wrapper="baseline",
        description="Fan-Hong-Nelson procedure 1",
    ),
    Algorithm(
        "uniform",
        "glr",
        rule=RULE_UNIFORM,
        plug_in=False,
        family="uniform",
        wrapper="baseline",
        description="round robin",
    ),
    Algorithm(
        "fixed",
        "glr",
        rule=RULE_FIXED,
        plug_in=False,
        family="fixed",
        wrapper="baseline",
        description="C-tracking of the true w*(mu, sigma^2)",
        constant="T_star",
        constant_source="tracking of w*(mu, sigma^2) (no theorem; decision D82)",
        needs_instance=True,
    ),
)

_LABELS = {"TCI": "β-EB-TCI", "EV-TCI": "β-EB-EVTCI", "fixed": "fixed w*"}

#: Every sampling rule, by name (order = figure and table order).
ALGORITHMS: dict[str, Algorithm] = {
    a.name: replace(a, label=_LABELS[a.name]) if a.name in _LABELS else a for a in _ALL
}


def register(entry, *, replace: bool = False):
    """Add a sampling rule (an :class:`Algorithm`, to :data:`ALGORITHMS`) or a threshold
    family (a :class:`ThresholdFamily`, to :data:`THRESHOLD_FAMILIES`); ``ValueError`` if
    the name is taken, unless ``replace``. Returns ``entry``."""
    if isinstance(entry, Algorithm):
        table, what = ALGORITHMS, "algorithm"
    elif isinstance(entry, ThresholdFamily):
        table, what = THRESHOLD_FAMILIES, "threshold family"
    else:
        raise ValueError(
            f"entry must be an Algorithm or a ThresholdFamily, got {type(entry).__name__}"
        )
    if entry.name in table and not replace:
        raise ValueError(f"{what} {entry.name!r} is already registered")
    if isinstance(entry, ThresholdFamily):
        for p in entry.params:
            other = family_parameter(p.name)
            if other is not None and other[0].name != entry.name:
                raise ValueError(
                    f"parameter {p.name!r} of threshold family {entry.name!r} is already a "
                    f"parameter of threshold family {other[0].name!r}"
                )
    table[entry.name] = entry
    return entry


def get_algorithm(name: str | Algorithm) -> Algorithm:
    """Registry lookup; ``ValueError`` naming ``algorithm`` on an unknown name."""
    if isinstance(name, Algorithm):
        return name
    if name not in ALGORITHMS:
        raise ValueError(f"algorithm must be one of {list(ALGORITHMS)}, got {name!r}")
    return ALGORITHMS[name]


# ------------------------------------------------------------------ threshold families
STOPPING_RULES = ("GLR", "EV-GLR")
#: The fixed fields of :class:`baiuv.thresholds.ThresholdParams` (a family's own parameter
#: takes none of these names).
THRESHOLD_PARAM_FIELDS = ("s", "gamma", "eta0", "eta1", "kl_union_over_pairs")


def family_parameter(name: str) -> tuple[ThresholdFamily, Parameter] | None:
    """The registered threshold family declaring the parameter ``name`` and its record
    (``None`` if no family declares it)."""
    for f in THRESHOLD_FAMILIES.values():
        for p in f.params:
            if p.name == name:
                return f, p
    return None


@dataclass(frozen=True)
class ThresholdFamily:
    """A threshold family: its kernel code, the stopping rules it serves (``"GLR"``,
    ``"EV-GLR"`` or both), whether it keeps a per-arm state (``stateful``: the kernels then
    update it after every sample), whether it depends on ``t`` alone and is non-decreasing
    in it (``t_only``: the simulator then bounds it between exact evaluations, decision
    D192), whether it is δ-correct, and its base family (``"box"`` for ``ev-box``; one
    colour per base in figures). The kernels read ``stateful`` and ``t_only`` from the
    spec that :func:`baiuv.thresholds.make_threshold` builds from this record.

    A built-in family is a branch of :func:`baiuv.thresholds.kernels.pair_threshold_kernel`
    under its ``code``. A registered family brings its own kernel instead (``kernel``, with
    ``code`` left unset): a ``numba.njit`` function with the signature of
    ``pair_threshold_kernel``, ``kernel(code, fparams, table, t, n_a, n_b, state_a,
    state_b) -> float``, or ``"module:function"`` naming one; it receives the spec's
    ``fparams`` (``K``, ``ln(1/delta)``, ``s``... at the ``baiuv.thresholds.kernels.P_*``
    slots) and, as ``table``, the float array that ``constants(K, log_inv_delta, params)``
    returns (``params`` a :class:`baiuv.thresholds.ThresholdParams`; an empty array without
    ``constants``). It keeps no per-arm state and returns ``+inf`` before its initial
    times. The engine runs it in :func:`baiuv.simulation.rules.run_glr_loop` (compiled once
    per process for that kernel), the identifier in its stopping check. ``params`` declares
    the family's own parameters (:class:`Parameter` records without slot, with their
    schema's type and bounds): given in ``threshold_params``, ``constants`` reads them with
    ``params.value(name)``.
    """

    name: str
    _: KW_ONLY  # the other fields by keyword
    code: int = THRESHOLD_CUSTOM
    rules: tuple[str, ...] = ()
    stateful: bool = False
    delta_correct: bool = True
    base: str = ""
    #: where the paper proves the family δ-correct, in its printed numbering ("Lemma 5");
    #: empty for a family beyond the paper (and for one that is not δ-correct)
    proof: str = ""
    #: asymptotically tight (Definition ``def:asymptotically_tight_threshold``): the
    #: asymptotic theorems' limits apply to runs stopped with it
    tight: bool = False
    t_only: bool = False
    #: display name in reports and figures (default: the name)
    label: str = ""
    #: drawn and tabulated with the paper's families (``False``: the artifact's own,
    #: beyond the paper, left out of the paper's threshold figures and tables)
    paper: bool = True
    # the family's own compiled kernel and its constants function (see above); ``None``
    # for a built-in family
    kernel: object = None
    constants: object = None
    #: the family's own parameters (:class:`Parameter` records without a slot, each with
    #: its schema's type and bounds), given in ``threshold_params`` and read by
    #: ``constants`` with ``params.value(name)``
    params: tuple[Parameter, ...] = ()

    def __post_init__(self):
        self._check_params()
        if not isinstance(self.name, str) or not self.name or self.name.endswith(LAZY_SUFFIX):
            raise ValueError(
                f"name must be a non-empty string not ending in {LAZY_SUFFIX!r}, got {self.name!r}"
            )
        rules = tuple(self.rules) if isinstance(self.rules, tuple | list) else ()
        if not rules or not set(rules) <= set(STOPPING_RULES):
            raise ValueError(f"rules must name some of {STOPPING_RULES}, got {self.rules!r}")
        object.__setattr__(self, "rules", rules)
        if self.kernel is None:
            if not isinstance(self.code, int) or self.code < 0 or self.constants is not None:
                raise ValueError(
                    "a family without its own kernel is a branch of pair_threshold_kernel: "
                    f"give its code >= 0 and no constants, got code={self.code!r}"
                )
        else:
            if self.code != THRESHOLD_CUSTOM:
                raise ValueError(
                    f"kernel is only for a family without a code (code left unset), got "
                    f"code={self.code!r}"
                )
            if self.stateful:
                raise ValueError("a family with its own kernel keeps no per-arm state")
            _check_function(self.kernel, "kernel")
            if self.constants is not None:
                _check_function(self.constants, "constants")
        if not isinstance(self.proof, str) or (self.proof and not self.delta_correct):
            raise ValueError(
                f"proof names where the family is proved δ-correct: a string, empty when "
                f"delta_correct=False, got proof={self.proof!r}"
            )
        if not self.base:
            object.__setattr__(self, "base", self.name.removeprefix("ev-"))
        if not self.label:
            object.__setattr__(self, "label", self.name)

    def _check_params(self) -> None:
        params = tuple(self.params) if isinstance(self.params, tuple | list) else None
        if params is None or not all(isinstance(p, Parameter) for p in params):
            raise ValueError(f"params must be a tuple of Parameter records, got {self.params!r}")
        names = [p.name for p in params]
        for p in params:
            if p.slot is not None or p.sections:
                raise ValueError(
                    f"threshold family parameter {p.name!r} takes no slot and no sections"
                )
            if p.name in PARAMETERS or p.name in THRESHOLD_PARAM_FIELDS or names.count(p.name) > 1:
                raise ValueError(
                    f"threshold family parameter {p.name!r} clashes with a run parameter, a "
                    f"field of ThresholdParams ({', '.join(THRESHOLD_PARAM_FIELDS)}) or another "
                    "of its parameters"
                )
            p.check_schema("threshold family parameter")
        object.__setattr__(self, "params", params)

    def threshold_kernel(self):
        """The compiled kernel of a family registered with ``kernel`` (imported from
        ``"module:function"`` on first use), ``None`` for a built-in family."""
        return _load_function(self.kernel, f"kernel of threshold family {self.name!r}")

    def constants_function(self):
        """The ``constants`` function of a registered family (``None`` if it has none)."""
        return _load_function(self.constants, f"constants of threshold family {self.name!r}")


#: Every threshold family, by name (order = table order).
THRESHOLD_FAMILIES: dict[str, ThresholdFamily] = {
    f.name: f
    for f in (
        ThresholdFamily(
            "heuristic",
            code=HEURISTIC,
            rules=("GLR", "EV-GLR"),
            delta_correct=False,
            tight=True,
            t_only=True,
        ),
        # proof: the printed numbering of the paper's lemmas (baiuv.report.paper_refs)
        ThresholdFamily("student", code=STUDENT, rules=("GLR",), label="Student", proof="Lemma 49"),
        ThresholdFamily("box", code=BOX, rules=("GLR",), label="Box", proof="Lemma 5"),
        ThresholdFamily(
            "kl",
            code=KL,
            rules=("GLR",),
            stateful=True,
            tight=True,
            label="KL",
            proof="Corollary 7",
        ),
        ThresholdFamily(
            "bob",
            code=BOB,
            rules=("GLR",),
            stateful=True,
            tight=True,
            label="BoB",
            proof="Corollary 7",
        ),
        ThresholdFamily(
            "ev-student", code=EV_STUDENT, rules=("EV-GLR",), label="EV-Student", proof="Lemma 50"
        ),
        ThresholdFamily("ev-box", code=EV_BOX, rules=("EV-GLR",), label="EV-Box", proof="Lemma 51"),
        ThresholdFamily(
            "ev-bob",
            code=EV_BOB,
            rules=("EV-GLR",),
            stateful=True,
            label="EV-BoB",
            proof="Corollary 52",
        ),
        # the heuristic's Gaussian level recalibrated for the studentised EV-GLR gap
        # (baiuv.thresholds.kernels.ev_heuristic_student; baiuv.studies.ev_remedies)
        ThresholdFamily(
            "ev-heuristic-student",
            code=EV_HEURISTIC_STUDENT,
            rules=("EV-GLR",),
            delta_correct=False,
            base="heuristic",
            label="EV-heuristic-Student",
            paper=False,
        ),
    )
}


class _Names(Sequence):
    """The names of the registered threshold families whose record passes ``keep``, read
    from :data:`THRESHOLD_FAMILIES` at every use (a family registered later is in it);
    compares equal to the tuple of those names."""

    def __init__(self, keep: Callable[[ThresholdFamily], bool]):
        self._keep = keep

    def _names(self) -> tuple[str, ...]:
        return tuple(n for n, f in THRESHOLD_FAMILIES.items() if self._keep(f))

    def __getitem__(self, i):
        return self._names()[i]

    def __len__(self) -> int:
        return len(self._names())

    def __iter__(self) -> Iterator[str]:
        return iter(self._names())

    def __contains__(self, name) -> bool:
        f = THRESHOLD_FAMILIES.get(name) if isinstance(name, str) else None
        return f is not None and bool(self._keep(f))

    def __eq__(self, other) -> bool:
        return self._names() == (tuple(other) if isinstance(other, Sequence) else other)

    __hash__ = None

    def __add__(self, other):
        return self._names() + tuple(other)

    def __repr__(self) -> str:
        return repr(self._names())


class _Codes(Mapping):
    """Kernel code of every registered threshold family, by name (read at every use)."""

    def __getitem__(self, name: str) -> int:
        return THRESHOLD_FAMILIES[name].code

    def __iter__(self) -> Iterator[str]:
        return iter(THRESHOLD_FAMILIES)

    def __len__(self) -> int:
        return len(THRESHOLD_FAMILIES)

    def __repr__(self) -> str:
        return repr(dict(self))


#: Names of every threshold family (the keys of :data:`THRESHOLD_FAMILIES`).
FAMILIES = _Names(lambda f: True)
#: Families of the GLR stopping rule (known or unknown variances).
GLR_FAMILIES = _Names(lambda f: "GLR" in f.rules)
#: Families of the EV-GLR stopping rule (plug-in variances).
EV_FAMILIES = _Names(lambda f: "EV-GLR" in f.rules)
#: Families that keep a per-arm state between steps (KL, BoB, EV-BoB).
STATEFUL = _Names(lambda f: f.stateful)
#: asymptotically tight families (the heuristic; KL and BoB by Lemma
#: ``lem:kl_Kinf_thresholds_asymptotically_tight``)
TIGHT = _Names(lambda f: f.tight)
#: The families drawn and tabulated with the paper's (every family but those beyond the
#: paper, ``paper=False``).
PAPER_FAMILIES = _Names(lambda f: f.paper)
#: Kernel code of every family, by name.
FAMILY_CODES = _Codes()


def _with_lazy_variants(families: Iterable[str]) -> list[str]:
    fams = list(families)
    return fams + [f + LAZY_SUFFIX for f in fams]


def label(name: str) -> str:
    """Display name of a registered algorithm or threshold family (its record's ``label``),
    ``name`` itself for anything else (e.g. a lazy variant)."""
    if name in ALGORITHMS:
        return ALGORITHMS[name].label
    if name in THRESHOLD_FAMILIES:
        return THRESHOLD_FAMILIES[name].label
    return name


# ----------------------------------------------------------- selections (schema enums)
def selection(name: str) -> list[str]:
    """A named list of registry entries; the configuration schema's ``registry:`` marks
    are replaced by ``enum: selection(name)`` when a configuration is validated.

    ``algorithms`` every rule; ``glr_algorithms`` the rules with a GLR-type stopping rule
    that run on any data (δ-correct experiment, identifier); ``asymptotic_algorithms`` the
    rules with an asymptotic constant; ``thresholds`` every family; ``glr_threshold_variants``
    / ``ev_threshold_variants`` the families of each stopping rule and their lazy variants.
    """
    algs = ALGORITHMS.values()
    table = {
        "algorithms": lambda: [a.name for a in algs],
        "glr_algorithms": lambda: [
            a.name for a in algs if a.kernel == "glr" and not a.needs_instance
        ],
        "asymptotic_algorithms": lambda: [a.name for a in algs if a.constant is not None],
        "thresholds": lambda: list(FAMILIES),
        "glr_threshold_variants": lambda: _with_lazy_variants(GLR_FAMILIES),
        "ev_threshold_variants": lambda: _with_lazy_variants(EV_FAMILIES),
    }
    if name not in table:
        raise ValueError(f"selection must be one of {sorted(table)}, got {name!r}")
    return table[name]()
