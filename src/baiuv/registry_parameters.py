"""The run parameters of the registry: their records (:class:`Parameter`), the table
:data:`PARAMETERS` with their defaults, and the slots of the rule parameters in the
sampling kernels' ``params`` array.

A rule parameter (a record with a ``slot``) is a field of
:class:`baiuv.simulation.engine.RunSettings` and a keyword of
:class:`baiuv.BestArmIdentifier`, both written in their source with the record's default
(a test checks that every record has them), and a key of the configuration sections the
record names (made from the record when a configuration is validated). Re-exported by
:mod:`baiuv.registry`; how to add one: ``docs/extending.md``.
"""

from __future__ import annotations

import operator
from collections.abc import Mapping
from dataclasses import dataclass, field

__all__ = [
    "N_KERNEL_PARAMS",
    "N_PARAMS",
    "PARAMETERS",
    "PARAMETER_SECTIONS",
    "P_BETA",
    "P_FWS_EXPONENT",
    "P_HEDGE_DELTA0",
    "P_SAMPLING_EPSILON",
    "Parameter",
    "RULE_PARAMETERS",
]

#: Configuration sections whose schema may carry a rule parameter (generated there).
PARAMETER_SECTIONS = ("simulation", "asymptotic", "delta_correct")
_BOUNDS = {"minimum": ">=", "exclusiveMinimum": ">", "maximum": "<=", "exclusiveMaximum": "<"}
_OPS = {"minimum": operator.ge, "exclusiveMinimum": operator.gt, "maximum": operator.le}
_OPS["exclusiveMaximum"] = operator.lt


@dataclass(frozen=True, kw_only=True)
class Parameter:
    """A parameter of a run (a field of :class:`baiuv.simulation.engine.RunSettings`),
    built with keywords.

    ``slot`` is its index in the ``params`` array that the sampling kernels read (``None``
    for parameters the engine itself uses). A parameter with a slot is a *rule parameter*:
    its field of ``RunSettings`` and its keyword of
    :class:`~baiuv.simulation.identify.BestArmIdentifier` are written in their source with
    this default (a test checks every record has both); the validation of its values and
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
        Parameter(
            name="delta",
            default=0.01,
            description="confidence level (used when log_inv_delta is not given)",
        ),
        Parameter(
            name="log_inv_delta",
            default=None,
            description="confidence level as ln(1/delta) (exactly one of the two)",
        ),
        Parameter(name="threshold", default="heuristic", description="threshold family"),
        Parameter(name="n0", default=2, description="initial pulls of each arm (GLR-based rules)"),
        Parameter(
            name="fhn_n0",
            default=None,
            description="initial sample size of FHN1/FHN2 (None: from delta)",
        ),
        Parameter(
            name="beta",
            default=0.5,
            description="leader probability of the Top Two rules",
            slot=0,
            schema=_UNIT,
            sections=PARAMETER_SECTIONS,
        ),
        Parameter(
            name="fws_exponent",
            default=0.9,
            description="FWS radius r_t = t^(-fws_exponent)/K",
            slot=1,
            schema=_POSITIVE,
            sections=("simulation",),
        ),
        Parameter(
            name="hedge_delta0",
            default=0.01,
            description="initial AdaHedge mixability-gap budget (DKM)",
            slot=2,
            schema=_POSITIVE,
            sections=("simulation",),
        ),
        Parameter(
            name="max_samples", default=10_000_000, description="safety cap on a run's length"
        ),
        Parameter(
            name="lazy_ratio",
            default=None,
            description="grid ratio of the lazy stopping rule (None: eager)",
        ),
    )
}

#: Names of the rule parameters (those with a kernel slot), in registry order.
RULE_PARAMETERS = tuple(n for n, p in PARAMETERS.items() if p.slot is not None)

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
