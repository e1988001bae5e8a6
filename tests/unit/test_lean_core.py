"""The lean core: ``import baiuv`` and ``baiuv identify`` need no package of the extra
``pipeline``; a part that needs one says which extra to install; the package conventions
(version defined once, ``python -m baiuv``, ``CITATION.cff``, ``py.typed``)."""

from __future__ import annotations

import ast
import importlib.metadata
import inspect
import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml

import baiuv
from baiuv._extras import PIPELINE_PACKAGES, MissingExtraError, missing_extra

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())

#: Run in a subprocess: block every pipeline package (as if not installed), run the code
#: given as argv[1], print the pipeline packages then in sys.modules.
BLOCKED = """
import importlib.abc, json, sys
PIPELINE = set(json.loads(sys.argv[2]))
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in PIPELINE:
            raise ModuleNotFoundError(f"No module named {name!r} (blocked)", name=name)
if sys.argv[3] == "block":
    sys.meta_path.insert(0, Block())
exec(sys.argv[1])
print("LOADED", json.dumps(sorted({m.split(".")[0] for m in sys.modules} & PIPELINE)))
"""


def run_without_pipeline(code: str, block: bool = True) -> tuple[list[str], str]:
    p = subprocess.run(
        [sys.executable, "-c", BLOCKED, code, json.dumps(sorted(PIPELINE_PACKAGES)),
         "block" if block else "no"],
        capture_output=True, text=True, timeout=1200,
    )  # fmt: skip
    assert p.returncode == 0, p.stderr[-3000:]
    line = next(ln for ln in p.stdout.splitlines() if ln.startswith("LOADED "))
    return json.loads(line[len("LOADED ") :]), p.stdout


IDENTIFY = """
import os, tempfile
import baiuv
from baiuv.cli import main
assert main(["identify", "--simulate", "easy", "--quiet", "--delta", "0.1"]) == 0
with tempfile.TemporaryDirectory() as d:
    f = os.path.join(d, "ab.csv")
    with open(f, "w") as fh:
        fh.write("arm,value\\n" + "".join(f"{i % 2},{(i * 7919) % 13 / 3 + (i % 2)}\\n"
                                          for i in range(400)))
    assert main(["identify", f, "--quiet", "--threshold", "box", "--json"]) in (0, 3)
idf = baiuv.BestArmIdentifier(2, 0.1, "tci", "heuristic", strict=False, rng=0)
idf.observe_many([0, 1] * 5, [0.0, 1.0, 0.5, 1.5, 0.2, 1.1, 0.1, 0.9, 0.3, 1.2])
baiuv.characteristic_time(baiuv.EASY.mu, baiuv.EASY.sigma2)
"""


def test_import_and_identify_work_without_any_pipeline_package():
    loaded, out = run_without_pipeline(IDENTIFY)
    assert loaded == [] and "recommended arm" in out


def test_import_and_identify_load_no_pipeline_package():
    """With every package installed: none is imported (numba itself imports PyYAML when
    present, for its optional configuration file)."""
    code = IDENTIFY + "\nimport numba.core.config"
    loaded, _ = run_without_pipeline(code, block=False)
    assert set(loaded) <= {"yaml"}, loaded
    loaded, out = run_without_pipeline(
        "import baiuv, sys; print('numba' in sys.modules)", block=False
    )
    assert loaded == [] and out.startswith("False")


def test_a_missing_extra_is_named():
    code = """
from baiuv._extras import MissingExtraError
for stmt in ("import baiuv.plotting", "import baiuv.experiments.stopping_times",
             "import baiuv.report"):
    try:
        exec(stmt)
    except MissingExtraError as exc:
        assert "pip install 'baiuv[pipeline]'" in str(exc), exc
    else:
        raise AssertionError(stmt)
from baiuv.thresholds import bob
try:
    bob.pyo.ConcreteModel
except MissingExtraError as exc:
    assert "Ipopt backends of the BoB threshold" in str(exc) and "baiuv[pipeline]" in str(exc)
else:
    raise AssertionError("pyomo")
assert bob.resolve_backend("auto") == "exact"
"""
    run_without_pipeline(code)


def test_missing_extra_only_for_the_pipeline_packages():
    err = missing_extra("pandas.core", "tables")
    assert isinstance(err, MissingExtraError) and isinstance(err, ModuleNotFoundError)
    assert "tables needs pandas" in str(err) and "baiuv[pipeline]" in str(err)
    assert missing_extra("numpy", "x") is None and missing_extra(None, "x") is None


def test_extras_list_the_pipeline_packages():
    """The packages the message knows are exactly the extra's (distribution names)."""
    extra = PYPROJECT["project"]["optional-dependencies"]["pipeline"]
    names = {re.split(r"[<>=!~ ;\[]", r, maxsplit=1)[0].lower() for r in extra}
    names.discard("snakemake-executor-plugin-slurm")
    assert names == {d.lower() for d in PIPELINE_PACKAGES.values()}
    core = {re.split(r"[<>=!~ ;]", r, maxsplit=1)[0] for r in PYPROJECT["project"]["dependencies"]}
    assert core == {"numpy", "scipy", "numba"}


def test_version_is_defined_once():
    project = PYPROJECT["project"]
    assert "version" not in project and project["dynamic"] == ["version"]
    assert PYPROJECT["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "baiuv.__version__"}
    assert re.fullmatch(r"\d+\.\d+\.\d+", baiuv.__version__)
    p = subprocess.run(
        [sys.executable, "-m", "baiuv", "--version"], capture_output=True, text=True, timeout=300
    )
    assert p.returncode == 0 and p.stdout.strip() == f"baiuv {baiuv.__version__}"


def test_citation_file():
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    assert cff["cff-version"] == "1.2.0" and cff["type"] == "software"
    assert {"message", "title", "authors", "version", "license"} <= set(cff)
    assert cff["version"] == baiuv.__version__
    assert cff["license"] == PYPROJECT["project"]["license"]
    assert all("name" in a or "family-names" in a for a in cff["authors"])
    paper = cff["preferred-citation"]
    assert paper["type"] == "conference-paper"
    assert paper["title"] == "Dealing with Unknown Variances in Best-Arm Identification"
    assert [(a["given-names"], a["family-names"]) for a in paper["authors"]] == [
        ("Marc", "Jourdan"),
        ("Rémy", "Degenne"),
        ("Emilie", "Kaufmann"),
    ]
    assert (paper["year"], paper["volume"]) == (2023, 201)
    assert "ALT 2023" in paper["conference"]["name"]
    assert paper["collection-title"] == "Proceedings of Machine Learning Research"


def test_typed_package():
    assert (ROOT / "src" / "baiuv" / "py.typed").is_file()
    assert "py.typed" in PYPROJECT["tool"]["setuptools"]["package-data"]["baiuv"]


@pytest.mark.parametrize("name", sorted(baiuv.__all__))
def test_public_names_have_type_hints(name):
    """Every parameter and the return of the public functions and classes is annotated."""
    obj = getattr(baiuv, name)
    if not callable(obj):
        return
    fn = obj.__init__ if isinstance(obj, type) else obj
    sig = inspect.signature(fn)
    params = [p for p in sig.parameters.values() if p.name != "self"]
    assert all(p.annotation is not inspect.Parameter.empty for p in params), (name, sig)
    assert sig.return_annotation is not inspect.Signature.empty, (name, sig)


def imported_packages(source: str) -> set[str]:
    """Top-level names of the modules a Python source imports: its import statements
    (function-local ones too) and the modules named to the deferred imports
    (``import_module("markdown_it", ...)``, ``DeferredModule("pyomo.environ", ...)``)."""
    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
        elif (
            isinstance(node, ast.Call)
            and getattr(node.func, "id", getattr(node.func, "attr", "")) in DEFERRING
            and node.args
            and isinstance(node.args[0], ast.Constant)
        ):
            names.add(str(node.args[0].value).split(".")[0])
    return names - set(sys.stdlib_module_names) - {"baiuv"}


#: The calls that import the module they name.
DEFERRING = {"import_module", "DeferredModule"}
#: Distributions of the import names that are not installed in every environment.
NOT_ALWAYS_INSTALLED = {"idaes": "idaes-pse", "cyipopt": "cyipopt-wheels"}


def test_every_imported_package_is_declared():
    """Each third-party package the sources import is a dependency of pyproject.toml or of
    one of its extras (the lock pins exactly those)."""
    declared = {
        re.split(r"[<>=!~ ;\[]", r, maxsplit=1)[0].lower()
        for reqs in [PYPROJECT["project"]["dependencies"]]
        + list(PYPROJECT["project"]["optional-dependencies"].values())
        for r in reqs
    }
    dists = importlib.metadata.packages_distributions()
    undeclared = {}
    for path in sorted((ROOT / "src" / "baiuv").rglob("*.py")):
        for name in imported_packages(path.read_text()):
            dist = NOT_ALWAYS_INSTALLED.get(name) or dists.get(name, [name])[0]
            if dist.lower() not in declared:
                undeclared.setdefault(dist, []).append(str(path.relative_to(ROOT)))
    assert not undeclared, f"imported but declared in no dependency list: {undeclared}"


def test_imports_are_read_from_statements_and_deferred_imports():
    source = (
        "import os, numpy.linalg\nfrom scipy import optimize\nfrom . import x\n"
        "def f():\n    from tabulate import tabulate\n"
        'm = import_module("markdown_it", "pages")\np = DeferredModule("pyomo.environ", "x")\n'
    )
    assert imported_packages(source) == {"numpy", "scipy", "tabulate", "markdown_it", "pyomo"}
