"""End-to-end pipeline checks: lint, dry run of the default config, tiny config run."""

import pytest
from pipeline_helpers import REPO, run_snakemake


def run(args, cwd, check=True, timeout=1500):
    """``snakemake *args`` in ``cwd``; ``AssertionError`` with its output if it fails."""
    proc = run_snakemake(cwd, *args, timeout=timeout)
    if check and proc.returncode != 0:
        raise AssertionError(f"snakemake {' '.join(args)} failed:\n{proc.stdout}")
    return proc


@pytest.mark.pipeline
def test_lint_is_clean():
    proc = run(["--lint"], REPO)
    assert "Congratulations" in proc.stdout


@pytest.mark.pipeline
def test_default_config_dry_run():
    # --forceall: every rule is listed whatever the checkout's results/ already hold
    proc = run(["-n", "--forceall", "--quiet", "rules"], REPO)
    assert "characteristic_time_figure" in proc.stdout


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
    assert "Nothing to be done" in proc.stdout
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
    out = proc.stdout
    assert target.exists()
    assert "characteristic_time_sweep" not in out.split("Job stats:")[-1]  # no recomputation
