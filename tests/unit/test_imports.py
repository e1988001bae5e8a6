"""Deferred public names (decision D105): cheap ``import baiuv``, every public name resolves."""

import importlib
import json
import subprocess
import sys

import pytest

PACKAGES = ["baiuv", "baiuv.thresholds", "baiuv.simulation"]


def _modules_after(statement: str) -> set[str]:
    code = f"import sys, json\n{statement}\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


@pytest.mark.parametrize(
    "statement",
    [
        "import baiuv",
        "import baiuv.pipeline.io, baiuv.pipeline.logs, baiuv.pipeline.config",
        "import baiuv.pipeline.provenance, baiuv.pipeline.shards, baiuv.pipeline.numba_cache",
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
        "from baiuv.pipeline.io import copy_file, write_text",  # publishing, kernels' markers
        "from baiuv.report.pages import table_page",  # the report's table pages
        "import baiuv.warmup, baiuv.simulation.engine, baiuv.pipeline.shards",  # the kernels
    ],
)
def test_jobs_without_tables_do_not_load_pandas(statement):
    """pandas and pyarrow (about 0.4 s of CPU) load where a table is read or written, not
    in the jobs that write text, copy files or compile the kernels (D223)."""
    assert not {"pandas", "pyarrow"} & _modules_after(statement)


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
