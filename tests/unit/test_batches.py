"""Local batches of shards (decision D201): how many, and how shards are dealt into them."""

from __future__ import annotations

import logging

import pytest
from hypothesis import given
from hypothesis import strategies as st

from baiuv.pipeline.batches import batch_count, local_batches, run_cells, split_batches


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
    assert [batch_count(n, "auto") for n in (0, 1, 2, 4, 5, 36, 37, 360)] == [
        0,
        1,
        2,
        2,
        3,
        6,
        7,
        19,
    ]
    for n in range(1, 2000):
        b = batch_count(n, "auto")
        assert (b - 1) ** 2 < n <= b * b  # b = ceil(sqrt(n))
    assert batch_count(10, 4) == 4 and batch_count(3, 4) == 3


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
