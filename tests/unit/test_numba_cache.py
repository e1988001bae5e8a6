"""Numba cache location for cluster jobs (decision D60, baiuv.pipeline.numba_cache)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from baiuv.pipeline.numba_cache import OVERRIDE_VAR, configure_numba_cache, numba_cache_dir


def test_outside_slurm_uses_shared_project_cache(tmp_path):
    env: dict[str, str] = {}
    path = configure_numba_cache(tmp_path, "abc123", env)
    assert path == tmp_path.resolve() / ".numba_cache"
    assert env["NUMBA_CACHE_DIR"] == str(path)
    assert path.is_dir()


def test_inside_slurm_uses_node_local_dir_keyed_by_source_hash(tmp_path):
    node_tmp = tmp_path / "node"
    env = {"SLURM_JOB_ID": "42", "TMPDIR": str(node_tmp)}
    p1, local = numba_cache_dir(tmp_path / "work", "h1", env)
    p2, _ = numba_cache_dir(tmp_path / "work", "h2", env)
    assert local
    assert p1.parent == node_tmp and p1 != p2
    assert "h1" in p1.name and str(os.getuid()) in p1.name
    # never under the (shared) work directory
    assert (tmp_path / "work") not in p1.parents


def test_override_wins_even_inside_slurm(tmp_path):
    env = {"SLURM_JOB_ID": "1", OVERRIDE_VAR: str(tmp_path / "mine")}
    assert configure_numba_cache(tmp_path, "h", env) == tmp_path / "mine"
    assert env["NUMBA_CACHE_DIR"] == str(tmp_path / "mine")


def test_node_local_cache_is_seeded_once_per_state_of_the_shared_cache(tmp_path):
    work = tmp_path / "work"
    shared = work / ".numba_cache" / "some" / "dir"
    shared.mkdir(parents=True)
    (shared / "f.nbi").write_bytes(b"index")
    env = {"SLURM_JOB_ID": "7", "TMPDIR": str(tmp_path / "node")}
    path = configure_numba_cache(work, "h", env)
    assert (path / "some" / "dir" / "f.nbi").read_bytes() == b"index"
    # a later job on the same node keeps what this node compiled meanwhile
    (path / "local.nbc").write_bytes(b"compiled here")
    (shared / "f.nbi").write_bytes(b"changed")
    assert configure_numba_cache(work, "h", env) == path
    assert (path / "local.nbc").read_bytes() == b"compiled here"
    assert (path / "some" / "dir" / "f.nbi").read_bytes() == b"index"


def test_concurrent_jobs_on_one_node_see_a_complete_cache(tmp_path):
    work = tmp_path / "work"
    shared = work / ".numba_cache"
    for i in range(200):
        d = shared / f"d{i % 7}"
        d.mkdir(parents=True, exist_ok=True)
        (d / f"f{i}.nbc").write_bytes(bytes([i % 256]) * 1000)
    env = {"SLURM_JOB_ID": "9", "TMPDIR": str(tmp_path / "node")}

    def job(_):
        p = configure_numba_cache(work, "h", dict(env))
        return sorted(str(q.relative_to(p)) for q in p.rglob("*.nbc"))

    with ThreadPoolExecutor(8) as ex:
        listings = list(ex.map(job, range(16)))
    expected = sorted(str(q.relative_to(shared)) for q in shared.rglob("*.nbc"))
    assert all(listing == expected for listing in listings)
    # no temporary seeding directories left behind
    path, _ = numba_cache_dir(work, "h", env)
    assert [p.name for p in (tmp_path / "node").iterdir()] == [path.name]


def test_a_node_seeded_before_the_kernels_were_compiled_gets_them_later(tmp_path):
    """A job that starts while the local kernels rules still compile seeds its node with
    an incomplete copy; a job started after a kernels rule wrote its marker gets a copy
    with the kernels (a new generation), while the older copy stays as it was for the jobs
    using it. Files added to the shared cache without a new marker (kernels that local
    rules compile) start no generation: one copy per set of markers."""
    work = tmp_path / "work"
    shared = work / ".numba_cache" / "src"
    shared.mkdir(parents=True)
    markers = ["results/kernels/a.txt", "results/kernels.txt"]
    (shared / "threshold.nbi").write_bytes(b"thresholds")
    env = {"SLURM_JOB_ID": "5", "TMPDIR": str(tmp_path / "node")}
    early = configure_numba_cache(work, "h", dict(env), markers)
    assert sorted(p.name for p in (early / "src").iterdir()) == ["threshold.nbi"]
    (early / "src" / "mine.nbc").write_bytes(b"compiled in the early job")
    (shared / "loop.nbi").write_bytes(b"index")
    (shared / "loop.1.nbc").write_bytes(b"the loop")
    assert configure_numba_cache(work, "h", dict(env), markers) == early  # no new marker
    (work / "results" / "kernels").mkdir(parents=True)
    (work / "results" / "kernels" / "a.txt").write_text("compiled")
    (shared / "loop.2.nbc.tmp.0123abcd").write_bytes(b"being written")
    late = configure_numba_cache(work, "h", dict(env), markers)
    assert late != early
    assert (late / "src" / "loop.1.nbc").read_bytes() == b"the loop"
    assert not (late / "src" / "loop.2.nbc.tmp.0123abcd").exists()
    assert (early / "src" / "mine.nbc").exists() and not (early / "src" / "loop.nbi").exists()
    (shared / "plot.nbi").write_bytes(b"a local rule's kernel")
    assert configure_numba_cache(work, "h", dict(env), markers) == late  # same copy
    (work / "results" / "kernels.txt").write_text("compiled")
    last = configure_numba_cache(work, "h", dict(env), markers)
    assert (last / "src" / "plot.nbi").exists()
    node_dirs = sorted(p.name for p in (tmp_path / "node").iterdir())
    assert node_dirs == sorted(d.name for d in (early, late, last))


@pytest.mark.parametrize("bad", ["", "a/b", None])
def test_bad_source_hash_rejected(tmp_path, bad):
    with pytest.raises(ValueError, match="src_hash"):
        numba_cache_dir(tmp_path, bad, {})


@pytest.mark.slow  # a fresh Python process compiles a kernel
def test_numba_writes_into_the_configured_dir_not_next_to_sources(tmp_path):
    """End to end: a job process compiles a cached kernel into NUMBA_CACHE_DIR only."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "kern.py").write_text(
        textwrap.dedent(
            """
            from numba import njit

            @njit(cache=True)
            def twice(x):
                return 2.0 * x
            """
        )
    )
    env = dict(os.environ, SLURM_JOB_ID="3", TMPDIR=str(tmp_path / "node"))
    env.pop(OVERRIDE_VAR, None)
    cache = configure_numba_cache(tmp_path / "work", "h", env)
    code = "import sys; sys.path.insert(0, sys.argv[1]); import kern; print(kern.twice(2.0))"
    out = subprocess.run(
        [sys.executable, "-c", code, str(src)], env=env, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "4.0"
    written = [p.name for p in Path(cache).rglob("*") if p.suffix in (".nbi", ".nbc")]
    assert any(n.startswith("kern.twice") for n in written)
    assert not (src / "__pycache__").exists() or not any(
        p.suffix in (".nbi", ".nbc") for p in (src / "__pycache__").iterdir()
    )
