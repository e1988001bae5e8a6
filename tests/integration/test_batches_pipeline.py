"""Shards run in batches (local runs) or one job each (cluster) give the same files (D226).

The session's tiny run (``tiny_pipeline``, ``--cores 2``) ran the simulation shards in one
batch job, whose two forked worker processes took the shards as they became free.
Here the same targets run again in a fresh working directory with
``shard_batches=off``, one job per shard as on a cluster: every shard file and every
aggregate is byte-identical, and the job counts show the two ways.
"""

from __future__ import annotations

import json
import re

import pytest
from pipeline_helpers import (
    TINY_EXPERIMENTS,
    TINY_SHARDS,
    assert_same_results,
    job_env,
    run_dir,
    run_snakemake,
    sim_args,
)

from baiuv.pipeline.batches import batch_count

pytestmark = pytest.mark.pipeline

_RULE_COUNT = re.compile(r"^(\w+)\s+(\d+)$", re.M)


def _job_stats(out: str) -> dict[str, int]:
    """``{rule: count}`` of Snakemake's first "Job stats" table in ``out``."""
    table = out.split("Job stats:", 1)[1].split("total", 1)[0]
    return {rule: int(n) for rule, n in _RULE_COUNT.findall(table)}


def test_one_job_per_shard_gives_the_batched_files(tiny_pipeline, tmp_path):
    root = run_dir(tiny_pipeline, tmp_path / "per_shard")
    args = (*sim_args(tiny_pipeline), "--config", "shard_batches=off", "--cores", "2")
    res = run_snakemake(root, *args, env=job_env(tiny_pipeline))
    assert res.returncode == 0, res.stdout[-5000:]
    stats = _job_stats(res.stdout)
    assert stats.get("sim_shard") == TINY_SHARDS, stats
    assert not any(r.endswith(tuple(f"_batch_{b}" for b in range(10))) for r in stats), stats
    n = assert_same_results(root, tiny_pipeline, under="results/simulations")
    assert n == TINY_SHARDS + len(TINY_EXPERIMENTS)
    # and the tiny run itself used one batch job per family, on two worker processes
    log = (tiny_pipeline.parent / "tiny_pipeline.log").read_text()
    batches = set(re.findall(r"\(Rule: (simulations_batch_\d+)\)", log))
    assert batches == {"simulations_batch_0"}, sorted(batches)
    assert batch_count(TINY_SHARDS, "auto") == 1
    assert "(Rule: sim_shard)" not in log
    batch_log = (tiny_pipeline / "logs" / "batches" / "simulations_0.log").read_text()
    assert f"{TINY_SHARDS} shards on 2 worker processes" in batch_log, batch_log[-2000:]


def test_batch_records_hold_the_digest_of_the_cells(tiny_pipeline):
    # Snakemake's record of each output of a batch job holds the job's parameters (D229):
    # the digest of its cells, not the cells, so records do not grow with the batch squared
    records = [
        json.loads(p.read_text()) for p in (tiny_pipeline / ".snakemake" / "metadata").iterdir()
    ]
    batch = [r for r in records if re.fullmatch(r"\w+_batch_\d+", r["rule"])]
    assert batch, sorted({r["rule"] for r in records})
    digest = re.compile(r"CellBatch\(cells=(\d+), sha256=[0-9a-f]{64}\)")
    for rule in {r["rule"] for r in batch}:
        mine = [r for r in batch if r["rule"] == rule]
        params = {tuple(r["params"]) for r in mine}
        assert len(params) == 1, params
        (shown,) = params.pop()
        match = digest.fullmatch(shown)
        assert match, shown
        assert 2 * int(match.group(1)) == len(mine)  # two files per cell, one record each
