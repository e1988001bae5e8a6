"""The Ipopt column of ``benchmarks/bench_bob.py``."""

import importlib.util
from pathlib import Path

import numpy as np

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_bob.py"


def _bench():
    spec = importlib.util.spec_from_file_location("bench_bob", BENCH)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_zero_ipopt_cases_skip_the_column_instead_of_calling_ipopt_unusable():
    """``--ipopt-cases 0`` asks for no Ipopt solve: the column says it was not timed, not
    that Ipopt is unusable (an empty row selection raised ``IndexError``)."""
    bench = _bench()
    P = np.ones((3, 7))
    assert bench.time_ipopt(P, False, 0) == (None, "not timed (--ipopt-cases 0)")
