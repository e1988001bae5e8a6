"""No wrong result without an error: a corrupted or swapped shard stops the run naming the
file (decision D266), and the runs after a failed job rebuild what it removed instead of
saying "Nothing to be done" (decision D268).

The runs use a copy of the session's tiny run (``tiny_pipeline``: its results, Snakemake's
records and numba cache) with its Snakefile and sources (``run_dir``), so no kernel is
compiled again and the rebuilt files can be compared byte for byte with the tiny run's.
"""

from __future__ import annotations

import os
import re
import shutil
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pipeline_helpers import job_env, output_files, run_dir, run_snakemake

pytestmark = [pytest.mark.pipeline, pytest.mark.slow]

SHARD = "results/simulations/random/TCI/shard_0.parquet"


def _copy_of_tiny_run(tiny: Path, dst: Path) -> Path:
    root = run_dir(tiny, dst)
    shutil.copytree(tiny / "results", root / "results", symlinks=True)
    shutil.copytree(tiny / ".snakemake" / "metadata", root / ".snakemake" / "metadata")
    return root


def _run(root: Path, tiny: Path, *targets: str):
    args = ("--snakefile", str(tiny / "Snakefile"), "--cores", "2", *targets)
    return run_snakemake(root, *args, "--configfile", "config/test.yaml", env=job_env(tiny))


FIGURE = "results/figures/characteristic_times_ratio"
SWEEP = "results/characteristic_times/sweep_gap.parquet"


def _more_gap_points(root: Path) -> None:
    """The configuration edit of the probes: one more point on the gap sweep."""
    cfg = root / "config" / "test.yaml"
    cfg.write_text(cfg.read_text().replace("num: 6, scale: log}", "num: 7, scale: log}", 1))


def test_corrupt_shard_fails_every_run_until_rebuilt(tiny_pipeline, tmp_path):
    root = _copy_of_tiny_run(tiny_pipeline, tmp_path / "corrupt")
    # a corruption that still decodes: one stopping time changed, the metadata kept
    shard = root / SHARD
    st = shard.stat()
    table = pq.read_table(shard)
    times = table.column("stopping_time").to_pylist()
    times[0] += 1
    col = table.schema.get_field_index("stopping_time")
    table = table.set_column(col, table.schema.field(col), [times])
    pq.write_table(table, shard)
    os.utime(shard, ns=(st.st_atime_ns, st.st_mtime_ns))
    (root / "results/simulations/random.parquet").unlink()  # the aggregate reads it again

    for attempt in (1, 2):  # the run after a failed one fails the same way
        res = _run(root, tiny_pipeline)
        assert res.returncode != 0, f"run {attempt} accepted the corrupt shard"
        assert SHARD in res.stdout and "delete it" in res.stdout, res.stdout[-4000:]

    shard.unlink()  # as the message says
    # the Ipopt agreement is computed again too: its result file holds no solve time, so
    # it comes out byte-identical (the times are in results/timings/)
    (root / "results/thresholds/ipopt_agreement.parquet").unlink()
    res = _run(root, tiny_pipeline)
    assert res.returncode == 0, res.stdout[-5000:]
    assert "rule ipopt_agreement:" in res.stdout
    # every file under results/ but the timings, rebuilt or not, is the tiny run's; the
    # reproduction report names its configuration files by their path from the workflow's
    # directory, which differs here (the run directory is not the Snakefile's)
    ours, theirs = output_files(root, "results"), output_files(tiny_pipeline, "results")
    assert sorted(ours) == sorted(theirs)
    differ = sorted(k for k in ours if ours[k] != theirs[k])
    named = ["results/reproduction.html", "results/reproduction.md"]
    assert differ in ([], [*named, "results/reproduction_summary.rst"]), differ
    text = (root / "results/reproduction.md").read_text()
    assert (
        text.replace(os.path.relpath(root, tiny_pipeline) + "/", "")
        == (tiny_pipeline / "results/reproduction.md").read_text()
    )


def _silent_flip(data: bytes) -> int:
    """The first byte offset whose flip still decodes, to other values (the issue's
    probe: what a file without a checksum would pass on)."""
    original = pq.read_table(pa.BufferReader(data))
    for i in range(len(data)):
        flipped = bytearray(data)
        flipped[i] ^= 0xFF
        try:
            table = pq.read_table(pa.BufferReader(bytes(flipped)))
        except Exception:  # noqa: BLE001 - refused by pyarrow itself
            continue
        if not table.equals(original):
            return i
    raise AssertionError("no byte flip decodes to other values")


@pytest.mark.parametrize("damage", ["flipped_byte", "truncated"])
def test_damaged_shard_fails_every_run(tiny_pipeline, tmp_path, damage):
    """A shard with one byte flipped (decoding to other values) or cut in half: the
    aggregate's run and the run after it both stop naming the shard."""
    root = _copy_of_tiny_run(tiny_pipeline, tmp_path / damage)
    shard = root / SHARD
    st = shard.stat()
    data = bytearray(shard.read_bytes())
    if damage == "truncated":
        data = data[: len(data) // 2]
    else:
        data[_silent_flip(bytes(data))] ^= 0xFF
    shard.write_bytes(bytes(data))
    os.utime(shard, ns=(st.st_atime_ns, st.st_mtime_ns))
    (root / "results/simulations/random.parquet").unlink()  # the aggregate reads it again
    for attempt in (1, 2):
        res = _run(root, tiny_pipeline)
        assert res.returncode != 0, f"run {attempt} accepted the {damage} shard"
        assert SHARD in res.stdout and "delete it" in res.stdout, res.stdout[-4000:]


def test_swapped_shard_is_refused(tiny_pipeline, tmp_path):
    root = _copy_of_tiny_run(tiny_pipeline, tmp_path / "swapped")
    target = root / "results/simulations/standard/TCI/shard_0.parquet"
    st = target.stat()
    shutil.copyfile(root / "results/simulations/easy/TCI/shard_0.parquet", target)
    os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns))
    (root / "results/simulations/standard.parquet").unlink()  # aggregated again
    res = _run(root, tiny_pipeline)
    assert res.returncode != 0, "the swapped shard was accepted"
    assert "standard/TCI/shard_0.parquet" in res.stdout, res.stdout[-4000:]
    assert "experiment is 'easy', expected 'standard'" in res.stdout, res.stdout[-4000:]


def test_removed_intermediate_is_rebuilt_with_what_depends_on_it(tiny_pipeline, tmp_path):
    """A sweep whose output is gone (a killed or failed job) with its figure still there:
    the next run rebuilds both (not "Nothing to be done"), with the configuration edited in
    between taken into account."""
    root = _copy_of_tiny_run(tiny_pipeline, tmp_path / "removed")
    _more_gap_points(root)
    sweep = root / SWEEP
    sweep.unlink()
    figure = root / "results/figures/characteristic_times_ratio.pdf"
    before = figure.read_bytes()
    res = _run(root, tiny_pipeline)
    assert res.returncode == 0, res.stdout[-5000:]
    assert "Nothing to be done" not in res.stdout
    assert sweep.exists()
    old = tiny_pipeline / "results/characteristic_times/sweep_gap.parquet"
    assert pq.read_table(sweep).num_rows != pq.read_table(old).num_rows
    assert figure.read_bytes() != before


def test_removed_intermediate_is_rebuilt_for_a_named_target(tiny_pipeline, tmp_path):
    """The same with one figure named as the target (D298: not only the default rule): the
    sweep and the figure are rebuilt; then `publish` copies the rebuilt figure."""
    root = _copy_of_tiny_run(tiny_pipeline, tmp_path / "named")
    (root / SWEEP).unlink()
    figure = root / f"{FIGURE}.pdf"
    built = figure.stat().st_mtime_ns
    res = _run(root, tiny_pipeline, f"{FIGURE}.pdf")
    assert res.returncode == 0, res.stdout[-5000:]
    assert "rule characteristic_time_sweep:" in res.stdout, res.stdout[-5000:]
    assert (root / SWEEP).exists()
    assert figure.stat().st_mtime_ns > built
    # the same data, so the same bytes as the tiny run's
    assert figure.read_bytes() == (tiny_pipeline / f"{FIGURE}.pdf").read_bytes()


def test_removed_intermediate_is_rebuilt_for_publish(tiny_pipeline, tmp_path):
    """Published once, then the sweep removed: ``snakemake publish`` rebuilds the sweep and
    the figure and publishes it again."""
    root = _copy_of_tiny_run(tiny_pipeline, tmp_path / "publish")
    res = _run(root, tiny_pipeline, "publish")
    assert res.returncode == 0, res.stdout[-5000:]
    published = root / "runs/test/figures/characteristic_times_ratio.pdf"  # config/test.yaml
    copied = published.stat().st_mtime_ns
    (root / SWEEP).unlink()
    res = _run(root, tiny_pipeline, "publish")
    assert res.returncode == 0, res.stdout[-5000:]
    jobs = set(_JOB.findall(res.stdout))
    assert {"characteristic_time_sweep", "characteristic_time_figure"} <= jobs, jobs
    assert published.stat().st_mtime_ns > copied
    assert published.read_bytes() == (tiny_pipeline / f"{FIGURE}.pdf").read_bytes()


def test_future_dated_result_is_rebuilt(tiny_pipeline, tmp_path):
    """A figure dated a day ahead (clock skew) looks newer than the sweep rebuilt after it:
    without the check, the run after a sweep edit says "Nothing to be done" and the figure
    keeps the old sweep. It is rebuilt, and a second run has nothing to do."""
    root = _copy_of_tiny_run(tiny_pipeline, tmp_path / "future")
    ahead = time.time() + 86400
    for ext in ("pdf", "png"):
        os.utime(root / f"{FIGURE}.{ext}", (ahead, ahead))
    before = (root / f"{FIGURE}.pdf").read_bytes()
    _more_gap_points(root)
    res = _run(root, tiny_pipeline, SWEEP)  # the sweep alone, as a user may run it
    assert res.returncode == 0, res.stdout[-5000:]
    assert "dated in the future" in res.stdout and f"{FIGURE}.pdf" in res.stdout
    res = _run(root, tiny_pipeline)
    assert res.returncode == 0, res.stdout[-5000:]
    assert "rule characteristic_time_figure:" in res.stdout, res.stdout[-5000:]
    assert (root / f"{FIGURE}.pdf").stat().st_mtime <= time.time()
    assert (root / f"{FIGURE}.pdf").read_bytes() != before  # the 7-point sweep
    res = _run(root, tiny_pipeline)
    assert res.returncode == 0 and "Nothing to be done" in res.stdout, res.stdout[-5000:]


_JOB = re.compile(r"^(?:local)?rule (\w+):$", re.M)
_REASON = re.compile(r"^\s+reason: (.*)$", re.M)


def _dry_run(root: Path, env=None) -> dict[str, set[str]]:
    """``{rule: reasons}`` of the jobs a dry run of the tiny config in ``root`` would run."""
    res = run_snakemake(
        root, "-n", "--cores", "2", "--configfile", "config/test.yaml", env=env, check=True
    )
    jobs: dict[str, set[str]] = {}
    blocks = _JOB.split(res.stdout)[1:]
    for rule, body in zip(blocks[::2], blocks[1::2], strict=True):
        jobs.setdefault(rule, set()).update(_REASON.findall(body))
    return jobs


def _copy_with_sources(tiny: Path, dst: Path) -> Path:
    shutil.copytree(
        tiny, dst, symlinks=True, ignore=shutil.ignore_patterns(".numba_cache", "__pycache__")
    )
    return dst


def test_figure_style_edit_reruns_figures_only(tiny_pipeline, tmp_path):
    root = _copy_with_sources(tiny_pipeline, tmp_path / "style")
    assert _dry_run(root) == {}
    style = root / "src" / "baiuv" / "plotting" / "style.py"
    style.write_text(style.read_text() + "\n# a changed colour\n")
    rerun = _dry_run(root)
    figures = {r for r in rerun if r.endswith("_figure")}
    assert {"sim_figure", "characteristic_time_figure", "threshold_figure"} <= figures, rerun
    for rule, reasons in rerun.items():
        if rule in figures:
            assert any(r.startswith("Params have changed") for r in reasons), (rule, reasons)
        else:  # only what is built from a figure (the report pages), never a computation
            assert all(r.startswith("Input files updated by another job") for r in reasons), (
                rule,
                reasons,
            )
    assert not any("shard" in r or "batch" in r or "aggregate" in r for r in rerun), rerun


def test_foreign_package_is_refused(tiny_pipeline, tmp_path):
    """A workflow whose imported baiuv is another copy (here the repository's own sources,
    not the run directory's) refuses to run, naming both."""
    root = _copy_with_sources(tiny_pipeline, tmp_path / "foreign")
    env = job_env(tiny_pipeline)  # the sources of the tiny run, not of this copy
    res = run_snakemake(root, "-n", "--cores", "1", "--configfile", "config/test.yaml", env=env)
    assert res.returncode != 0
    assert "not this workflow's sources" in res.stdout, res.stdout[-3000:]
    assert str(tiny_pipeline / "src" / "baiuv") in res.stdout


# what a run of the tiny configuration writes in its directory
_RUN_OUTPUTS = ("results", "logs", "benchmarks/out", ".snakemake/metadata")


def test_two_clean_runs_are_byte_identical(tiny_pipeline, tmp_path):
    """A second clean run of the tiny configuration, in the tiny run's own directory (the
    same paths, and numba's cache of its sources) with the first run's outputs moved aside
    and put back afterwards: every file under results/ but the timings is the same bytes."""
    first = tmp_path / "first"
    moved = []
    try:
        for rel in _RUN_OUTPUTS:
            if (tiny_pipeline / rel).exists():
                (first / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.move(tiny_pipeline / rel, first / rel)
                moved.append(rel)
        assert "results" in moved
        res = run_snakemake(tiny_pipeline, "--cores", "2", "--configfile", "config/test.yaml")
        assert res.returncode == 0, res.stdout[-5000:]
        ours, theirs = output_files(tiny_pipeline, "results"), output_files(first, "results")
        assert len(ours) > 50
        assert sorted(ours) == sorted(theirs)
        assert [k for k in sorted(ours) if ours[k] != theirs[k]] == []
    finally:  # the tiny run as it was, for the other tests
        for rel in moved:
            if (tiny_pipeline / rel).exists():
                shutil.rmtree(tiny_pipeline / rel)
            shutil.move(first / rel, tiny_pipeline / rel)
