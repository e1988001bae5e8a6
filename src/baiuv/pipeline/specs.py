"""The experiments the pipeline runs, in the order of the reproduction report: the paper's
first, then the artifact's own studies (D371: the paper's experiments before the studies).
Each module of :data:`SPEC_PACKAGES` that assigns ``SPEC`` at its top level exports its
record (:class:`baiuv.experiments.spec.ExperimentSpec`); the modules are found by reading
their sources, without importing those that hold no record (D402: the records are found,
not listed), and the records are sorted by their ``order``. The configuration loader, the
shard runner, the workflow's targets, batch rules, shared scripts and report, and the
reproduction report iterate over them (D370: one record per experiment).
"""

from __future__ import annotations

import ast
import functools
import importlib
import importlib.util
import pkgutil
from collections.abc import Callable, Mapping
from pathlib import Path

__all__ = [
    "SPEC_PACKAGES",
    "enabled_specs",
    "experiment_step",
    "not_run",
    "spec_modules",
    "spec_named",
    "specs",
]

#: The packages whose modules may export an experiment's ``SPEC``.
SPEC_PACKAGES = ("baiuv.experiments", "baiuv.studies")


def _declared_name(path: Path) -> str | None:
    """``None`` when the module at ``path`` assigns no ``SPEC`` at its top level; else the
    literal ``name=`` of its record (``""`` when not a literal)."""
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        targets = (
            node.targets
            if isinstance(node, ast.Assign)
            else [node.target]
            if isinstance(node, ast.AnnAssign)
            else []
        )
        if any(isinstance(t, ast.Name) and t.id == "SPEC" for t in targets):
            call = node.value
            for kw in call.keywords if isinstance(call, ast.Call) else []:
                if kw.arg == "name" and isinstance(kw.value, ast.Constant):
                    return str(kw.value.value)
            return ""
    return None


@functools.cache
def _declared() -> tuple[tuple[str, str], ...]:
    """``(module, declared name)`` of every module of :data:`SPEC_PACKAGES` with a
    ``SPEC``, in the order of the packages and of the module names."""
    found = []
    for package in SPEC_PACKAGES:
        path = importlib.import_module(package).__path__
        for info in sorted(pkgutil.iter_modules(path), key=lambda i: i.name):
            if info.ispkg:
                continue
            module = f"{package}.{info.name}"
            name = _declared_name(Path(importlib.util.find_spec(module).origin))
            if name is not None:
                found.append((module, name))
    return tuple(found)


@functools.cache
def specs() -> tuple:
    """The records of every experiment, sorted by their ``order``."""
    records = [importlib.import_module(m).SPEC for m, _ in _declared()]
    return tuple(sorted(records, key=lambda s: s.order))


def spec_modules() -> tuple[str, ...]:
    """The modules exporting a record, in the order of :func:`specs`."""
    by_name = {importlib.import_module(m).SPEC.name: m for m, _ in _declared()}
    return tuple(by_name[s.name] for s in specs())


def enabled_specs(config: Mapping) -> list:
    """The records of the experiments a validated configuration runs."""
    return [s for s in specs() if s.runs(config)]


def not_run(config: Mapping) -> list[tuple[str, str]]:
    """``(what, section)`` of each record with claims whose section the configuration
    leaves absent or null: the report names them, so a missing row is not read as a
    verdict. ``what`` is the record's report category without its "Beyond the paper, "."""
    return [
        (spec.category.removeprefix("Beyond the paper, "), spec.section)
        for spec in specs()
        if spec.claims is not None and spec.section is not None and not spec.runs(config)
    ]


def spec_named(name: str):
    """The record named ``name``, importing its module alone when it declares the name
    literally (a job of the shared scripts loads one experiment)."""
    for module, declared in _declared():
        if declared == name:
            return importlib.import_module(module).SPEC
    for spec in specs():
        if spec.name == name:
            return spec
    raise KeyError(f"no experiment record named {name!r}")


def experiment_step(name: str, step: str) -> Callable:
    """The function ``step`` (``"aggregate"``, ``"figure"``, ``"table"``) of the record
    named ``name``, imported from its ``"module:function"``."""
    spec = spec_named(name)
    try:
        target = spec.steps[step]
    except KeyError:
        raise KeyError(f"experiment {name!r} names no {step!r} step") from None
    module, _, function = target.partition(":")
    return getattr(importlib.import_module(module), function)
