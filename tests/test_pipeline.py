"""End-to-end pipeline checks: lint, dry run of the default config, tiny config run."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SNAKEMAKE = [sys.executable, "-m", "snakemake"]


def copy_repo(dst: Path) -> Path:
    """Copy the workflow (not results) to ``dst`` so tests never touch the checkout."""
    for name in ["Snakefile", "workflow", "config", "profiles", "src", "pyproject.toml"]:
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(src, dst / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(src, dst / name)
    return dst


def run(args, cwd, check=True, timeout=1500):
    proc = subprocess.run(
        SNAKEMAKE + args, cwd=cwd, capture_output=True, text=True, timeout=timeout
    )
    if check and proc.returncode != 0:
        raise AssertionError(f"snakemake {' '.join(args)} failed:\n{proc.stdout}\n{proc.stderr}")
    return proc


def test_lint_is_clean():
    proc = run(["--lint"], ROOT)
    assert "Congratulations" in proc.stdout + proc.stderr


def test_default_config_dry_run():
    # --forceall: every rule is listed whatever the checkout's results/ already hold
    proc = run(["-n", "--forceall", "--quiet", "rules"], ROOT)
    assert "characteristic_time_figure" in proc.stdout + proc.stderr


@pytest.fixture
def tiny_run(tiny_pipeline):
    """The session's tiny-config run (``tests/conftest.py``, decision D64)."""
    return tiny_pipeline


@pytest.mark.pipeline
def test_tiny_config_builds_every_target(tiny_run):
    figs = list((tiny_run / "figures").glob("*.pdf"))
    assert figs, "no figure built"
    for pdf in figs:
        assert pdf.stat().st_size > 1000
        png = pdf.with_suffix(".png")
        assert png.exists() and png.stat().st_size > 1000
    tables = list((tiny_run / "results" / "tables").glob("*.md"))
    assert tables
    text = (tiny_run / "results/tables/characteristic_times.md").read_text()
    assert "standard" in text and "easy" in text


@pytest.mark.pipeline
def test_second_call_does_nothing_and_single_figure(tiny_run):
    proc = run(["--cores", "2", "--configfile", "config/test.yaml", "-n"], tiny_run)
    assert "Nothing to be done" in proc.stdout + proc.stderr
    target = tiny_run / "figures/characteristic_times_ratio.pdf"
    target.unlink()
    proc = run(
        # targets before --configfile, which takes several values
        [
            "figures/characteristic_times_ratio.pdf",
            "--cores",
            "2",
            "--configfile",
            "config/test.yaml",
        ],
        tiny_run,
    )
    out = proc.stdout + proc.stderr
    assert target.exists()
    assert "characteristic_time_sweep" not in out.split("Job stats:")[-1]  # no recomputation


@pytest.mark.pipeline
@pytest.mark.parametrize(
    "edit,field",
    [
        ("seed: -1", "seed"),
        ("bogus_key: 1", "bogus_key"),
        ("seed: notanumber", "seed"),
    ],
)
def test_bad_config_stops_before_any_job(tmp_path, edit, field):
    work = copy_repo(tmp_path)
    cfg = (work / "config/test.yaml").read_text()
    key = edit.split(":")[0]
    lines = [ln for ln in cfg.splitlines() if not ln.startswith(key + ":")]
    (work / "config/bad.yaml").write_text("\n".join(lines) + "\n" + edit + "\n")
    proc = run(["--cores", "1", "--configfile", "config/bad.yaml"], work, check=False)
    assert proc.returncode != 0
    assert field in proc.stdout + proc.stderr
    assert not (work / "results").exists() and not (work / "figures").exists()


def test_jobs_import_this_checkout(tmp_path):
    from baiuv.jobenv import prepend_pythonpath

    env = {"PYTHONPATH": f"/a{os.pathsep}/b{os.pathsep}/a"}
    assert prepend_pythonpath("/a", env) == f"/a{os.pathsep}/b"
    assert prepend_pythonpath("/c", {}) == "/c"
