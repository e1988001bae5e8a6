"""The record of one experiment, :class:`ExperimentSpec`, that every experiment module (and
every study of the artifact's own) exports as ``SPEC``; the pipeline iterates over them
(:mod:`baiuv.pipeline.specs` lists the modules) instead of naming each experiment
(D370: one record per experiment).

A record holds what the configuration loader, the shard runner, the workflow's default
targets, the batch rules and the reproduction report need of an experiment: its optional
configuration section and that section's checks, its shard kinds, its targets, the result
files its claims read and its claims. The functions it holds take the validated
configuration (a mapping), so a record is built once, at import, with keywords.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "ExperimentSpec",
    "ShardKind",
    "ShardPlan",
    "figure_files",
    "instances_of",
    "section_delta",
    "section_log_inv_delta",
]


def figure_files(name: str) -> list[str]:
    """Both formats of one figure of ``results/figures/``."""
    return [f"results/figures/{name}.pdf", f"results/figures/{name}.png"]


@dataclass(frozen=True)
class ShardPlan:
    """The shards of one kind that a configuration asks for.

    ``cells``: the wildcard values of every shard, in the order of the aggregate's input;
    ``params(code, **wildcards)``: the parameters of one shard (the shard rule's and the
    batch rules'), ``code`` the hash of the package's sources."""

    cells: list[dict]
    params: Callable[..., dict]


@dataclass(frozen=True)
class ShardKind:
    """A family of shard jobs of an experiment.

    ``name`` names its batch rules and its entry of
    :data:`baiuv.pipeline.cells.SHARD_KINDS`; ``run(params, progress)`` simulates one shard
    and returns ``(runs, recorded parameters, label)``, ``progress(label)`` giving the
    progress reporter of the shard's log; ``output`` maps ``runs`` and ``timings`` to the
    path patterns of a shard's two files, ``log`` is the pattern of its log; ``plan(config)``
    gives the :class:`ShardPlan` of a configuration; ``modules``: what ``run`` imports, loaded
    before the batch runner forks."""

    name: str
    run: Callable[[Mapping, Callable[[str], Any]], tuple[Any, dict, str]]
    output: Mapping[str, str]
    log: str
    plan: Callable[[Mapping], ShardPlan]
    modules: tuple[str, ...] = ()


def _no_targets(config: Mapping) -> list[str]:
    return []


def _no_inputs(config: Mapping) -> dict[str, Any]:
    return {}


@dataclass(frozen=True)
class ExperimentSpec:
    """One experiment (or study) as the pipeline sees it.

    Parameters
    ----------
    name : str
        Its name (the module's).
    section : str or None
        Its optional top-level configuration section (absent or ``null`` skips the
        experiment; :func:`baiuv.pipeline.config.optional_sections`), ``None`` when it has
        none.
    check : callable or None
        ``check(section, config)``: the checks of its section the schema cannot make,
        raising ``ValueError`` naming the key.
    enabled : callable or None
        ``enabled(config)``: whether the configuration runs it; by default, whether its
        section is present (and not empty).
    shard_kinds : sequence of ShardKind
        Its families of shard jobs.
    targets : callable
        ``targets(config)``: its final figures and tables (the default rule's).
    report_inputs : callable
        ``report_inputs(config)``: the result files its claims read, by key (a path or a
        list of paths).
    claims : callable or None
        ``claims(tables, config)``: its rows of the reproduction report (``baiuv.claims.Claim``),
        ``tables`` mapping each key of its report inputs to the table read (a list of them
        for a list of paths).
    beyond_paper : bool
        A study of the artifact's own (:mod:`baiuv.studies`), not one of the paper's.
    rules : str or None
        Its rule file in ``workflow/rules/``, included by the ``Snakefile`` when the
        configuration runs it.
    """

    name: str
    section: str | None = None
    check: Callable[[Mapping, Mapping], None] | None = None
    enabled: Callable[[Mapping], bool] | None = None
    shard_kinds: Sequence[ShardKind] = field(default=())
    targets: Callable[[Mapping], list[str]] = _no_targets
    report_inputs: Callable[[Mapping], dict[str, Any]] = _no_inputs
    claims: Callable[[Mapping[str, Any], Mapping], list] | None = None
    beyond_paper: bool = False
    rules: str | None = None

    def runs(self, config: Mapping) -> bool:
        """Whether the configuration ``config`` runs this experiment."""
        if self.enabled is not None:
            return bool(self.enabled(config))
        if self.section is not None:
            return bool(config.get(self.section))
        return True


def section_log_inv_delta(section: Mapping) -> float:
    """``ln(1/delta)`` of a validated configuration section holding ``delta`` or
    ``log_inv_delta``."""
    from baiuv.model.validate import log_inv_delta_of

    return log_inv_delta_of(section.get("delta"), section.get("log_inv_delta"))


def section_delta(section: Mapping) -> float:
    """``delta`` of such a section (``exp(-log_inv_delta)``, ``0.0`` once it underflows)."""
    from baiuv.model.validate import delta_from_log

    if section.get("delta") is not None:
        return float(section["delta"])
    return delta_from_log(section_log_inv_delta(section))


def instances_of(config: Mapping) -> dict:
    """The configuration's named instances by name."""
    return {inst["name"]: inst for inst in config["instances"]}
