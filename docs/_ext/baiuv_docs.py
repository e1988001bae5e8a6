"""Pages of the documentation written from the sources they describe, at every build.

Into ``docs/_generated/`` (git-ignored), before Sphinx reads the sources:

* ``api.rst``: the API reference, one ``autosummary`` table per public module listing
  every name of the module's ``__all__`` (:data:`API_MODULES`), so a name exported later
  gets its page, and a public name without a docstring fails the build (numpydoc
  validation, warnings are errors);
* ``configuration.md``: every key of the configuration schema (:mod:`config_reference`);
* ``performance.md``: the benchmark scripts (from their own docstrings) and whatever
  measurements exist in the checkout (``benchmarks/out/bench_*.txt``, Snakemake's
  per-job benchmark files ``benchmarks/out/*.tsv``, ``results/timings/*.md``), each
  with the file it comes from; without them the page says how to produce them.

A file is rewritten only when its text changes, so an unchanged page is not rebuilt.

Every docstring shown goes through :func:`readable_docstring`: printed references for the
paper's labels, math for the formula literals.
"""

from __future__ import annotations

import ast
import csv
import importlib
from pathlib import Path

import config_reference

DOCS = Path(__file__).resolve().parents[1]
REPO = DOCS.parent
OUT = DOCS / "_generated"
#: Modules whose ``__all__`` is the public API, with the heading of their section.
API_MODULES = {
    "baiuv": "Characteristic times, GLR statistics, instances and the identifier",
    "baiuv.thresholds": "Stopping thresholds",
    "baiuv.registry": "The registry of sampling rules, parameters and threshold families",
    "baiuv.simulation": "Simulation engine",
}


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


def _readable(text: str) -> str:
    """:func:`baiuv.report.readable.docstring_for_readers` (printed references, math)."""
    from baiuv.report.readable import docstring_for_readers

    return docstring_for_readers(text)


def _summary(doc: str | None) -> str:
    """The first paragraph of a docstring, on one line."""
    para = (doc or "").strip().split("\n\n")[0]
    return " ".join(para.split())


def api_rst() -> str:
    """The API reference page (reStructuredText, for ``autosummary``)."""
    lines = [
        "API reference",
        "=============",
        "",
        "Every public name of the package: the names listed in ``__all__`` of the modules",
        "below, each with its page generated from its docstring.",
        "",
    ]
    for name, heading in API_MODULES.items():
        module = importlib.import_module(name)
        title = f"{heading} (``{name}``)"
        lines += [title, "-" * len(title), "", f".. currentmodule:: {name}", ""]
        lines += [_readable(_summary(module.__doc__)), ""]
        names = [n for n in module.__all__ if not _is_data(getattr(module, n))]
        constants = [n for n in module.__all__ if n not in names]
        lines += [".. autosummary::", "   :toctree: api", "   :nosignatures:", ""]
        lines += [f"   {n}" for n in names]
        lines.append("")
        if constants:  # their pages are written by data_stubs (autosummary would show
            # the docstring of their type in the table)
            lines += [".. list-table::", "   :widths: 30 70", ""]
            for n in constants:
                doc = _doc_comment(name, n, getattr(module, n)) or [""]
                summary = _readable(_summary(chr(10).join(doc)))
                lines += [f"   * - :data:`{n}`", f"     - {summary}"]
            lines += ["", ".. toctree::", "   :hidden:", ""]
            lines += [f"   api/{name}.{n}" for n in constants]
            lines.append("")
    return "\n".join(lines)


def _script_summary(path: Path) -> str:
    doc = ast.get_docstring(ast.parse(path.read_text())) or ""
    return _summary(doc)


def _snakemake_benchmarks(files: list[Path]) -> list[str]:
    """Per rule: jobs, wall seconds, CPU seconds and peak memory, from Snakemake's
    ``benchmark:`` files (one TSV per job, columns ``s``, ``max_rss``, ``cpu_time``)."""
    per_rule: dict[str, list[float]] = {}
    for f in files:
        rows = list(csv.DictReader(f.open(), delimiter="\t"))
        if not rows:
            continue
        row = rows[-1]
        rule = f.stem.rsplit("_", 1)[0] if f.stem[-1].isdigit() else f.stem
        acc = per_rule.setdefault(rule, [0, 0.0, 0.0, 0.0])

        def num(key: str, row: dict = row) -> float:
            try:
                return float(row.get(key, "nan"))
            except ValueError:
                return float("nan")

        acc[0] += 1
        acc[1] += num("s")
        acc[2] += num("cpu_time")
        acc[3] = max(acc[3], num("max_rss"))
    out = [
        "| job files | jobs | wall s (sum) | CPU s (sum) | peak RSS MB |",
        "|---|---|---|---|---|",
    ]
    for rule, (n, s, cpu, rss) in sorted(per_rule.items()):
        out.append(f"| `{rule}*` | {n} | {s:.1f} | {cpu:.1f} | {rss:.0f} |")
    return out


def performance_md() -> str:
    """The performance page."""
    bench = REPO / "benchmarks"
    out_dir = bench / "out"
    lines = [
        "# Performance",
        "",
        "Every number on this page is read, when the documentation is built, from a file",
        "that a benchmark or a pipeline run wrote in this checkout; none is typed by hand.",
        "Speeds are compared as ratios measured in one run of a script (the scripts",
        "alternate the variants they compare), never as absolute times across runs: the",
        "absolute times depend on the machine and its load.",
        "",
        "## Benchmark scripts",
        "",
        "Each script prints its measurements and the conditions they were taken in. To put",
        "its output on this page, save it under `benchmarks/out/` and rebuild the",
        "documentation, e.g.",
        "",
        "```bash",
        "mkdir -p benchmarks/out",
        "python benchmarks/bench_floor.py | tee benchmarks/out/bench_floor.txt",
        "sphinx-build -W --keep-going -b html docs docs/_build/html",
        "```",
        "",
        "| script | what it measures |",
        "|---|---|",
    ]
    for script in sorted(bench.glob("bench_*.py")):
        lines.append(f"| `benchmarks/{script.name}` | {_script_summary(script)} |")
    lines += ["", "## Saved benchmark output", ""]
    saved = sorted(out_dir.glob("bench_*.txt")) if out_dir.is_dir() else []
    if not saved:
        lines += [
            "None in this checkout (`benchmarks/out/bench_*.txt`): run a script as above.",
            "",
        ]
    for f in saved:
        lines += [
            f"### `benchmarks/out/{f.name}`",
            "",
            "```text",
            f.read_text().rstrip(),
            "```",
            "",
        ]
    lines += [
        "## Pipeline jobs",
        "",
        "Snakemake records the wall time, CPU time and peak memory of every job of a run in",
        "`benchmarks/out/*.tsv` (the rules' `benchmark:` files; the last run of each job",
        "counts).",
        "",
    ]
    tsv = sorted(out_dir.glob("*.tsv")) if out_dir.is_dir() else []
    if tsv:
        lines += [
            f"From the {len(tsv)} job files in this checkout; sums over the jobs of each kind:",
            "",
            *_snakemake_benchmarks(tsv),
            "",
        ]
    else:
        lines += ["None in this checkout: run the pipeline (`./reproduce.sh`) first.", ""]
    lines += ["## Threshold evaluation costs", ""]
    timings = REPO / "results" / "timings" / "threshold_costs.md"
    if timings.is_file():
        body = timings.read_text()
        if body.startswith("#"):  # the file's own title: this page has its heading
            body = body.split("\n", 1)[-1]
        lines += ["From `results/timings/threshold_costs.md` (names its machine):", "", body, ""]
    else:
        lines += [
            "`results/timings/threshold_costs.md` (the cost of one evaluation of each",
            "threshold family, naming the machine) is written by the pipeline;",
            "not present in this checkout.",
            "",
        ]
    return "\n".join(lines)


def _is_data(obj) -> bool:
    import inspect

    return not (inspect.isclass(obj) or inspect.isroutine(obj) or inspect.ismodule(obj))


def _doc_comment(module: str, name: str, obj) -> list[str] | None:
    """The ``#:`` comment of ``module.name``, or of the module that defines the same object
    (a re-exported constant)."""
    docs = _attribute_docs()
    if f"{module}.{name}" in docs:
        return docs[f"{module}.{name}"]
    for key, doc in docs.items():
        mod, _, attr = key.rpartition(".")
        if attr == name and getattr(importlib.import_module(mod), attr, None) is obj:
            return doc
    return None


def data_stubs() -> dict[str, str]:
    """Pages of the public constants: their value and their ``#:`` comment (autodoc
    would show the docstring of their type, ``tuple`` or ``dict``); a constant without a
    comment is reported (a warning, so the build fails)."""
    from sphinx.util import logging

    pages = {}
    for modname in API_MODULES:
        module = importlib.import_module(modname)
        for name in module.__all__:
            obj = getattr(module, name)
            if not _is_data(obj):
                continue
            doc = _doc_comment(modname, name, obj)
            full = f"{modname}.{name}"
            if not doc:
                logging.getLogger(__name__).warning(
                    f"public name {full} has no docstring: give it a '#:' comment where "
                    "it is defined"
                )
                doc = []
            doc = _readable("\n".join(doc)).split("\n") if doc else doc
            body = "\n".join(f"   {line}" if line else "" for line in doc)
            pages[full] = (
                f"{full}\n{'=' * len(full)}\n\n.. currentmodule:: {modname}\n\n"
                f".. data:: {name}\n   :no-index-entry:\n\n{body}\n"
            )
    return pages


def generate() -> None:
    """Write every generated page (before Sphinx reads any source: autosummary needs api.rst
    and does not overwrite the constants' pages)."""
    import shutil

    shutil.rmtree(OUT / "api", ignore_errors=True)  # autosummary rewrites the others
    for full, text in data_stubs().items():
        _write(OUT / "api" / f"{full}.rst", text)
    _write(OUT / "api.rst", api_rst())
    _write(OUT / "configuration.md", config_reference.reference_markdown())
    _write(OUT / "performance.md", performance_md())


def _attribute_docs() -> dict[str, list[str]]:
    """``{name: doc comment lines}`` of the module-level ``#:`` comments of every module of
    the package (cached)."""
    global _ATTR_DOCS
    if _ATTR_DOCS is None:
        import pkgutil

        from sphinx.pycode import ModuleAnalyzer

        import baiuv

        _ATTR_DOCS = {}
        names = ["baiuv"] + [m.name for m in pkgutil.walk_packages(baiuv.__path__, "baiuv.")]
        for modname in names:
            try:
                docs = ModuleAnalyzer.for_module(modname).find_attr_docs()
            except Exception:  # a module without source (none in the package)
                continue
            for (namespace, attr), lines in docs.items():
                if not namespace:
                    _ATTR_DOCS[f"{modname}.{attr}"] = list(lines)
    return _ATTR_DOCS


_ATTR_DOCS: dict[str, list[str]] | None = None


def readable_docstring(app, what, name, obj, options, lines) -> None:
    """Every docstring the API reference shows, as a reader of the paper reads it: the
    paper's labels as printed references ("Lemma 4") and formula literals as math
    (:func:`baiuv.report.readable.docstring_for_readers`)."""
    from baiuv.report.readable import docstring_for_readers

    lines[:] = docstring_for_readers("\n".join(lines)).split("\n")


def setup(app):
    """Sphinx entry point."""
    app.connect("config-inited", lambda app, config: generate())
    app.connect("autodoc-process-docstring", readable_docstring)

    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
