"""Which rules run on the submitting node (``localrules``) and which are cluster jobs.

On SLURM every non-local rule is a batch job; computing rules must be among them, and the
cheap aggregation, table and figure rules must not wait in the queue (README, "SLURM").
Read statically from the rule files, so the check needs no Snakemake run.
"""

import re
from pathlib import Path

import pytest
from pipeline_helpers import REPO as ROOT
from pipeline_helpers import run_snakemake

FILES = [ROOT / "Snakefile", *sorted((ROOT / "workflow" / "rules").glob("*.smk"))]
COMPUTE = re.compile(r"(_shard|_sweep|_curves|_costs|_initial_times|_instances)$")
LIGHT = re.compile(r"(_aggregate|_figure|_table|_tables|_report)$")


def _rules_and_locals():
    rules, local = set(), set()
    for f in FILES:
        text = f.read_text()
        rules |= set(re.findall(r"^\s*rule (\w+):", text, flags=re.M))
        for block in re.findall(r"^\s*localrules:\n((?:\s+\w+,?\n)+)", text, flags=re.M):
            local |= set(re.findall(r"(\w+)", block))
    return rules, local


def test_localrules_name_existing_rules():
    rules, local = _rules_and_locals()
    assert local <= rules, sorted(local - rules)


def test_compute_rules_are_cluster_jobs_and_light_rules_are_local():
    rules, local = _rules_and_locals()
    compute = {r for r in rules if COMPUTE.search(r) and not LIGHT.search(r)}
    # audit_instances draws a few random instances: cheap, kept local on purpose
    compute -= {"audit_instances"}
    light = {r for r in rules if LIGHT.search(r)}
    assert "sim_shard" in compute and "delta_correct_shard" in compute
    assert not compute & local, sorted(compute & local)
    assert light <= local, sorted(light - local)


def test_every_shard_and_batch_rule_waits_for_the_compiled_kernels():
    """The rules that run simulations take the ``kernels`` rule's marker as input (decision
    D211), so no shard process compiles the loops itself on a cold cache."""
    blocks = {}
    for f in FILES:
        for m in re.finditer(r"^( *)rule( \w+)?:\n((?:\1 +.*\n|\s*\n)+)", f.read_text(), re.M):
            blocks[(m.group(2) or "").strip() or f"{f.name}:anonymous"] = m.group(3)
    shard_rules = [
        r
        for r, body in blocks.items()
        if r.endswith("_shard") or r == "batches.smk:anonymous" or "scripts/shard.py" in body
    ]
    # the shard rules of the records' shard kinds (workflow/scripts/shard.py), and others
    assert {
        "asym_shard",
        "audit_shard",
        "batches.smk:anonymous",
        "delta_correct_shard",
        "ev_remedies_shard",
        "sim_shard",
    } <= set(shard_rules)
    for r in shard_rules:
        assert re.search(r"input:\s+KERNELS,", blocks[r]), r
    assert "kernels" in _rules_and_locals()[1]  # fills the shared cache before submission


@pytest.mark.pipeline
def test_dry_run_in_another_working_directory(tmp_path):
    """``--directory`` elsewhere: every input that belongs to the checkout (the decision
    list of the reproduction report) is found there, not looked up in the run directory."""
    out = _snakemake_dry_run("--quiet", "rules", "--directory", str(tmp_path), cwd=ROOT)
    assert "reproduction_report" in out


def _snakemake_dry_run(*args: str, cwd: Path) -> str:
    """Output of a dry run of the default config with the checkout's Snakefile."""
    res = run_snakemake(
        cwd,
        "-n",
        "--snakefile",
        str(ROOT / "Snakefile"),
        "--configfile",
        str(ROOT / "config" / "config.yaml"),
        *args,
        timeout=600,
        check=True,
    )
    return res.stdout


def _report_inputs(*extra: str, cwd: Path) -> list[str]:
    """The input list of rule reproduction_report in a forced dry run."""
    lines = _snakemake_dry_run("-f", "results/reproduction.md", *extra, cwd=cwd).splitlines()
    i = next(k for k, line in enumerate(lines) if line.strip() == "rule reproduction_report:")
    return [p.strip() for p in lines[i + 1].split("input:", 1)[1].split(",")]


@pytest.mark.pipeline
def test_report_inputs_are_relative_to_the_working_directory(tmp_path):
    """The decision list is recorded relative to the working directory, never as an
    absolute path: a checkout copied or moved together with its results keeps the same
    input set, so Snakemake reruns nothing (an absolute path changes when the tiny run is
    copied). With ``--directory`` elsewhere
    the relative path still leads to the checkout's file."""
    inside = _report_inputs(cwd=ROOT)
    assert "docs/decisions/paper.md" in inside
    assert not any(Path(p).is_absolute() for p in inside)
    elsewhere = _report_inputs("--directory", str(tmp_path), cwd=ROOT)
    (dec,) = [p for p in elsewhere if p.endswith("decisions/paper.md")]
    assert not Path(dec).is_absolute()
    assert (tmp_path / dec).resolve() == (ROOT / "docs" / "decisions" / "paper.md").resolve()
