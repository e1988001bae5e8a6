"""Deferred public names (decision D105): cheap ``import baiuv``, every public name resolves;
a function-local import says why it is not at the top of its module (D383)."""

import ast
import importlib
import io
import json
import re
import subprocess
import sys
import tokenize
from pathlib import Path

import pytest

PACKAGES = ["baiuv", "baiuv.thresholds", "baiuv.simulation"]
ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = ROOT / "workflow" / "scripts"


def _modules_after(statement: str) -> set[str]:
    code = f"import sys, json\n{statement}\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


@pytest.mark.parametrize(
    "statement",
    [
        "import baiuv",
        "import baiuv.storage.io, baiuv.pipeline.logs, baiuv.pipeline.config",
        "import baiuv.storage.provenance, baiuv.storage.shards, baiuv.pipeline.numba_cache",
        "import baiuv.model, baiuv.experiments, baiuv.report, baiuv.plotting",
        "import baiuv.thresholds, baiuv.simulation",
    ],
)
def test_light_imports_do_not_load_heavy_modules(statement):
    loaded = _modules_after(statement)
    heavy = {
        "scipy.stats",
        "scipy.special",
        "matplotlib",
        "pyomo",
        "baiuv.simulation.rules",
        "baiuv.thresholds.kernels",
        "baiuv.simulation.identify",
    }
    assert not heavy & loaded, sorted(heavy & loaded)


@pytest.mark.parametrize(
    "statement",
    [
        "from baiuv.storage.io import copy_file, write_text",  # publishing, kernels' markers
        "from baiuv.report.pages import table_page",  # the report's table pages
        "import baiuv.warmup, baiuv.simulation.engine, baiuv.storage.shards",  # the kernels
    ],
)
def test_jobs_without_tables_do_not_load_pandas(statement):
    """pandas and pyarrow (about 0.4 s of CPU) load where a table is read or written, not
    in the jobs that write text, copy files or compile the kernels (D223)."""
    assert not {"pandas", "pyarrow"} & _modules_after(statement)


#: numba and the modules that define kernels with it.
NUMBA = {"numba", "baiuv.simulation.rules", "baiuv.model.oracle", "baiuv.thresholds.kernels"}

#: Adapters of jobs that call no numba kernel: they aggregate shard files, render tables and
#: pages, draw figures or copy files.
NO_KERNEL_ADAPTERS = (
    "aggregate",
    "characteristic_figure",
    "characteristic_table",
    "copy_file",
    "figure",
    "report_html",
    "sim_aggregate",
    "sim_figure",
    "sim_tables",
    "table",
    "thresholds_bob_slope_figure",
    "thresholds_bob_slope_table",
    "thresholds_figure",
    "thresholds_tables",
)

#: Adapters of jobs that compute characteristic times (the oracle, numba) after reading or
#: building their inputs, but import nothing compiled.
ORACLE_ADAPTERS = (
    "audit_instances",
    "characteristic_instances",
    "characteristic_sweep",
    "reproduction",
)


def _imports_of(path: Path) -> list[str]:
    """The absolute import statements of a Python file, those inside functions included
    (``__future__`` imports left out)."""
    return [
        ast.unparse(node)
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Import)
        or (isinstance(node, ast.ImportFrom) and node.level == 0 and node.module != "__future__")
    ]


def _adapter_imports(name: str) -> str:
    """The imports of ``workflow/scripts/<name>.py``, and those made inside the functions of
    the plotting modules it uses (the figure functions import on use)."""
    statements = _imports_of(SCRIPTS / f"{name}.py")
    for module in re.findall(r"^from (baiuv\.plotting\.\w+) import", "\n".join(statements), re.M):
        statements += _imports_of(ROOT / "src" / (module.replace(".", "/") + ".py"))
    return "\n".join(statements)


@pytest.mark.parametrize("name", NO_KERNEL_ADAPTERS + ORACLE_ADAPTERS)
def test_adapters_import_no_numba(name):
    """numba and the kernels (about 0.3 s of CPU) load where a kernel is called (D227): the
    jobs that aggregate, render or draw never load them, and the jobs that compute
    characteristic times load them with the first one, not with their imports."""
    assert not NUMBA & _modules_after(_adapter_imports(name))


def _record_steps() -> list[tuple[str, str]]:
    from baiuv.pipeline.specs import specs

    return [(s.name, step) for s in specs() for step in s.steps]


@pytest.mark.parametrize("name,step", _record_steps(), ids=str)
def test_shared_adapters_steps_import_no_numba(name, step):
    """The shared scripts (``aggregate``, ``figure``, ``table``) import the function their
    record names, with the record's module (D401): neither loads numba (D227)."""
    code = f"from baiuv.pipeline.specs import experiment_step\nexperiment_step({name!r}, {step!r})"
    assert not NUMBA & _modules_after(code)


def test_workflow_parse_imports_no_numba():
    """The Snakemake process (the rule files' imports and the configuration checks, every
    experiment section of the default configuration) does not import numba."""
    imports = [
        m.group(1)
        for path in sorted((ROOT / "workflow" / "rules").glob("*.smk"))
        for m in re.finditer(
            r"^[ \t]*(from baiuv[\w.]* import (?:\([^)]*\)|.*))", path.read_text(), re.M
        )
    ]
    assert any("baiuv.studies.asymptotic" in s for s in imports)
    checks = (
        "import yaml\nfrom baiuv.pipeline.config import validate_config\n"
        f"config = yaml.safe_load(open({str(ROOT / 'config' / 'config.yaml')!r}))\n"
        "assert {'asymptotic', 'audit', 'delta_correct'} <= set(config)\n"
        f"validate_config(config, {str(ROOT / 'workflow' / 'schemas' / 'config.schema.yaml')!r})"
    )
    assert not NUMBA & _modules_after("\n".join(imports) + "\n" + checks)


def test_kernels_load_on_first_use():
    """The engine and the characteristic times import their kernels when they use them."""
    code = (
        "import sys\nimport numpy as np\nfrom baiuv.simulation.engine import simulate_run\n"
        "from baiuv.model.characteristic import characteristic_time\n"
        "assert 'numba' not in sys.modules\n"
        "characteristic_time(np.array([1.0, 0.5]), np.array([1.0, 1.0]))\n"
        "assert 'baiuv.model.oracle' in sys.modules\n"
        "assert 'baiuv.simulation.rules' not in sys.modules"
    )
    assert {"baiuv.model.oracle", "numba"} <= _modules_after(code)


def test_deferred_module_binds_each_attribute_on_first_access():
    """A :class:`~baiuv._deferred.DeferredModule` imports its module on the first attribute
    access and keeps the attribute: later reads skip ``__getattr__`` (a per-run cost in the
    engine)."""
    import fractions

    from baiuv._deferred import DeferredModule

    d = DeferredModule("fractions")
    assert "Fraction" not in vars(d)
    assert d.Fraction is fractions.Fraction
    assert vars(d)["Fraction"] is fractions.Fraction
    with pytest.raises(AttributeError, match="no_such_name"):
        d.no_such_name  # noqa: B018
    assert "baiuv.simulation.rules" not in _modules_after(
        "from baiuv._deferred import DeferredModule\nDeferredModule('baiuv.simulation.rules')"
    )


def test_heuristic_threshold_spec_does_not_load_scipy_special():
    """A simulation with the heuristic threshold (most shard processes) does not pay for
    scipy.special, which only the families with a zeta(s) constant need."""
    spec = "from baiuv.thresholds.families import make_threshold\n"
    assert "scipy.special" not in _modules_after(spec + "make_threshold('heuristic', 5, 0.01)")
    assert "scipy.special" in _modules_after(spec + "make_threshold('kl', 5, 0.01)")


@pytest.mark.parametrize("package", PACKAGES)
def test_every_public_name_resolves(package):
    mod = importlib.import_module(package)
    for name in mod.__all__:
        assert getattr(mod, name) is not None, name
        assert name in dir(mod)
    with pytest.raises(AttributeError, match="no_such_name"):
        mod.no_such_name  # noqa: B018


def test_lazy_names_are_the_defining_objects():
    import baiuv
    import baiuv.model.characteristic
    import baiuv.thresholds
    import baiuv.thresholds.families

    assert baiuv.characteristic_time is baiuv.model.characteristic.characteristic_time
    assert baiuv.thresholds.ThresholdParams is baiuv.thresholds.families.ThresholdParams
    assert baiuv.thresholds.kernels is importlib.import_module("baiuv.thresholds.kernels")


def test_star_import():
    ns: dict = {}
    exec("from baiuv import *", ns)
    assert {"BestArmIdentifier", "characteristic_time", "STANDARD"} <= set(ns)


def _local_import_groups(tree: ast.AST):
    """``(first line, last line)`` of each run of consecutive import statements in the body
    of a function (a nested block's body included)."""
    inside = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            inside |= {id(n) for n in ast.walk(node) if n is not node}
    for node in ast.walk(tree):
        for field in ("body", "orelse", "finalbody", "handlers"):
            block = getattr(node, field, None)
            if not isinstance(block, list):
                continue
            group: list[ast.stmt] = []
            for stmt in [*block, None]:
                if isinstance(stmt, (ast.Import, ast.ImportFrom)) and id(stmt) in inside:
                    group.append(stmt)
                    continue
                if group:
                    yield group[0].lineno, group[-1].end_lineno
                group = []


#: A comment that tells a linter what to skip, and nothing else.
LINTER_ONLY = re.compile(r"#\s*noqa(:\s*[A-Z]+\d+(\s*,\s*[A-Z]+\d+)*)?\s*")


def uncommented_local_imports(source: str) -> list[int]:
    """First lines of the groups of function-local imports of ``source`` with no comment on
    the line above the group nor on one of its lines (a bare ``# noqa`` is no comment)."""
    comments = {
        tok.start[0]
        for tok in tokenize.generate_tokens(io.StringIO(source).readline)
        if tok.type == tokenize.COMMENT and not LINTER_ONLY.fullmatch(tok.string)
    }
    return [
        first
        for first, last in _local_import_groups(ast.parse(source))
        if not comments & set(range(first - 1, last + 1))
    ]


def test_function_local_imports_say_why():
    """An import stays in its function only when importing it at the top would load what
    the module's importers do not otherwise load, or would close an import circle, and a
    comment says which (D383)."""
    bare = [
        f"{path.relative_to(ROOT)}:{line}"
        for path in sorted((ROOT / "src" / "baiuv").rglob("*.py"))
        for line in uncommented_local_imports(path.read_text(encoding="utf-8"))
    ]
    assert not bare, bare


def test_local_import_groups_and_their_comments():
    source = (
        "import os\n"
        "def f():\n"
        "    x = 1\n"
        "    import json\n"
        "    from math import pi\n"
        "    x += 1\n"
        "    # scipy: not loaded by the importers of this module\n"
        "    from scipy import stats\n"
        "    try:\n"
        "        import resource  # Unix only\n"
        "        import cyipopt  # noqa: F401\n"
        "    except ImportError:\n"
        "        pass\n"
        "    def g():\n"
        "        s = '# not a comment'\n"
        "        import yaml\n"
        "    try:\n"
        "        import idaes  # noqa: F401\n"
        "    except ImportError:\n"
        "        pass\n"
        "    return x\n"
    )
    groups = list(_local_import_groups(ast.parse(source)))
    assert sorted(groups) == [(4, 5), (8, 8), (10, 11), (16, 16), (18, 18)]
    assert uncommented_local_imports(source) == [4, 16, 18]
