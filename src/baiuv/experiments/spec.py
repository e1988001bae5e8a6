"""The record of one experiment, :class:`ExperimentSpec`, that every experiment module (and
every study of the artifact's own) exports as ``SPEC``; the pipeline iterates over them
(:mod:`baiuv.pipeline.specs` finds the modules) instead of naming each experiment
(D370: one record per experiment).

A record holds what the configuration loader, the shard runner, the workflow's default
targets, the batch rules, the workflow's shared scripts, the report's entries and the
reproduction report need of an experiment: its place in the report, its optional
configuration section with that section's schema and checks, its shard kinds, its targets, the
functions its aggregate, figure and table jobs call, its report category and entries, the
result files its claims read and its claims. The functions it holds take the validated
configuration (a mapping), so a record is built once, at import, with keywords.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "Aggregated",
    "ExperimentSpec",
    "ReportEntry",
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


@dataclass(frozen=True)
class Aggregated:
    """What an experiment's ``aggregate`` step returns to the shared aggregate job
    (``workflow/scripts/aggregate.py``): ``tables`` maps output names of the rule to the
    tables written (Parquet, with ``meta``), the shards' timing files are aggregated into
    the output ``timings`` with ``timings_meta`` (``meta`` when ``None``); ``message`` is
    logged."""

    tables: Mapping[str, Any]
    meta: Mapping[str, Any]
    timings_meta: Mapping[str, Any] | None = None
    message: str = ""


@dataclass(frozen=True)
class ReportEntry:
    """One entry of the Snakemake report (a figure's PNG or a table's HTML page).

    ``key`` names it for ``report_category(key)`` and ``report_labels(key)`` of the rule
    files; ``path`` is the file shown; ``shows`` the short description next to it;
    ``paper`` the LaTeX labels of what it reproduces, printed through
    :mod:`baiuv.report.paper_refs` (empty beyond the paper); ``item`` replaces the printed
    labels when given. A table gives ``markdown``, the Markdown file the pipeline writes,
    and ``caption``, the caption (``workflow/report/``) of its HTML page (the rules of
    ``workflow/rules/report.smk``)."""

    key: str
    path: str
    shows: str
    paper: tuple[str, ...] = ()
    markdown: str | None = None
    caption: str | None = None
    item: str | None = None

    def as_dict(self, category: str) -> dict[str, Any]:
        """The entry as :class:`baiuv.report.pages.ReportEntries` holds it."""
        out: dict[str, Any] = {"path": self.path, "category": category, "paper": list(self.paper)}
        if self.item is not None:
            out["item"] = self.item
        out["shows"] = self.shows
        if self.markdown is not None:
            out["markdown"] = self.markdown
            out["caption"] = self.caption
        return out


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
    order : int
        Its place among the records: the reproduction report, the report's categories and
        the rule files follow the records sorted by it (the paper's experiments before the
        studies, D371).
    section : str or None
        Its optional top-level configuration section (absent or ``null`` skips the
        experiment; :func:`baiuv.pipeline.config.optional_sections`), ``None`` when it has
        none.
    schema : mapping or None
        The JSON schema of its section, as the schema file would load it (every key with its
        ``description``, from which the configuration page is written;
        ``additionalProperties: false``; the file's ``registry:``, ``registry_default:`` and
        ``registry_parameters:`` marks and its ``#/$defs/`` references may be used):
        :func:`baiuv.pipeline.config.load_schema` puts it under the section's name in the
        configuration schema (D416: a section's schema lives with its record).
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
    steps : mapping of str to str
        The functions its jobs of the workflow's shared scripts call, as
        ``"module:function"`` (D401: shared scripts call the functions the record names):
        ``aggregate(frames, metas, params, **tables)`` returning :class:`Aggregated`
        (``workflow/scripts/aggregate.py``), ``figure(tables, params)`` returning the
        figure (``figure.py``), ``table(tables, params)`` returning the Markdown text of
        each output by name (``table.py``); ``tables`` maps each named input of the rule
        to the table read (a list of them for a list of paths), ``params`` the rule's
        parameters.
    category : str or None
        The title of its category of the report, numbered by the records' order
        (:func:`baiuv.report.pages.report_entries`); "Beyond the paper, ..." for a study.
    entries : sequence of ReportEntry
        Its entries of the report, in the category's order.
    """

    name: str
    order: int
    section: str | None = None
    schema: Mapping[str, Any] | None = None
    check: Callable[[Mapping, Mapping], None] | None = None
    enabled: Callable[[Mapping], bool] | None = None
    shard_kinds: Sequence[ShardKind] = field(default=())
    targets: Callable[[Mapping], list[str]] = _no_targets
    report_inputs: Callable[[Mapping], dict[str, Any]] = _no_inputs
    claims: Callable[[Mapping[str, Any], Mapping], list] | None = None
    beyond_paper: bool = False
    rules: str | None = None
    steps: Mapping[str, str] = field(default_factory=dict)
    category: str | None = None
    entries: Sequence[ReportEntry] = field(default=())

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
    # numpy: baiuv.report.pages imports this module without it (D383)
    from baiuv.model.validate import log_inv_delta_of

    return log_inv_delta_of(section.get("delta"), section.get("log_inv_delta"))


def section_delta(section: Mapping) -> float:
    """``delta`` of such a section (``exp(-log_inv_delta)``, ``0.0`` once it underflows)."""
    # numpy: baiuv.report.pages imports this module without it (D383)
    from baiuv.model.validate import delta_from_log

    if section.get("delta") is not None:
        return float(section["delta"])
    return delta_from_log(section_log_inv_delta(section))


def instances_of(config: Mapping) -> dict:
    """The configuration's named instances by name."""
    return {inst["name"]: inst for inst in config["instances"]}
