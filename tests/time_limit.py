"""Per-test time limits, so that a rule that never stops fails its test instead of hanging.

Loaded by ``tests/conftest.py`` (``pytest_plugins``). Two mechanisms, because a numba
kernel holds the GIL while it runs:

* pytest-timeout (``timeout`` in ``pyproject.toml``, method ``signal``) fails a test that
  overruns its limit while Python code runs (an ask/tell loop that never ends, a Python
  loop around kernels), and the session goes on with the next test;
* a watchdog (:func:`faulthandler.dump_traceback_later`, a C thread that needs no GIL)
  ends the whole session with every thread's traceback when a test overruns its limit by
  :data:`GRACE` seconds: a compiled kernel that never returns, where no Python signal
  handler or thread can run.

Quick tests get the ``timeout`` of ``pyproject.toml``. A test may set its own limit with
``@pytest.mark.timeout(seconds)``; otherwise tests marked ``slow`` (Monte Carlo) get
:data:`SLOW`, ``pipeline`` tests (Snakemake end to end, the tiny run's set-up included)
:data:`PIPELINE`, and ``slurm`` tests (several Snakemake runs on a cluster) :data:`SLURM`.
"""

from __future__ import annotations

import faulthandler
import os

import pytest

#: Seconds a test marked ``slow`` may take.
SLOW = 1800
#: Seconds a ``pipeline`` test may take (the tiny run's own limit is 3600 s).
PIPELINE = 7200
#: Seconds a ``slurm`` test may take (up to four Snakemake runs on a cluster).
SLURM = 4 * 3600
#: Seconds past a test's limit after which the watchdog ends the session.
GRACE = 10
#: The watchdog's output: a copy of the real standard error, taken while pytest's output
#: capture is suspended (a captured stream would be lost when the watchdog exits).
_stream = None


def limit(item: pytest.Item) -> float:
    """The time limit of ``item`` in seconds (0: none)."""
    mark = item.get_closest_marker("timeout")
    if mark is not None and mark.args:
        return float(mark.args[0])
    if mark is not None and "timeout" in mark.kwargs:
        return float(mark.kwargs["timeout"])
    return float(item.config.getini("timeout") or 0)


def pytest_configure(config):
    """Keep a copy of the real standard error for the watchdog."""
    global _stream
    if _stream is None:
        _stream = os.fdopen(os.dup(2), "w")


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config, items):
    """Longer limits by marker (after ``conftest.py`` has marked the slow tests)."""
    for item in items:
        if item.get_closest_marker("timeout") is not None:
            continue
        for marker, seconds in (("slurm", SLURM), ("pipeline", PIPELINE), ("slow", SLOW)):
            if item.get_closest_marker(marker) is not None:
                item.add_marker(pytest.mark.timeout(seconds))
                break


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    """Arm the watchdog for the test's set-up, call and tear-down."""
    seconds = limit(item)
    if seconds > 0:
        faulthandler.dump_traceback_later(seconds + GRACE, exit=True, file=_stream)
    try:
        yield
    finally:
        if seconds > 0:
            faulthandler.cancel_dump_traceback_later()
