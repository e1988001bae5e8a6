"""End-to-end pipeline checks: lint, dry run of the default config, tiny config run."""

import subprocess

import pytest
from pipeline_helpers import REPO, run_snakemake, tree_state


@pytest.mark.pipeline
def test_lint_is_clean():
    # snakemake --lint exits 1 when it finds anything: check=True checks the exit code, not the
    # wording of the success message
    run_snakemake(REPO, "--lint", check=True)


@pytest.mark.pipeline
def test_default_config_dry_run():
    # --forceall: every rule is listed whatever the checkout's results/ already hold
    proc = run_snakemake(REPO, "-n", "--forceall", "--quiet", "rules", check=True)
    assert "characteristic_time_figure" in proc.stdout


@pytest.fixture
def tiny_run(tiny_pipeline):
    """The session's tiny-config run (``tests/conftest.py``, decision D64)."""
    return tiny_pipeline


@pytest.mark.pipeline
def test_tiny_config_builds_every_target(tiny_run):
    figs = list((tiny_run / "results" / "figures").glob("*.pdf"))
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
    # judged on the files, not on Snakemake's wording: a second run rewrites nothing
    before = tree_state(tiny_run, "results")
    run_snakemake(tiny_run, "--cores", "2", "--configfile", "config/test.yaml", check=True)
    assert tree_state(tiny_run, "results") == before
    target = tiny_run / "results/figures/characteristic_times_ratio.pdf"
    sweep = tiny_run / "results/characteristic_times/sweep_gap.parquet"
    sweep_state = sweep.stat().st_mtime_ns
    target.unlink()
    run_snakemake(
        tiny_run,
        # targets before --configfile, which takes several values
        "results/figures/characteristic_times_ratio.pdf",
        "--cores",
        "2",
        "--configfile",
        "config/test.yaml",
        check=True,
    )
    assert target.exists()
    assert sweep.stat().st_mtime_ns == sweep_state  # no recomputation of its inputs


@pytest.mark.pipeline
def test_run_touches_no_tracked_file(tiny_run):
    """A run writes under results/ (and logs/, caches) only: every file of the repository
    copy the run started from still has the checkout's bytes, and the committed figures
    were not regenerated (``copy_repo`` empties figures/)."""
    tracked = subprocess.run(
        ["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True
    ).stdout.split(b"\0")
    changed = []
    for rel in (t.decode() for t in tracked if t):
        if rel.startswith("figures/"):
            continue  # not copied into the run directory (see below)
        a, b = REPO / rel, tiny_run / rel
        if a.is_file() and b.is_file() and a.read_bytes() != b.read_bytes():
            changed.append(rel)
    assert not changed
    assert not any((tiny_run / "figures").iterdir())


@pytest.mark.pipeline
def test_publish_copies_figures_and_report(tiny_run):
    """`snakemake publish` copies results/figures/* and results/reproduction.md byte for
    byte to the config's publish destination (config/test.yaml: runs/test/), and a second
    publish rewrites nothing."""
    run_snakemake(
        tiny_run, "publish", "--cores", "1", "--configfile", "config/test.yaml", check=True
    )
    dest = tiny_run / "runs" / "test"
    figures = sorted((tiny_run / "results" / "figures").iterdir())
    assert figures
    for f in figures:
        assert (dest / "figures" / f.name).read_bytes() == f.read_bytes()
    report = (tiny_run / "results" / "reproduction.md").read_bytes()
    assert (dest / "reproduction.md").read_bytes() == report
    before = tree_state(tiny_run, "runs", "results")
    run_snakemake(
        tiny_run, "publish", "--cores", "1", "--configfile", "config/test.yaml", check=True
    )
    assert tree_state(tiny_run, "runs", "results") == before


def _section(text: str, heading: str) -> list[str]:
    """The table rows of the report's section ``heading``."""
    assert f"## {heading}\n" in text, heading
    body = text.split(f"## {heading}\n", 1)[1].split("\n## ", 1)[0]
    return [line for line in body.splitlines() if line.startswith("| ") and "---" not in line][1:]


@pytest.mark.pipeline
def test_report_has_the_threshold_hyper_parameter_and_fhn_n0_rows(tiny_run):
    """Appendix J.1's statements on (η0, η1), s and γ (D340) and on FHN's n0 (D341, one
    pair of rows per experiment of config/test.yaml) are rows of the report, each with a
    verdict of the rule."""
    from baiuv.experiments.fhn_n0 import FHN1_WORDS, IMPACT_WORDS
    from baiuv.experiments.threshold_param_claims import PARAM_STATEMENTS

    text = (tiny_run / "results" / "reproduction.md").read_text()
    rows = _section(text, "Threshold hyper-parameters")
    assert len(rows) == len(PARAM_STATEMENTS) + 1  # and the order of the thresholds
    assert all("Appendix J.1" in r for r in rows)
    assert "the relative performance of the thresholds are not changed" in "".join(rows)
    assert "more frequent update of the approximation term error" in "".join(rows)
    rows = _section(text, "FHN's initial size n0")
    assert len(rows) == 6  # random, standard, easy
    for words in (IMPACT_WORDS, FHN1_WORDS):
        assert sum(words[:40] in r for r in rows) == 3
    verdicts = ("| reproduced |", "| differs |", "| not resolved |")
    assert all(any(v in r for v in verdicts) for r in rows)
