#!/usr/bin/env python3
"""Pin the conda environment files to the versions of the pip lock.

    python scripts/conda_env.py          # rewrite environment.yml and workflow/envs/baiuv.yaml
    python scripts/conda_env.py --check  # exit 1 (and list them) if a pin differs

The conda environments pin ``python=3.11`` (the oldest Python the package supports), so
every package takes the version the lock gives for Python 3.11 on Linux x86_64. Only
the ``- name...`` lines of packages that are in the lock change; comments and the
conda-only packages (python, ipopt, idaes-pse, pip) stay as written.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from packaging.markers import Marker

ROOT = Path(__file__).resolve().parents[1]
LOCK = ROOT / "requirements" / "lock.txt"
CONDA_FILES = [ROOT / "environment.yml", ROOT / "workflow" / "envs" / "baiuv.yaml"]
# the platform the conda environments describe
CONDA_PYTHON = "3.11"
MARKER_ENV = {
    "python_version": CONDA_PYTHON,
    "python_full_version": CONDA_PYTHON + ".0",
    "sys_platform": "linux",
    "platform_system": "Linux",
    "platform_machine": "x86_64",
    "os_name": "posix",
    "implementation_name": "cpython",
    "platform_python_implementation": "CPython",
}
# pip name -> conda-forge name, where they differ
CONDA_NAME: dict[str, str] = {}

_PIN = re.compile(r"^([A-Za-z0-9_.\-]+)==([^\s;\\]+)\s*(?:;\s*([^\\]+?))?\s*\\?$")
_ENTRY = re.compile(r"^(\s*-\s+)([A-Za-z0-9_.\-]+)\s*(?:[<>=!~].*)?$")


def lock_versions(path: Path = LOCK) -> dict[str, str]:
    """``{conda name: version}`` of the lock's pins that apply on the conda platform."""
    out = {}
    for line in path.read_text().splitlines():
        m = _PIN.match(line)
        if not m:
            continue
        name, version, marker = m.group(1).lower(), m.group(2), m.group(3)
        if marker and not Marker(marker).evaluate(MARKER_ENV):
            continue
        out[CONDA_NAME.get(name, name)] = version
    return out


def pin(text: str, versions: dict[str, str]) -> str:
    """``text`` (a conda YAML file) with every locked package pinned to its version."""
    lines = []
    for line in text.splitlines():
        m = _ENTRY.match(line)
        if m and m.group(2).lower() in versions and m.group(2).lower() != "pip":
            line = f"{m.group(1)}{m.group(2)}=={versions[m.group(2).lower()]}"
        lines.append(line)
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    versions = lock_versions()
    stale = []
    for path in CONDA_FILES:
        new = pin(path.read_text(), versions)
        if new != path.read_text():
            if "--check" in argv:
                stale.append(path.relative_to(ROOT))
            else:
                path.write_text(new)
                print(f"pinned {path.relative_to(ROOT)}")
    if stale:
        print("conda files disagree with requirements/lock.txt:", *stale, file=sys.stderr)
        print("run: python scripts/conda_env.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
