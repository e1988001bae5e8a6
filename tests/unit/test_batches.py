"""Local batches of shards (decision D226): how many, and how shards are dealt into them."""

from __future__ import annotations

import copy
import logging
import os
import pickle
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from baiuv.pipeline.batches import (
    CellBatch,
    batch_count,
    local_batches,
    pool_workers,
    run_cells,
    split_batches,
)


def test_local_batches_modes():
    # local run: batches, whatever the cores
    assert local_batches("auto", default_mode=True, nodes=None) == "auto"
    assert local_batches(3, default_mode=True, nodes=None) == 3
    # a cluster executor (--jobs with an executor plugin) or a job inside it: one job per shard
    assert local_batches("auto", default_mode=True, nodes=100) == 0
    assert local_batches("auto", default_mode=False, nodes=None) == 0
    assert local_batches(7, default_mode=False, nodes=None) == 0
    assert local_batches("off", default_mode=True, nodes=None) == 0
    for bad in (0, -2, True):
        with pytest.raises(ValueError, match="shard_batches"):
            local_batches(bad, default_mode=True, nodes=None)


def test_batch_count_depends_on_the_cells_only():
    # auto: one job per family, whatever the cores (its workers take the cores)
    assert [batch_count(n, "auto") for n in (0, 1, 2, 36, 360)] == [0, 1, 1, 1, 1]
    # a number: that many batches, at most one per shard
    assert batch_count(10, 4) == 4 and batch_count(3, 4) == 3 and batch_count(0, 4) == 0


def _cell(i: int, alg: str = "TaS") -> dict:
    return {
        "kind": "simulations",
        "params": {"experiment": "random", "algorithm": alg, "shard": i, "spec": {"K": 10}},
        "output": {"runs": f"r/{alg}/{i}.parquet", "timings": f"t/{alg}/{i}.parquet"},
        "log": f"logs/{alg}/{i}.log",
    }


def test_cell_batch_is_shown_by_its_digest():
    # Snakemake stores repr(params) in the record of every output of a job (D229): the
    # repr of a batch is short whatever its size, and the job still gets the cells
    cells = [_cell(i, alg) for alg in ("TaS", "uniform") for i in range(180)]
    batch = CellBatch(cells)
    text = repr(batch)
    assert re.fullmatch(r"CellBatch\(cells=360, sha256=[0-9a-f]{64}\)", text), text
    assert len(text) < 100 < len(repr(list(cells)))
    assert list(batch) == cells and batch[3] is cells[3] and len(batch) == 360
    # pickled into the job's script and back: the same cells, the same class
    back = pickle.loads(pickle.dumps(batch))
    assert type(back) is CellBatch and list(back) == cells and repr(back) == text
    assert repr(CellBatch(copy.deepcopy(cells))) == text  # the content decides, not identity


@pytest.mark.parametrize(
    "change",
    [
        lambda c: c[7]["params"]["spec"].update(K=11),  # a nested parameter
        lambda c: c[0]["output"].update(runs="elsewhere.parquet"),  # a file
        lambda c: c[359].update(log="other.log"),  # a log
        lambda c: c.pop(),  # a cell less
        lambda c: c.reverse(),  # the order the workers take the cells in
        lambda c: c[5]["params"].update(shard=5.0),  # 5 and 5.0 differ in the JSON
    ],
)
def test_cell_batch_digest_changes_with_any_cell(change):
    cells = [_cell(i, alg) for alg in ("TaS", "uniform") for i in range(180)]
    before = repr(CellBatch(cells))
    changed = copy.deepcopy(cells)
    change(changed)
    assert repr(CellBatch(changed)) != before


@given(
    algs=st.lists(st.sampled_from("ABCDE"), min_size=0, max_size=60),
    n=st.integers(1, 12),
)
def test_split_batches_is_a_balanced_partition(algs, n):
    cells = [{"algorithm": a, "i": i} for i, a in enumerate(algs)]
    batches = split_batches(cells, n, key=lambda c: c["algorithm"])
    # a partition into at most n non-empty batches
    assert len(batches) == min(n, len(cells))
    assert all(batches)
    assert sorted(c["i"] for b in batches for c in b) == list(range(len(cells)))
    # batch sizes differ by at most one, and so do the counts of every algorithm
    sizes = [len(b) for b in batches]
    assert not sizes or max(sizes) - min(sizes) <= 1
    for a in set(algs):
        per = [sum(c["algorithm"] == a for c in b) for b in batches]
        assert max(per) - min(per) <= 1
    # deterministic
    assert split_batches(cells, n, key=lambda c: c["algorithm"]) == batches


def test_split_batches_spreads_a_costly_algorithm():
    """Cells listed experiment by experiment: without the key, the 3 cells of the first
    algorithm (e.g. Track-and-Stop, the costly one) fall into the same batch of 12 % 4 = 0."""
    cells = [{"algorithm": a, "exp": e} for e in range(3) for a in range(12)]
    plain = split_batches(cells, 4)
    assert sum(c["algorithm"] == 0 for c in plain[0]) == 3
    keyed = split_batches(cells, 4, key=lambda c: c["algorithm"])
    assert all(sum(c["algorithm"] == 0 for c in b) <= 1 for b in keyed)


def test_run_cells_refuses_an_unknown_kind():
    with pytest.raises(ValueError, match="unknown shard kind"):
        run_cells([{"kind": "nope", "params": {}, "output": {}, "log": None}], logging.getLogger())


def test_pool_workers():
    assert pool_workers(1, 50) == 0  # one core: in this process
    assert pool_workers(4, 1) == 0  # one cell: no fork for it
    assert pool_workers(2, 50) == 2
    assert pool_workers(32, 5) == 5  # never more workers than cells
    with pytest.raises(ValueError, match="workers"):
        pool_workers(0, 5)


def _probe(params, output, log_path):
    """A shard kind of the tests: writes its process id and its cell number."""
    Path(output["runs"]).write_text(f"{os.getpid()} {params['i']}\n")
    if params.get("fail"):
        raise RuntimeError(f"cell {params['i']} failed")


@pytest.fixture
def probe_kind(monkeypatch):
    from baiuv.pipeline import cells

    monkeypatch.setitem(cells.SHARD_KINDS, "probe", _probe)
    preloaded = []
    monkeypatch.setattr(cells, "preload", lambda kinds: preloaded.append(set(kinds)))
    return preloaded


def _probe_cells(tmp_path, n, fail=()):
    return [
        {
            "kind": "probe",
            "params": {"i": i, "fail": i in fail},
            "output": {"runs": str(tmp_path / f"cell_{i}.txt")},
            "log": None,
        }
        for i in range(n)
    ]


def test_run_cells_on_workers_runs_every_cell_once_in_forked_processes(tmp_path, probe_kind):
    """Two workers: every cell runs once, in a process forked after the preload, never
    in the batch's own process, and each cell's completion is logged."""
    cells = _probe_cells(tmp_path, 12)
    log = logging.getLogger("test-batch")
    records = []
    handler = logging.Handler()
    handler.emit = records.append
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    try:
        run_cells(cells, log, workers=2)
    finally:
        log.removeHandler(handler)
    assert probe_kind == [{"probe"}]
    rows = [(tmp_path / f"cell_{i}.txt").read_text().split() for i in range(12)]
    assert [int(i) for _, i in rows] == list(range(12))
    pids = {int(pid) for pid, _ in rows}
    assert os.getpid() not in pids and 1 <= len(pids) <= 2
    messages = [r.getMessage() for r in records]
    assert "12 shards on 2 worker processes" in messages
    done = sorted(m.split()[1] for m in messages if m.startswith("shard "))
    assert done == sorted(f"{i + 1}/12" for i in range(12))
    # the last line states the whole job's CPU, its workers included (bench_pipeline.py)
    total = re.fullmatch(
        r"12 shards in ([0-9.]+) CPU s; this job ([0-9.]+) CPU s since its start", messages[-1]
    )
    assert total and float(total[2]) >= float(total[1])


def test_run_cells_in_this_process_with_one_worker(tmp_path, probe_kind):
    run_cells(_probe_cells(tmp_path, 3), logging.getLogger("test-batch"), workers=1)
    assert probe_kind == []  # nothing to preload for a fork
    pids = {(tmp_path / f"cell_{i}.txt").read_text().split()[0] for i in range(3)}
    assert pids == {str(os.getpid())}


def test_a_failing_cell_fails_the_pooled_batch(tmp_path, probe_kind):
    with pytest.raises(RuntimeError, match="cell 4 failed"):
        run_cells(_probe_cells(tmp_path, 8, fail={4}), logging.getLogger("test-batch"), workers=2)


_SLEEPING_BATCH = """
import logging, os, sys, time
from pathlib import Path
from baiuv.pipeline import cells
from baiuv.pipeline.batches import run_cells

def sleeper(params, output, log_path):
    Path(output["runs"]).write_text(str(os.getpid()))
    time.sleep(60)

cells.SHARD_KINDS["sleeper"] = sleeper
cells.preload = lambda kinds: None
out = Path(sys.argv[1])
run_cells(
    [{"kind": "sleeper", "params": {}, "output": {"runs": str(out / f"w{i}")}, "log": None}
     for i in range(4)],
    logging.getLogger("test-batch"),
    workers=2,
)
"""


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, dead but not yet reaped, counts as ended)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")
def test_workers_end_with_a_killed_batch_process(tmp_path):
    """A batch process killed on its own (SIGKILL, no chance to stop its pool) takes its
    workers with it instead of leaving them to finish their shards after the job failed."""
    proc = subprocess.Popen([sys.executable, "-c", _SLEEPING_BATCH, str(tmp_path)])
    try:
        deadline = time.monotonic() + 60
        while len(workers := [int(t) for p in tmp_path.glob("w*") if (t := p.read_text())]) < 2:
            assert proc.poll() is None, "the batch ended early"
            assert time.monotonic() < deadline, "the workers did not start"
            time.sleep(0.05)
        assert len(workers) == 2 and proc.pid not in workers
        proc.kill()
        proc.wait()
        deadline = time.monotonic() + 10
        while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not any(_alive(pid) for pid in workers), "workers outlived their batch"
    finally:
        if proc.poll() is None:
            proc.kill()
