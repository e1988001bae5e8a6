import os
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

# Per-test time limits (pytest-timeout and a watchdog for compiled kernels).
pytest_plugins = ["time_limit"]

# Hypothesis profiles. ``ci`` (the default, so ``./run-tests.sh`` and CI use it) is
# derandomised: every run of the same commit tries the same examples (a seed derived from
# each test), reads no example database, and so gives the same answer. ``explore`` draws
# new examples on every run (or per ``--hypothesis-seed``) and replays the failures it
# saved in ``.hypothesis/``: select it to look for new counterexamples with
#     python -m pytest --hypothesis-profile explore tests/unit
# and add each one found to its test as an explicit ``@example``.
# No deadline in either: the first example of a test compiles numba kernels (seconds), and
# a slow or endless example is stopped by the per-test time limit (``timeout`` in
# pyproject.toml) instead.
settings.register_profile(
    "ci",
    derandomize=True,
    database=None,
    max_examples=60,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "explore",
    derandomize=False,
    max_examples=200,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

# The tiny configuration, run once per test session (decision D64).
TINY_ARGS = ("--cores", "2", "--configfile", "config/test.yaml")


@pytest.fixture
def rng():
    return np.random.default_rng(12345)


@pytest.fixture(scope="session")
def tiny_pipeline(tmp_path_factory) -> Path:
    """A private copy of the repository in which the whole tiny configuration has run.

    ``snakemake --cores 2 --configfile config/test.yaml`` runs once per session; every
    test that only reads outputs of that run uses this directory. Tests
    may add files (a report, a rebuilt figure) but must leave every output up to date.
    The Snakemake output is in ``<dir>/../tiny_pipeline.log``.
    """
    from pipeline_helpers import copy_repo, run_snakemake

    work = copy_repo(tmp_path_factory.mktemp("tiny_pipeline") / "repo")
    res = run_snakemake(work, *TINY_ARGS, timeout=3600)
    (work.parent / "tiny_pipeline.log").write_text(res.stdout)
    if res.returncode != 0:
        pytest.fail(f"the tiny pipeline run failed:\n{res.stdout[-8000:]}", pytrace=False)
    return work


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups
def pytest_collection_modifyitems(config, items):
    """Markers by rule, so that ``-m "not slow"`` is the quick part of the suite:

    * a test that uses the tiny run (``tiny_pipeline``, also through another fixture)
      runs Snakemake: it is marked ``pipeline``;
    * every ``pipeline`` test (Snakemake end to end), ``integration`` test (a browser) and
      ``slurm`` test (a cluster) takes well over 5 s: it is also ``slow``.

    :func:`pipeline_helpers.run_snakemake` refuses to run in a test without the
    ``pipeline`` marker, so a new Snakemake test cannot slip into the quick part.

    With pytest-xdist (``./run-tests.sh`` runs ``-n auto --dist loadgroup``), every
    ``pipeline`` test goes to one worker (group ``pipeline``): the tiny run is made once per
    session, and two Snakemake runs never compete for the cores they were given."""
    for item in items:
        if "tiny_pipeline" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.pipeline)
        # markers, not keywords: a keyword also matches a folder name ("integration")
        if any(item.get_closest_marker(m) for m in ("pipeline", "integration", "slurm")):
            item.add_marker(pytest.mark.slow)
        if item.get_closest_marker("pipeline") is not None:
            _group(config, item, "pipeline")


def _group(config, item, name: str) -> None:
    """Put ``item`` in pytest-xdist's group ``name`` (``--dist loadgroup``).

    pytest-xdist 3.8 marks a group by appending ``@name`` to ``item._nodeid``, which
    pytest 9.2 no longer reads (the id is ``item._id``): the suffix is added here, the way
    pytest-xdist's own worker hook would, and the marker is kept for that hook."""
    item.add_marker(pytest.mark.xdist_group(name))
    if getattr(config.option, "loadgroup", False) and "@" not in item.nodeid:
        from _pytest.nodeid import coerce_node_id

        item._id = coerce_node_id(f"{item.nodeid}@{name}")


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    """Tell :mod:`pipeline_helpers` which test runs (before its fixtures are set up)."""
    import pipeline_helpers

    pipeline_helpers.CURRENT_TEST = item
