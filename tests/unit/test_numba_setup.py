"""numba's cache is keyed by the package source hash (decision D19)."""

import os
import subprocess
import sys

import pytest

from baiuv.storage import numba_setup
from baiuv.storage.provenance import source_hash


@pytest.mark.slow  # fresh Python processes import numba and compile a kernel
@pytest.mark.parametrize("first", ["numba, baiuv", "baiuv, numba"])
def test_cache_goes_to_hash_keyed_dir(tmp_path, first):
    """Whether numba is imported before or after baiuv (then by a deferred hook, D105)."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    code = (
        f"import {first}; from baiuv.model.transport import tc_unknown;"
        "tc_unknown(1.0, 1.0, 1.0, 0.0, 1.0, 1.0); print(numba.config.CACHE_DIR)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    target = tmp_path / f"baiuv-{source_hash()}"
    assert out.stdout.strip() == str(target)
    assert any(target.rglob("*.nbi")), "no numba index written in the hash-keyed directory"


def test_default_dir_and_pruning(tmp_path, monkeypatch):
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    base = tmp_path / "baiuv" / "numba"
    for i in range(5):
        (base / f"baiuv-old{i}").mkdir(parents=True)
        os.utime(base / f"baiuv-old{i}", (i, i))
    from numba.core import config

    before = config.CACHE_DIR, numba_setup.CACHE_DIR
    try:
        path = numba_setup.configure()
        assert path == str(base / f"baiuv-{source_hash()}") == numba_setup.CACHE_DIR
        kept = sorted(p.name for p in base.iterdir())
        assert kept == sorted([f"baiuv-{source_hash()}", "baiuv-old4", "baiuv-old3"])
        # directories used within the last day (e.g. by a running process of another
        # checkout) are never pruned, however many there are (D123)
        for i in range(5):
            (base / f"baiuv-recent{i}").mkdir()
        numba_setup.configure()
        assert sum(p.name.startswith("baiuv-recent") for p in base.iterdir()) == 5
    finally:
        config.CACHE_DIR, numba_setup.CACHE_DIR = before


def test_import_baiuv_does_not_import_numba(tmp_path):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    code = (
        "import sys, baiuv; assert 'numba' not in sys.modules, 'numba imported';"
        "from baiuv.storage.numba_setup import _SetCacheDirAfterImport as H;"
        "assert sum(isinstance(f, H) for f in sys.meta_path) == 1;"
        "import numba; assert not any(isinstance(f, H) for f in sys.meta_path), 'hook left'"
    )
    subprocess.run([sys.executable, "-c", code], env=env, check=True)
