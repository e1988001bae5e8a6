"""Results built from files that are gone are found from Snakemake's records (decision
D268), so the workflow rebuilds them instead of saying "Nothing to be done"."""

from __future__ import annotations

import json
import os
import time
from base64 import urlsafe_b64encode
from types import SimpleNamespace

from snakemake.persistence.file import FilePersistence

from baiuv.pipeline.reruns import (
    future_outputs,
    mark_incomplete,
    missing_inputs,
    recorded_inputs,
    stale_outputs,
)


def _record(root, output: str, inputs: list[str], *, split: int = 0) -> None:
    name = urlsafe_b64encode(output.encode()).decode()
    parts = [name[i : i + split] for i in range(0, len(name), split)] if split else [name]
    f = root.joinpath(".snakemake", "metadata", *parts)
    f.parent.mkdir(parents=True, exist_ok=True)
    f.write_text(json.dumps({"rule": "r", "input": inputs, "incomplete": False}))


def _touch(root, *paths: str) -> None:
    for p in paths:
        (root / p).parent.mkdir(parents=True, exist_ok=True)
        (root / p).write_text("x")


def _pipeline(root) -> None:
    """shard -> aggregate -> figure and table -> report; a config read by the shard."""
    _record(root, "results/sim/easy/shard_0.parquet", ["results/kernels/done.txt"])
    _record(root, "results/sim/easy.parquet", ["results/sim/easy/shard_0.parquet"])
    _record(root, "results/figures/f.pdf", ["results/sim/easy.parquet"], split=20)
    _record(root, "results/tables/t.md", ["results/sim/easy.parquet"])
    _record(root, "results/report.md", ["results/tables/t.md", "docs/decisions/paper.md"])
    _record(root, "results/other.md", ["results/kernels/done.txt"])
    _touch(root, "results/kernels/done.txt", "docs/decisions/paper.md", "results/other.md")
    _touch(root, "results/sim/easy/shard_0.parquet", "results/sim/easy.parquet")
    _touch(root, "results/figures/f.pdf", "results/tables/t.md", "results/report.md")


def test_complete_results_are_not_stale(tmp_path):
    _pipeline(tmp_path)
    assert len(recorded_inputs(tmp_path / ".snakemake" / "metadata")) == 6
    assert stale_outputs(workdir=tmp_path) == []
    assert missing_inputs(workdir=tmp_path) == []


def test_a_removed_aggregate_and_shard_name_the_aggregate(tmp_path):
    """The aggregate's own record goes with it: the shard it read is missing too, but only
    the aggregate is what existing results were built from."""
    _pipeline(tmp_path)
    (tmp_path / "results/sim/easy.parquet").unlink()
    (tmp_path / "results/sim/easy/shard_0.parquet").unlink()
    assert missing_inputs(workdir=tmp_path) == ["results/sim/easy.parquet"]


def test_outputs_of_a_removed_aggregate_are_stale_transitively(tmp_path):
    _pipeline(tmp_path)
    (tmp_path / "results/sim/easy.parquet").unlink()  # a failed aggregate's output removed
    assert stale_outputs(workdir=tmp_path) == [
        "results/figures/f.pdf",
        "results/report.md",
        "results/tables/t.md",
    ]
    assert missing_inputs(workdir=tmp_path) == ["results/sim/easy.parquet"]


def test_a_removed_shard_makes_the_aggregate_stale(tmp_path):
    _pipeline(tmp_path)
    (tmp_path / "results/sim/easy/shard_0.parquet").unlink()
    assert "results/sim/easy.parquet" in stale_outputs(workdir=tmp_path)


def test_missing_source_outside_results_is_not_a_result(tmp_path):
    _pipeline(tmp_path)
    (tmp_path / "docs/decisions/paper.md").unlink()  # Snakemake reports a missing source
    assert stale_outputs(workdir=tmp_path) == []


def test_published_copies_are_left_to_publish(tmp_path):
    _pipeline(tmp_path)
    _record(tmp_path, "figures/f.pdf", ["results/figures/f.pdf"])
    _touch(tmp_path, "figures/f.pdf")
    (tmp_path / "results/sim/easy.parquet").unlink()
    assert "figures/f.pdf" not in stale_outputs(workdir=tmp_path)
    assert "results/figures/f.pdf" in stale_outputs(workdir=tmp_path)


def test_no_metadata_no_stale_outputs(tmp_path):
    assert stale_outputs(workdir=tmp_path) == []
    bad = tmp_path / ".snakemake" / "metadata" / "not-base64!"
    bad.parent.mkdir(parents=True)
    bad.write_text("{")
    assert stale_outputs(workdir=tmp_path) == []


def test_future_dated_results_are_found(tmp_path):
    _pipeline(tmp_path)
    now = time.time()
    assert future_outputs(tmp_path, now=now) == []
    table = tmp_path / "results/tables/t.md"
    os.utime(table, (now + 86400, now + 86400))  # a day ahead
    # a source outside results/ is not a result; a second ahead is within the tolerance
    os.utime(tmp_path / "docs/decisions/paper.md", (now + 86400, now + 86400))
    os.utime(tmp_path / "results/other.md", (now + 1, now + 1))
    assert future_outputs(tmp_path, now=now) == ["results/tables/t.md"]
    assert future_outputs(tmp_path, now=now + 86400) == []
    assert future_outputs(tmp_path, now=now, tolerance=0.5) == [
        "results/other.md",
        "results/tables/t.md",
    ]


def _snakemake_marker(folder, key: str, max_len: int) -> str:
    """Snakemake's own name of the record of ``key`` under ``folder``."""
    fake = SimpleNamespace(_fetch_max_len=lambda subject: max_len)
    return FilePersistence._record_path(fake, str(folder), key)


def test_incomplete_markers_are_where_snakemake_reads_them(tmp_path):
    short = "results/figures/f.pdf"
    long = "results/" + "/".join(["a_long_folder_name_" * 3] * 6) + "/shard_0.parquet"
    written = mark_incomplete([short, long], workdir=tmp_path)
    folder = tmp_path / ".snakemake" / "incomplete"
    max_len = os.pathconf(folder, "PC_NAME_MAX")
    assert len(urlsafe_b64encode(long.encode())) > max_len  # cut into parts
    assert [str(w) for w in written] == [
        _snakemake_marker(folder, k, max_len) for k in (short, long)
    ]
    for w in written:
        assert json.loads(w.read_text()) == {"external_jobid": None}
    assert mark_incomplete([], workdir=tmp_path / "elsewhere") == []
    assert not (tmp_path / "elsewhere").exists()
