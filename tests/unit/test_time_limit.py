"""Every test runs under a time limit (``tests/time_limit.py``): a deliberately endless
call is stopped, in a Python loop (the test fails, the session goes on) and in a compiled
numba kernel that holds the GIL (the watchdog ends the session with the traceback).

Each case runs pytest in a subprocess on a generated test file, with this project's
``pyproject.toml`` settings and plugin and a 3 s limit; without the limits the subprocess
would run until its own 300 s timeout and the test would fail."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
LIMIT = 3

ENDLESS = """
import time

from numba import njit


@njit("int64(int64)")  # compiled at import, before the test's clock starts
def spin(step):
    i = 0
    while i >= 0:  # never false: i stays in 0..6
        i = (i + step) % 7
    return i


def test_endless_python_loop():
    while True:
        time.sleep(0.01)


def test_after_the_endless_python_loop():
    assert True


def test_endless_compiled_kernel():
    spin(1)
"""


def _run(tmp_path: Path, *tests: str) -> tuple[subprocess.CompletedProcess, float]:
    (tmp_path / "test_endless.py").write_text(ENDLESS)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO / "tests"), str(REPO / "src")])}
    cmd = [sys.executable, "-m", "pytest", "-p", "time_limit", "-p", "no:cacheprovider"]
    cmd += ["-c", str(REPO / "pyproject.toml"), "--rootdir", str(tmp_path)]
    cmd += ["-o", f"timeout={LIMIT}", "-q", *(f"test_endless.py::{t}" for t in tests)]
    start = time.monotonic()
    res = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    return res, time.monotonic() - start


def test_an_endless_python_loop_fails_its_test_and_the_session_goes_on(tmp_path):
    res, elapsed = _run(tmp_path, "test_endless_python_loop", "test_after_the_endless_python_loop")
    out = res.stdout + res.stderr
    assert res.returncode == 1, out
    assert "Timeout" in out and f"{LIMIT}.0s" in out, out
    assert "1 failed, 1 passed" in out, out
    # interpreter and pytest start-up on a loaded machine, plus the limit
    assert elapsed < LIMIT + 60, (elapsed, out)


def test_an_endless_compiled_kernel_ends_the_session_with_its_traceback(tmp_path):
    res, elapsed = _run(
        tmp_path, "test_endless_compiled_kernel", "test_after_the_endless_python_loop"
    )
    out = res.stdout + res.stderr
    assert res.returncode != 0, out
    assert "Timeout" in out, out  # faulthandler's "Timeout (0:00:13)!" header
    assert "test_endless_compiled_kernel" in out, out  # the test's frame in the traceback
    assert "passed" not in out, out  # the session ended there
    # start-up, numba's compilation of the tiny kernel, the limit and the watchdog's grace
    assert elapsed < LIMIT + 10 + 90, (elapsed, out)


def test_a_quick_test_gets_the_configured_limit(request):
    import time_limit

    assert request.node.get_closest_marker("timeout") is None
    assert time_limit.limit(request.node) == float(request.config.getini("timeout")) > 0


@pytest.mark.slow  # cheap: marked only to see the longer limit assigned
def test_a_slow_test_gets_a_longer_limit(request):
    import time_limit

    assert time_limit.limit(request.node) == time_limit.SLOW
    assert time_limit.SLOW > float(request.config.getini("timeout"))
    assert time_limit.SLURM > time_limit.PIPELINE > time_limit.SLOW
