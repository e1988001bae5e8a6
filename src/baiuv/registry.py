"""The registry: every sampling rule and every threshold family, with their kernel codes,
stopping rules and parameters. The single source of truth that the engine, the identifier,
the configuration schema (its enums and the defaults of the run parameters), the
experiments, the reproduction report and the figures read.

The tables are written here, in the source, and read at import (D380: the registry is
the source's static table): adding a sampling rule or a threshold family is adding its
module, its record in :data:`ALGORITHMS`' or :data:`THRESHOLD_FAMILIES`' table, and its
test; a run parameter is a record of :data:`baiuv.registry_parameters.PARAMETERS` (with
its field of ``RunSettings`` and keyword of ``BestArmIdentifier``): ``docs/extending.md``.
The records are built with keywords.

The built-in rules are branches of :func:`~baiuv.simulation.rules.select_arm` under the
``RULE_*`` codes below (one module per rule family in :mod:`baiuv.simulation.rules`, which
names, sizes and initialises the rule's workspace, the size its record carries); the
built-in families are one module each in :mod:`baiuv.thresholds.builtin` (its record's
``module``), their kernels branches of
:func:`~baiuv.thresholds.kernels.pair_threshold_kernel` under the codes below, dispatched
by :mod:`baiuv.thresholds._dispatch`, generated from this table (D395); both are compiled
into the cached loop :func:`~baiuv.simulation.rules.run_glr`.

Nothing here imports numba, scipy or the engine: the pipeline reads the registry when it
validates a configuration.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import NamedTuple

# re-exported: the kernels, the engine and the schema read the slots and sections here
from baiuv.registry_parameters import (  # noqa: F401
    N_KERNEL_PARAMS,
    N_PARAMS,
    P_BETA,
    P_FWS_EXPONENT,
    P_HEDGE_DELTA0,
    P_SAMPLING_EPSILON,
    PARAMETER_SECTIONS,
    PARAMETERS,
    RULE_PARAMETERS,
    Parameter,
)

__all__ = [
    "ALGORITHMS",
    "Algorithm",
    "EV_FAMILIES",
    "FAMILIES",
    "GLR_FAMILIES",
    "FamilyNames",
    "LAZY_SUFFIX",
    "PAPER_FAMILIES",
    "PARAMETERS",
    "Parameter",
    "RULE_PARAMETERS",
    "THRESHOLD_FAMILIES",
    "THRESHOLD_PARAM_FIELDS",
    "ThresholdFamily",
    "Workspace",
    "algorithm_table",
    "family_names",
    "family_parameter",
    "family_table",
    "get_algorithm",
    "label",
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


# -------------------------------------------------------------------------- algorithms
class Workspace(NamedTuple):
    """The workspace a sampling rule keeps between its steps: ``ws``, a float64 array of
    ``rows + rows_per_arm * K`` rows of ``K`` entries (``rows_per_arm = 1`` adds a
    ``K x K`` block), and ``scal``, ``scalars`` floats; zero at the start of a run for a
    rule registered with its own step kernel
    (:func:`baiuv.simulation.rules.init_workspace`), initialised by its module for a
    built-in rule (which names its rows, ``WORKSPACE`` its size)."""

    rows: int = 0
    rows_per_arm: int = 0
    scalars: int = 0


# the built-in rules' workspaces: their modules' WORKSPACE in baiuv.simulation.rules
# (tas, dkm, fws, tracking), which a test compares with these (D390)
_TAS_WS = Workspace(rows=10, scalars=4)
_DKM_WS = Workspace(rows=7, scalars=1)
_FWS_WS = Workspace(rows=6, rows_per_arm=1)
_FIXED_WS = Workspace(rows=1)


@dataclass(frozen=True, kw_only=True)
class Algorithm:
    """A sampling rule of the registry (built with keywords).

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
        registered with ``step``: zero at the start of a run; default: none). A built-in
        rule's is its module's ``WORKSPACE`` (initialised by the module).
    """

    name: str
    kernel: str
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
        ws = Workspace() if self.workspace is None else self.workspace
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


def _pair(*, name, rule, description, constants, labels=("", ""), workspace=None):
    """The adapted rule ``name`` and its EV wrapper ``EV-name`` (one family)."""
    (c, src), (c_ev, src_ev) = constants
    return (
        Algorithm(
            name=name,
            kernel="glr",
            rule=rule,
            plug_in=False,
            family=name,
            wrapper="adapted",
            description=description + " (adapted costs)",
            constant=c,
            constant_source=src,
            label=labels[0],
            workspace=workspace,
        ),
        Algorithm(
            name=f"EV-{name}",
            kernel="glr",
            rule=rule,
            plug_in=True,
            family=name,
            wrapper="EV",
            description=description + " (empirical variance)",
            constant=c_ev,
            constant_source=src_ev,
            label=labels[1],
            workspace=workspace,
        ),
    )


def algorithm_table(algorithms: Iterable[Algorithm]) -> dict[str, Algorithm]:
    """The records by name, in their order; ``ValueError`` if a name is taken twice."""
    table: dict[str, Algorithm] = {}
    for a in algorithms:
        if not isinstance(a, Algorithm):
            raise ValueError(f"an algorithm table holds Algorithm records, got {a!r}")
        if a.name in table:
            raise ValueError(f"algorithm {a.name!r} is in the table twice")
        table[a.name] = a
    return table


_CONJ = "conjectured (Section ssec:experiments)"
#: Every sampling rule, by name (order = figure and table order).
ALGORITHMS: dict[str, Algorithm] = algorithm_table(
    (
        *_pair(
            name="TaS",
            rule=RULE_TAS,
            description="Track-and-Stop, C-tracking + forced exploration",
            constants=(
                ("T_star", "Theorem thm:upper_bound_sample_complexity_algorithm"),
                ("T_star_known", "Appendix app:expected_sample_complexity"),
            ),
            workspace=_TAS_WS,
        ),
        *_pair(
            name="TCI",
            rule=RULE_TCI,
            description="beta-EB-TCI Top Two",
            constants=(
                ("T_star_beta", "Theorem thm:upper_bound_sample_complexity_algorithm (n0 >= 4)"),
                ("T_star_known_beta", "Appendix app:expected_sample_complexity (n0 >= 6)"),
            ),
            labels=("β-EB-TCI", "β-EB-EVTCI"),
        ),
        *_pair(
            name="DKM",
            rule=RULE_DKM,
            description="Degenne-Koolen-Menard game, AdaHedge + best response",
            constants=(("T_star", _CONJ), ("T_star_known", _CONJ)),
            workspace=_DKM_WS,
        ),
        *_pair(
            name="FWS",
            rule=RULE_FWS,
            description="Frank-Wolfe Sampling",
            constants=(("T_star", _CONJ), ("T_star_known", _CONJ)),
            workspace=_FWS_WS,
        ),
        Algorithm(
            name="FHN2",
            kernel="fhn",
            wrapper="baseline",
            description="Fan-Hong-Nelson procedure 2",
        ),
        Algorithm(
            name="FHN1",
            kernel="fhn",
            wrapper="baseline",
            description="Fan-Hong-Nelson procedure 1",
        ),
        Algorithm(
            name="uniform",
            kernel="glr",
            rule=RULE_UNIFORM,
            wrapper="baseline",
            description="round robin",
        ),
        Algorithm(
            name="fixed",
            kernel="glr",
            rule=RULE_FIXED,
            wrapper="baseline",
            description="C-tracking of the true w*(mu, sigma^2)",
            constant="T_star",
            constant_source="tracking of w*(mu, sigma^2) (no theorem; decision D82)",
            needs_instance=True,
            label="fixed w*",
            workspace=_FIXED_WS,
        ),
    )
)


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


@dataclass(frozen=True, kw_only=True)
class ThresholdFamily:
    """A threshold family: its kernel code, the stopping rules it serves (``"GLR"``,
    ``"EV-GLR"`` or both), whether it keeps a per-arm state (``stateful``: the kernels then
    update it after every sample), whether it depends on ``t`` alone and is non-decreasing
    in it (``t_only``: the simulator then bounds it between exact evaluations, decision
    D192), whether it is δ-correct, and its base family (``"box"`` for ``ev-box``; one
    colour per base in figures). The kernels read ``stateful`` and ``t_only`` from the
    spec that :func:`baiuv.thresholds.make_threshold` builds from this record.

    A built-in family is one module (``module``, :mod:`baiuv.thresholds.builtin`), its
    kernel a branch of :func:`baiuv.thresholds.kernels.pair_threshold_kernel` under its
    ``code`` (the dispatcher :mod:`baiuv.thresholds._dispatch` is generated from this
    table, D395). A registered family brings its own kernel instead (``kernel``, with
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
    #: the module of a built-in family (``"baiuv.thresholds.builtin.box"``): its kernel
    #: branch, initial count and constants (:mod:`baiuv.thresholds.builtin`), dispatched
    #: under ``code``; empty for a family registered with its own kernel
    module: str = ""
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
        if not isinstance(self.module, str) or (self.module and self.kernel is not None):
            raise ValueError(
                f"module names the module of a built-in family (without kernel), got "
                f"module={self.module!r}"
            )
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


def family_table(families: Iterable[ThresholdFamily]) -> dict[str, ThresholdFamily]:
    """The records by name, in their order; ``ValueError`` if a name is taken twice or two
    families declare a parameter of the same name."""
    table: dict[str, ThresholdFamily] = {}
    owner: dict[str, str] = {}
    for f in families:
        if not isinstance(f, ThresholdFamily):
            raise ValueError(f"a family table holds ThresholdFamily records, got {f!r}")
        if f.name in table:
            raise ValueError(f"threshold family {f.name!r} is in the table twice")
        for p in f.params:
            if p.name in owner:
                raise ValueError(
                    f"parameter {p.name!r} of threshold family {f.name!r} is already a "
                    f"parameter of threshold family {owner[p.name]!r}"
                )
            owner[p.name] = f.name
        table[f.name] = f
    return table


#: Every threshold family, by name (order = table order).
THRESHOLD_FAMILIES: dict[str, ThresholdFamily] = family_table(
    (
        ThresholdFamily(
            name="heuristic",
            code=HEURISTIC,
            module="baiuv.thresholds.builtin.heuristic",
            rules=("GLR", "EV-GLR"),
            delta_correct=False,
            tight=True,
            t_only=True,
        ),
        # proof: the printed numbering of the paper's lemmas (baiuv.report.paper_refs)
        ThresholdFamily(
            name="student",
            code=STUDENT,
            module="baiuv.thresholds.builtin.student",
            rules=("GLR",),
            label="Student",
            proof="Lemma 49",
        ),
        ThresholdFamily(
            name="box",
            code=BOX,
            module="baiuv.thresholds.builtin.box",
            rules=("GLR",),
            label="Box",
            proof="Lemma 5",
        ),
        ThresholdFamily(
            name="kl",
            code=KL,
            module="baiuv.thresholds.builtin.kl",
            rules=("GLR",),
            stateful=True,
            tight=True,
            label="KL",
            proof="Corollary 7",
        ),
        ThresholdFamily(
            name="bob",
            code=BOB,
            module="baiuv.thresholds.builtin.bob",
            rules=("GLR",),
            stateful=True,
            tight=True,
            label="BoB",
            proof="Corollary 7",
        ),
        ThresholdFamily(
            name="ev-student",
            code=EV_STUDENT,
            module="baiuv.thresholds.builtin.student",
            rules=("EV-GLR",),
            label="EV-Student",
            proof="Lemma 50",
        ),
        ThresholdFamily(
            name="ev-box",
            code=EV_BOX,
            module="baiuv.thresholds.builtin.box",
            rules=("EV-GLR",),
            label="EV-Box",
            proof="Lemma 51",
        ),
        ThresholdFamily(
            name="ev-bob",
            code=EV_BOB,
            module="baiuv.thresholds.builtin.bob",
            rules=("EV-GLR",),
            stateful=True,
            label="EV-BoB",
            proof="Corollary 52",
        ),
        # the heuristic's Gaussian level recalibrated for the studentised EV-GLR gap
        # (baiuv.thresholds.builtin.ev_heuristic_student; baiuv.studies.ev_remedies)
        ThresholdFamily(
            name="ev-heuristic-student",
            code=EV_HEURISTIC_STUDENT,
            module="baiuv.thresholds.builtin.ev_heuristic_student",
            rules=("EV-GLR",),
            delta_correct=False,
            base="heuristic",
            label="EV-heuristic-Student",
            paper=False,
        ),
    )
)


class FamilyNames(NamedTuple):
    """The names of the threshold families of a table that share a property, in table
    order, and the kernel code of every family (:func:`family_names`)."""

    every: tuple[str, ...]
    glr: tuple[str, ...]
    ev: tuple[str, ...]
    stateful: tuple[str, ...]
    tight: tuple[str, ...]
    paper: tuple[str, ...]
    codes: dict[str, int]


def family_names(families: Mapping[str, ThresholdFamily]) -> FamilyNames:
    """The name lists of the families ``families`` (a table of :func:`family_table`)."""

    def names(keep) -> tuple[str, ...]:
        return tuple(n for n, f in families.items() if keep(f))

    return FamilyNames(
        every=tuple(families),
        glr=names(lambda f: "GLR" in f.rules),
        ev=names(lambda f: "EV-GLR" in f.rules),
        stateful=names(lambda f: f.stateful),
        tight=names(lambda f: f.tight),
        paper=names(lambda f: f.paper),
        codes={n: f.code for n, f in families.items()},
    )


# The name lists of THRESHOLD_FAMILIES, made once at import from the table above:
#: FAMILIES every family; GLR_FAMILIES those of the GLR stopping rule (known or unknown
#: variances); EV_FAMILIES those of the EV-GLR stopping rule (plug-in variances);
#: STATEFUL those that keep a per-arm state between steps (KL, BoB, EV-BoB); TIGHT the
#: asymptotically tight ones (the heuristic; KL and BoB by Lemma
#: ``lem:kl_Kinf_thresholds_asymptotically_tight``); PAPER_FAMILIES those drawn and
#: tabulated with the paper's (every family but those beyond the paper, ``paper=False``);
#: FAMILY_CODES the kernel code of every family, by name.
FAMILIES, GLR_FAMILIES, EV_FAMILIES, STATEFUL, TIGHT, PAPER_FAMILIES, FAMILY_CODES = family_names(
    THRESHOLD_FAMILIES
)


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
