"""The Ipopt column of ``benchmarks/bench_bob.py``."""

import numpy as np
from bench_helpers import load_benchmark


def _bench():
    return load_benchmark("bench_bob")


def test_zero_ipopt_cases_skip_the_column_instead_of_calling_ipopt_unusable():
    """``--ipopt-cases 0`` asks for no Ipopt solve: the column says it was not timed, not
    that Ipopt is unusable (an empty row selection raised ``IndexError``)."""
    bench = _bench()
    P = np.ones((3, 7))
    assert bench.time_ipopt(P, False, 0) == (None, "not timed (--ipopt-cases 0)")
