"""The wheel, installed with its core dependencies only, in a new virtual environment.

``python -m build --wheel --no-isolation`` builds baiuv from a copy of the sources; a new
virtual environment gets numpy, scipy, numba and llvmlite (the core dependencies and
numba's own) and nothing else: the distributions of this interpreter, at the lock's
versions, are made visible through a ``.pth`` file (no download, so the test runs
offline), then ``pip install --no-index`` installs the wheel, resolving its dependencies
against exactly those. There the pipeline's packages cannot be imported, and the README's
library example, ``baiuv identify --simulate standard``, a replay and ``python -m baiuv
--version`` run.
"""

from __future__ import annotations

import importlib.metadata as md
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import baiuv
from baiuv._extras import PIPELINE_PACKAGES

ROOT = Path(__file__).resolve().parents[2]
CORE = ("numpy", "scipy", "numba", "llvmlite")  # llvmlite: numba's dependency

#: The README's library example (its text; the README's python blocks run too).
EXAMPLE = """
import numpy as np
from baiuv import BestArmIdentifier

# ask/tell: the identifier chooses the arm, you report the observation
rng = np.random.default_rng(0)
idf = BestArmIdentifier(n_arms=2, delta=0.05, sampling="tci", threshold="box", rng=1)
while not idf.done:
    arm = idf.next_arm()
    idf.observe(arm, [0.5, 0.0][arm] + rng.standard_normal())
print(idf.recommendation, idf.n_samples)

# replay of data already collected: arrays in, one compiled loop
arms = rng.integers(0, 2, 100_000)
values = np.where(arms == 0, 0.5, 0.0) + rng.standard_normal(100_000)
replay = BestArmIdentifier(2, 0.05, threshold="box", strict=False)
used = replay.observe_many(arms, values)
print(replay.recommendation, used, replay.stop_reason)
"""


def lock_versions() -> dict[str, str]:
    """``{name: version}`` of the lock's pins that apply to this interpreter."""
    from packaging.markers import Marker

    out = {}
    text = (ROOT / "requirements" / "lock.txt").read_text()
    for m in re.finditer(
        r"^([A-Za-z0-9_.\-]+)==([^\s;\\]+)(?:\s*;\s*([^\\\n]+?))?\s*\\?$", text, re.M
    ):
        if m[3] is None or Marker(m[3]).evaluate():
            out[m[1].lower()] = m[2]
    return out


def core_site(dest: Path) -> Path:
    """A directory holding links to the installed files of the core distributions only."""
    dest.mkdir()
    for name in CORE:
        dist = md.distribution(name)
        tops = {Path(str(f)).parts[0] for f in dist.files or ()}
        base = Path(dist.locate_file(""))
        for top in tops - {"..", "__pycache__"}:
            src = base / top
            if src.exists() and not (dest / top).exists():
                (dest / top).symlink_to(src)
    return dest


def run(cmd, env, **kw) -> subprocess.CompletedProcess:
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=1800, **kw)
    assert p.returncode == 0, f"{cmd}\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}"
    return p


def readme_python_blocks() -> list[str]:
    text = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    return [b for b in blocks if "from baiuv import" in b and "observe" in b]


@pytest.mark.slow
@pytest.mark.timeout(3600)
def test_wheel_with_core_dependencies_only(tmp_path):
    versions = lock_versions()
    for name in CORE:  # the distributions linked are the lock's
        assert md.version(name) == versions[name], name
    src = tmp_path / "src"
    shutil.copytree(
        ROOT / "src", src / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info")
    )
    for f in ("pyproject.toml", "README.md", "CITATION.cff"):
        shutil.copy(ROOT / f, src / f)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["NUMBA_CACHE_DIR"] = str(tmp_path / "numba")  # compiled afresh, then removed
    dist = tmp_path / "dist"
    run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", dist], env, cwd=src
    )
    (wheel,) = dist.glob("baiuv-*.whl")
    assert wheel.name.startswith(f"baiuv-{baiuv.__version__}-")
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        meta = z.read(f"baiuv-{baiuv.__version__}.dist-info/METADATA").decode()
    assert "baiuv/py.typed" in names and "baiuv/simulation/replay.py" in names
    requires = re.findall(r"^Requires-Dist: ([A-Za-z0-9_.\-]+)[^;\n]*$", meta, re.M)
    assert sorted(requires) == ["numba", "numpy", "scipy"]  # unconditional ones
    assert "Provides-Extra: pipeline" in meta

    venv = tmp_path / "venv"
    run([sys.executable, "-m", "venv", venv], env)
    py = venv / "bin" / "python"
    purelib = run([py, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], env)
    (Path(purelib.stdout.strip()) / "baiuv-core-deps.pth").write_text(
        str(core_site(tmp_path / "core-site")) + "\n"
    )
    run([py, "-m", "pip", "install", "--quiet", "--no-index", "--no-cache-dir", wheel], env)
    listed = run([py, "-m", "pip", "list", "--format=freeze"], env).stdout.lower()
    assert not {n.lower() for n in PIPELINE_PACKAGES.values()} & {
        ln.split("==")[0] for ln in listed.split()
    }
    missing = run(
        [py, "-c", "import importlib.util as u, sys; "
         "print([m for m in sys.argv[1:] if u.find_spec(m) is not None])", *PIPELINE_PACKAGES],
        env, cwd=tmp_path,
    )  # fmt: skip
    assert missing.stdout.strip() == "[]"

    out = run([py, "-c", EXAMPLE], env, cwd=tmp_path).stdout.split()
    assert out[0] == "0" and out[2] == "0" and out[4] == "glr", out
    for code in readme_python_blocks():
        run([py, "-c", code], env, cwd=tmp_path)
    baiuv_cmd = venv / "bin" / "baiuv"
    p = run([baiuv_cmd, "identify", "--simulate", "standard"], env, cwd=tmp_path)
    assert "true best arm: 0 (correct)" in p.stdout
    data = tmp_path / "ab.csv"
    data.write_text(
        "arm,value\n" + "".join(f"{i % 2},{(i % 7) / 2 + i % 2}\n" for i in range(2000))
    )
    p = run([baiuv_cmd, "identify", data, "--threshold", "box"], env, cwd=tmp_path)
    assert "recommended arm: 1" in p.stdout
    p = run([py, "-m", "baiuv", "--version"], env, cwd=tmp_path)
    assert p.stdout.strip() == f"baiuv {baiuv.__version__}"
    where = run([py, "-c", "import baiuv; print(baiuv.__file__)"], env, cwd=tmp_path)
    assert where.stdout.startswith(str(venv))
