"""The scripts of ``benchmarks/`` as modules, for the tests of their helpers."""

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def load_benchmark(name: str) -> ModuleType:
    """``benchmarks/<name>.py`` imported as a module (its ``main`` is not run)."""
    if str(BENCHMARKS) not in sys.path:  # a script imports its neighbours, as when run
        sys.path.insert(0, str(BENCHMARKS))
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    # registered under its name, as an import would: numba's cache records the module of a
    # cached function and imports it again when it loads the function
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod
