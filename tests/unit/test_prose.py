"""Prose that stays true: the architecture page has a row for every module of the package
(and no row for a module that is gone), and every dotted ``baiuv.…`` reference in the
documentation, the package's docstrings and comments, the workflow, the benchmarks and the
configurations names a module or an attribute that exists."""

from __future__ import annotations

import dataclasses
import importlib
import re
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "src" / "baiuv"
ARCHITECTURE = REPO / "docs" / "architecture.md"

#: Where dotted references are read.
REFERRING = ["docs/**/*.md", "src/**/*.py", "workflow/**/*", "Snakefile", "benchmarks/*.py"]
REFERRING += ["config/*.yaml", "profiles/**/*.yaml"]

#: A dotted reference ``baiuv.a.b``: not inside a path or a longer name (``envs/baiuv.yaml``,
#: ``baiuv.post-deploy.sh``), optionally ending in ``*`` (a prefix: ``kernels.P_*``).
REFERENCE = re.compile(r"(?<![\w/.\-])baiuv((?:\.[A-Za-z_]\w*)+)(\*?)(?![\w\-])")
#: File names that look like references.
FILE_SUFFIXES = {"py", "sh", "yaml", "yml", "smk", "txt", "md", "toml", "json", "html", "cff"}
#: The recipes' placeholders (``baiuv.simulation.my_rule:step``).
PLACEHOLDER = re.compile(r"\.my_\w+|\.x(?![\w.])")


def _modules() -> list[str]:
    """Paths of the package's modules relative to ``src/baiuv`` (``model/glr.py``)."""
    return sorted(p.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("*.py"))


def _table_first_cells(text: str) -> list[str]:
    """The first cell of every row of the Markdown tables of ``text``."""
    cells = []
    for line in text.splitlines():
        if line.startswith("|") and not re.match(r"\|\s*-+", line):
            cells.append(line.split("|")[1])
    return cells


def rows_of(text: str) -> set[str]:
    """The modules that have a row in the page ``text``: the paths in backquotes of a row's
    first cell (``baiuv/`` prefix dropped); a package's row (``model/``) is its
    ``__init__.py``'s."""
    named = set()
    for cell in _table_first_cells(text):
        for path in re.findall(r"`([^`]+)`", cell):
            path = path.removeprefix("baiuv/")
            named.add(path + "__init__.py" if path.endswith("/") else path)
    return named


def test_every_module_has_its_row_in_the_architecture_page():
    rows = rows_of(ARCHITECTURE.read_text())
    missing = [m for m in _modules() if m not in rows]
    assert not missing, f"modules without a row in docs/architecture.md: {missing}"
    gone = sorted(r for r in rows if r.endswith(".py") and not (PACKAGE / r).is_file())
    assert not gone, f"rows of docs/architecture.md naming no module: {gone}"


def test_the_records_block_of_the_architecture_page_is_current():
    """The rows of the records' modules are generated (D415): rerun
    ``python -m baiuv.pipeline.outputs_page`` after adding or changing a record."""
    from baiuv.pipeline import outputs_page

    text = ARCHITECTURE.read_text()
    marks = (outputs_page.RECORDS_START, outputs_page.RECORDS_END)
    current = outputs_page.default_records_table()
    assert outputs_page.replace_block(text, current, marks) == text, (
        "docs/architecture.md is not current: run python -m baiuv.pipeline.outputs_page"
    )


def test_a_new_record_gets_the_rows_of_its_modules():
    """A record's module and the modules its steps name get rows, so a new experiment
    needs no row written by hand."""
    from baiuv.experiments.spec import ExperimentSpec, ReportEntry
    from baiuv.pipeline.outputs_page import records_table

    toy = ExperimentSpec(
        name="toy",
        order=99,
        section="toy",
        rules="toy.smk",
        steps={"figure": "baiuv.plotting.toy:figure_of", "table": "baiuv.studies.toy:markdown_of"},
        category="Beyond the paper, toy",
        entries=(ReportEntry(key="toy", path="results/figures/toy.png", shows="x"),),
    )
    table = records_table([("baiuv.studies.toy", toy)])
    assert rows_of(table) == {"studies/toy.py", "plotting/toy.py"}
    assert "`results/figures/toy.{pdf,png}`" in table and "section `toy`" in table
    assert "`figure_of` (toy's figure)" in table


def test_a_missing_or_stale_row_is_found():
    page = "| module | owns |\n|---|---|\n| `baiuv/cli.py`, `model/` | `x.py` |\n| `b.py` | y |\n"
    assert rows_of(page) == {"cli.py", "model/__init__.py", "b.py"}  # first cells only
    assert "b.py" in rows_of(page) - {m for m in _modules()}  # a stale row


def references_in(text: str) -> list[str]:
    """The dotted ``baiuv.…`` references of ``text`` (a trailing ``*`` kept), without file
    names and the recipes' placeholders."""
    refs = []
    for m in REFERENCE.finditer(text):
        ref = "baiuv" + m.group(1) + m.group(2)
        last = m.group(1).rsplit(".", 1)[-1]
        if (m.group(1).count(".") == 1 and last in FILE_SUFFIXES) or PLACEHOLDER.search(ref):
            continue
        refs.append(ref)
    return refs


def resolves(ref: str) -> bool:
    """Whether ``ref`` names an importable module, or an attribute of one (a field of a
    dataclass or a named tuple counts; ``prefix*``: some attribute starts with it)."""
    prefix = ref.endswith("*")
    parts = ref.rstrip("*").split(".")
    obj = None
    for i in range(len(parts), 0, -1):
        name = ".".join(parts[:i])
        try:
            obj = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name is not None and name.startswith(exc.name):
                continue  # not a module: an attribute, or a name that does not exist
            raise
        rest = parts[i:]
        break
    for j, attr in enumerate(rest):
        if prefix and j == len(rest) - 1:
            return any(n.startswith(attr) for n in dir(obj))
        if hasattr(obj, attr):
            obj = getattr(obj, attr)
        elif j == len(rest) - 1 and isinstance(obj, type):
            fields = getattr(obj, "_fields", ())
            fields += (
                tuple(f.name for f in dataclasses.fields(obj))
                if dataclasses.is_dataclass(obj)
                else ()
            )
            return attr in fields
        else:
            return False
    return True


def test_the_reference_reader_skips_file_names_and_placeholders():
    text = (
        "`baiuv.registry.PARAMETERS`, envs/baiuv.yaml, baiuv.post-deploy.sh, baiuv.egg-info "
        "baiuv.yaml, baiuv.simulation.my_rule:step and baiuv.thresholds.kernels.P_*."
    )
    assert references_in(text) == ["baiuv.registry.PARAMETERS", "baiuv.thresholds.kernels.P_*"]


def test_the_resolver_tells_modules_attributes_and_names_that_are_gone():
    assert resolves("baiuv.storage.io.write_table") and resolves("baiuv.registry")
    assert resolves("baiuv.registry.Algorithm.constant")  # a dataclass field
    assert resolves("baiuv.thresholds.kernels.P_*") and resolves("baiuv.BestArmIdentifier.observe")
    assert not resolves("baiuv.shards") and not resolves("baiuv.pipeline.io")
    assert not resolves("baiuv.simulation.engine.run_shard")
    assert not resolves("baiuv.thresholds.kernels.NO_SUCH_*")


@pytest.fixture
def no_snakemake(monkeypatch):
    """Importing a referenced module must not need snakemake (the package never imports
    it): ``import snakemake`` fails while the references resolve."""
    monkeypatch.setitem(sys.modules, "snakemake", None)


def test_every_dotted_reference_resolves(no_snakemake):
    broken: dict[str, set[str]] = {}
    seen: dict[str, bool] = {}
    for pattern in REFERRING:
        for path in sorted(REPO.glob(pattern)):
            if not path.is_file() or "_build" in path.parts or path.suffix in {".png", ".pdf"}:
                continue
            for ref in references_in(path.read_text(errors="ignore")):
                if ref not in seen:
                    seen[ref] = resolves(ref)
                if not seen[ref]:
                    broken.setdefault(str(path.relative_to(REPO)), set()).add(ref)
    assert len(seen) > 100
    assert not broken, f"dotted references that do not resolve: {broken}"


EXTENDING = REPO / "docs" / "extending.md"
#: A placeholder path of the experiment recipe: ``x.py``, ``test_x.py``, ``x_shard.py``.
PLACEHOLDER_FILE = re.compile(r"(?:^|/|_)x(?:[._])[^/]*$")


def recipe_files(text: str) -> tuple[list[str], int]:
    """The files of the experiment recipe's table and the count its text states."""
    section = text.split("## An experiment\n", 1)[1].split("\n## ", 1)[0]
    files = [re.match(r"`([^`]+)`", c.strip()).group(1) for c in _table_first_cells(section)[1:]]
    return files, int(re.search(r"That is (\d+) files", section).group(1))


def test_the_experiment_recipe_counts_its_files_and_names_files_that_exist():
    files, stated = recipe_files(EXTENDING.read_text())
    assert len(files) == len(set(files)) == stated
    for name in files:
        path = REPO / name
        if PLACEHOLDER_FILE.search(name):
            assert path.parent.is_dir(), name
        else:
            assert path.is_file(), name
    # the records are found and iterated over (D370, D402): the workflow's and the
    # pipeline's lists are not edited; the shared scripts call what the record names (D401)
    # and the report's entries come from it (D403)
    assert not {
        "Snakefile",
        "src/baiuv/pipeline/specs.py",
        "src/baiuv/pipeline/cells.py",
        "src/baiuv/pipeline/config.py",
        "workflow/rules/common.smk",
        "workflow/rules/batches.smk",
        "workflow/report/entries.yaml",
        "workflow/scripts/reproduction.py",
    } & set(files)
    assert not [f for f in files if f.startswith("workflow/scripts/")]


def test_one_copy_of_each_recipe():
    """The recipes live in ``docs/extending.md``; the registry, the rules package and the
    architecture page point to it."""
    copies = [
        str(p.relative_to(REPO))
        for pattern in ("docs/**/*.md", "src/**/*.py", "README.md")
        for p in REPO.glob(pattern)
        if 'Algorithm(name="my-rule"' in p.read_text()
        or 'ThresholdFamily(name="my-family"' in p.read_text()
    ]
    assert copies == ["docs/extending.md"]
    for path in ("src/baiuv/registry.py", "src/baiuv/simulation/rules/__init__.py"):
        assert "docs/extending.md" in (REPO / path).read_text(), path
    assert "{doc}`extending`" in ARCHITECTURE.read_text()
