"""The locked environment: requirements/lock.txt pins (with hashes) every dependency for
every supported Python, within the ranges of pyproject.toml, and the conda files carry the
lock's versions (for the Python they pin)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
import yaml
from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
LOCK = ROOT / "requirements" / "lock.txt"
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
CONDA = {
    "environment.yml": ROOT / "environment.yml",
    "workflow/envs/baiuv.yaml": ROOT / "workflow" / "envs" / "baiuv.yaml",
}
PYTHONS = ["3.11", "3.12", "3.13"]  # README: Python >= 3.11
# conda-only packages (no PyPI counterpart in the lock) and PyPI-only ones
CONDA_ONLY = {"python", "ipopt", "idaes-pse", "pip"}
PIP_ONLY = {
    "cyipopt-wheels",  # conda uses conda-forge's ipopt executable instead
    "build",  # the wheel test's frontend (conda-forge names it python-build)
}


def linux_env(python: str) -> dict[str, str]:
    return {
        "python_version": python,
        "python_full_version": python + ".0",
        "sys_platform": "linux",
        "platform_system": "Linux",
        "platform_machine": "x86_64",
        "os_name": "posix",
        "implementation_name": "cpython",
        "platform_python_implementation": "CPython",
        "extra": "",
    }


def lock_pins(text: str) -> list[tuple[str, str, str | None, int]]:
    """``(name, version, marker, number of hashes)`` of every pin of a lock file."""
    out = []
    for block in re.split(r"\n(?=[A-Za-z0-9])", text):
        m = re.match(r"([A-Za-z0-9_.\-]+)==([^\s;\\]+)(?:\s*;\s*([^\\\n]+?))?\s*\\?\n", block)
        if m:
            out.append(
                (canonicalize_name(m[1]), m[2], m[3], len(re.findall(r"--hash=sha256:", block)))
            )
    return out


def versions_for(text: str, python: str) -> dict[str, str]:
    """``{name: version}`` of the pins that apply on Linux x86_64 with ``python``."""
    out: dict[str, str] = {}
    for name, version, marker, _ in lock_pins(text):
        if marker is None or Marker(marker).evaluate(linux_env(python)):
            assert name not in out, f"{name} pinned twice for Python {python}"
            out[name] = version
    return out


def conda_mismatches(lock_text: str, conda_text: str) -> list[str]:
    """Entries of a conda file that are not ``name==<lock version for Python 3.11>``."""
    env = yaml.safe_load(conda_text)
    python = next(str(d).split("=")[-1] for d in env["dependencies"] if str(d).startswith("python"))
    locked = versions_for(lock_text, python)
    bad = []
    for dep in env["dependencies"]:
        if not isinstance(dep, str):
            continue  # the pip: section (editable install of baiuv)
        name = canonicalize_name(re.split(r"[<>=!~ ]", dep, maxsplit=1)[0])
        if name in CONDA_ONLY:
            continue
        if name not in locked or dep != f"{name}=={locked[name]}":
            bad.append(f"{dep} (lock: {locked.get(name, 'absent')})")
    return bad


def direct_requirements(extras=("pipeline", "test", "docs")) -> list[Requirement]:
    reqs = [Requirement(r) for r in PYPROJECT["project"]["dependencies"]]
    for extra in extras:
        reqs += [Requirement(r) for r in PYPROJECT["project"]["optional-dependencies"][extra]]
    return reqs


def test_every_pin_is_hashed():
    pins = lock_pins(LOCK.read_text())
    assert len(pins) > 50
    assert all(n_hashes >= 1 for *_, n_hashes in pins)


@pytest.mark.parametrize("python", PYTHONS)
def test_lock_pins_every_dependency_within_pyproject_ranges(python):
    """One pin per direct dependency for each supported Python, inside pyproject's range
    (pyproject keeps compatible ranges; the lock picks one version)."""
    locked = versions_for(LOCK.read_text(), python)
    env = linux_env(python)
    for req in direct_requirements():
        if req.marker is not None and not req.marker.evaluate(env):
            continue
        name = canonicalize_name(req.name)
        assert name in locked, f"{name} not locked for Python {python}"
        assert req.specifier.contains(locked[name], prereleases=True), (req, locked[name])
    build = Requirement(PYPROJECT["build-system"]["requires"][0])
    assert build.specifier.contains(locked[canonicalize_name(build.name)])


@pytest.mark.parametrize("name", sorted(CONDA))
def test_conda_files_carry_the_lock_versions(name):
    assert conda_mismatches(LOCK.read_text(), CONDA[name].read_text()) == []


def test_conda_files_list_every_runtime_dependency():
    runtime = {canonicalize_name(r.name) for r in direct_requirements(extras=())} - PIP_ONLY
    full = {
        canonicalize_name(r.name) for r in direct_requirements(extras=("pipeline", "test"))
    } - PIP_ONLY
    for name, want in (("workflow/envs/baiuv.yaml", runtime), ("environment.yml", full)):
        deps = yaml.safe_load(CONDA[name].read_text())["dependencies"]
        have = {canonicalize_name(re.split(r"[<>=!~ ]", d)[0]) for d in deps if isinstance(d, str)}
        assert want <= have, (name, sorted(want - have))


def test_a_disagreeing_conda_file_is_caught():
    text = CONDA["workflow/envs/baiuv.yaml"].read_text()
    numpy = versions_for(LOCK.read_text(), "3.11")["numpy"]
    assert conda_mismatches(LOCK.read_text(), text.replace(f"numpy=={numpy}", "numpy>=1.26"))
    assert conda_mismatches(LOCK.read_text(), text.replace(f"numpy=={numpy}", "numpy==1.26.4"))


def test_license_is_an_spdx_expression():
    assert PYPROJECT["project"]["license"] == "MIT"  # not the deprecated {text = ...} table


#: The first line and the grant of each license the project may declare (SPDX id).
LICENSE_TEXTS = {
    "MIT": ("MIT License", "Permission is hereby granted, free of charge, to any person")
}


def license_mismatches(spdx: str, text: str, files: list[str]) -> list[str]:
    """What keeps ``LICENSE`` (``text``) from being the license ``spdx`` of pyproject.toml
    (``license-files``: ``files``)."""
    if spdx not in LICENSE_TEXTS:
        return [f"no known text for {spdx!r}"]
    title, grant = LICENSE_TEXTS[spdx]
    flat = " ".join(text.split())
    bad = [] if text.startswith(title + "\n") else [f"does not start with {title!r}"]
    bad += [] if grant in flat else [f"lacks {grant!r}"]
    if not re.search(r"(?m)^Copyright \(c\) \d{4} \S", text):
        bad.append("no copyright line")
    if files != ["LICENSE"]:
        bad.append(f"license-files is {files}, not ['LICENSE']")
    return bad


def test_the_license_file_is_the_declared_license():
    project = PYPROJECT["project"]
    text = (ROOT / "LICENSE").read_text() if (ROOT / "LICENSE").is_file() else ""
    assert license_mismatches(project["license"], text, project.get("license-files")) == []
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    assert cff["license"] == project["license"]


def test_a_license_that_disagrees_is_caught():
    text = (ROOT / "LICENSE").read_text()
    assert license_mismatches("MIT", text.replace("MIT License", "BSD License"), ["LICENSE"])
    assert license_mismatches("Apache-2.0", text, ["LICENSE"])
    assert license_mismatches("MIT", text, None)
