"""Pipeline scripts end through :func:`baiuv.pipeline.logs.end_job` (decision D221)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPTS = sorted((Path(__file__).parents[2] / "workflow" / "scripts").glob("*.py"))

JOB = r"""
import atexit, ctypes, sys
from pathlib import Path
from baiuv.pipeline.logs import end_job, setup_logging

out = Path(sys.argv[1])
log = setup_logging(str(out / "job.log"))
atexit.register(lambda: (out / "atexit.txt").write_text("ran"))
log.info("outputs written")
print("python line")
ctypes.CDLL(None).printf(b"C line\n")
if sys.argv[2] == "raise":
    raise RuntimeError("the job failed")
end_job()
print("never printed")
"""


def _job(tmp_path, mode):
    with open(tmp_path / "stdout.txt", "w") as stdout:  # a file: block-buffered output
        return subprocess.run(
            [sys.executable, "-c", JOB, str(tmp_path), mode],
            stdout=stdout,
            stderr=subprocess.PIPE,
            text=True,
            env={k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"},
            timeout=120,
        )


def test_end_job_keeps_logs_output_and_exit_handlers(tmp_path):
    """The job exits with status 0, its log and both Python's and the C library's buffered
    output are complete, and the ``atexit`` handlers ran. Fails without the flushes (the
    lines stay in the buffers that ``os._exit`` discards) or without running the handlers."""
    proc = _job(tmp_path, "end")
    assert proc.returncode == 0, proc.stderr
    assert "outputs written" in (tmp_path / "job.log").read_text()
    stdout = (tmp_path / "stdout.txt").read_text()
    assert "python line" in stdout and "C line" in stdout
    assert "never printed" not in stdout
    assert (tmp_path / "atexit.txt").read_text() == "ran"


def test_a_job_that_raised_exits_as_usual(tmp_path):
    proc = _job(tmp_path, "raise")
    assert proc.returncode == 1
    assert "the job failed" in (tmp_path / "job.log").read_text()
    assert (tmp_path / "atexit.txt").read_text() == "ran"


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_every_pipeline_script_ends_its_job(script):
    """The last statement of every adapter is ``end_job()``: a new script that forgets it
    still works, but pays the interpreter's teardown at every job."""
    lines = [line for line in script.read_text().splitlines() if line.strip()]
    assert lines[-1] == "end_job()"
