"""Configuration files that cannot mislead (decision D267): duplicate keys and YAML errors
refused with file and line; in an overlay, ``{}`` and ``null`` replace and drop what the
base configuration gives."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from baiuv.pipeline.config import (
    ConfigError,
    load_config_file,
    merge_config_files,
    validate_config,
)

REPO = Path(__file__).resolve().parents[2]
BASE = REPO / "config" / "config.yaml"
SCHEMA = REPO / "workflow" / "schemas" / "config.schema.yaml"


def _write(tmp_path, text: str, name: str = "overlay.yaml") -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def test_duplicate_top_level_key_is_refused_with_file_and_line(tmp_path):
    p = _write(tmp_path, "seed: 7\nshard_batches: auto\nseed: 99\n")
    with pytest.raises(ConfigError) as err:
        load_config_file(p)
    assert str(err.value) == f"{p}:3: duplicate key 'seed' (first given on line 1)"


def test_duplicate_nested_key_is_refused(tmp_path):
    p = _write(tmp_path, "simulation:\n  shards: 1\n  n0: 2\n  shards: 4\n")
    with pytest.raises(ConfigError, match=r"overlay\.yaml:4: duplicate key 'shards'"):
        merge_config_files(BASE, [p])


def test_yaml_syntax_error_names_file_and_line(tmp_path):
    p = _write(tmp_path, "seed: 7\nsimulation:\n  shards: [1, 2\n  n0: 2\n")
    with pytest.raises(ConfigError, match=r"overlay\.yaml:\d+:\d+: YAML syntax error") as err:
        merge_config_files(BASE, [p])
    assert "\n" not in str(err.value)


def test_missing_file_is_one_line(tmp_path):
    with pytest.raises(ConfigError, match=r"nowhere\.yaml: no such configuration file$"):
        merge_config_files(BASE, [tmp_path / "nowhere.yaml"])


def test_empty_experiments_replace_the_inherited_ones_and_are_refused(tmp_path):
    p = _write(tmp_path, "simulation:\n  experiments: {}\n")
    config = merge_config_files(BASE, [p])
    assert config["simulation"]["experiments"] == {}
    with pytest.raises(ConfigError, match=r"^simulation\.experiments: "):
        validate_config(config, SCHEMA)


def test_overlay_drops_an_inherited_experiment(tmp_path):
    base = load_config_file(BASE)
    names = list(base["simulation"]["experiments"])
    assert len(names) >= 2
    p = _write(tmp_path, f"simulation:\n  experiments:\n    {names[0]}: null\n")
    config = validate_config(merge_config_files(BASE, [p]), SCHEMA)
    assert list(config["simulation"]["experiments"]) == names[1:]


def test_empty_or_null_optional_section_means_none(tmp_path):
    base = load_config_file(BASE)
    assert "asymptotic" in base and "audit" in base
    p = _write(tmp_path, "asymptotic: {}\naudit: null\n")
    config = validate_config(merge_config_files(BASE, [p]), SCHEMA)
    assert "asymptotic" not in config and "audit" not in config


def test_scalar_null_and_nested_values_merge_as_before(tmp_path):
    p = _write(tmp_path, "seed: 3\nthresholds:\n  eta0: null\nsimulation:\n  shards: 2\n")
    config = merge_config_files(BASE, [p], {"shard_batches": 3})
    base = load_config_file(BASE)
    assert config["seed"] == 3 and config["shard_batches"] == 3
    assert config["thresholds"]["eta0"] is None
    assert config["simulation"]["shards"] == 2
    assert config["simulation"]["experiments"] == base["simulation"]["experiments"]


def test_the_repository_configs_load_strictly():
    for p in sorted((REPO / "config").glob("*.yaml")):
        load_config_file(p)


def test_command_line_files_are_checked_in_one_line(tmp_path):
    """``reproduce.sh`` reads the ``--configfile`` files before Snakemake does: a missing
    file or a YAML error is one line naming the file (and line)."""
    import subprocess
    import sys

    from baiuv.pipeline.config_files import config_files, main

    argv = ["--cores", "2", "--configfile", "a.yaml", "b.yaml", "-n", "--configfile=c.yaml"]
    assert config_files(argv) == ["a.yaml", "b.yaml", "c.yaml"]
    assert config_files(["all", "--configfiles", "x.yaml", "--cores", "1", "t"]) == ["x.yaml"]
    good = _write(tmp_path, "seed: 1\n", "good.yaml")
    assert main(["--configfile", str(good)]) == 0
    bad = _write(tmp_path, "seed: 7\nsimulation:\n  shards: [1, 2\n", "bad.yaml")
    for target, pattern in (
        (bad, r"bad\.yaml:\d+:\d+: YAML syntax error"),
        (tmp_path / "gone.yaml", r"gone\.yaml: no such configuration file"),
    ):
        proc = subprocess.run(
            [sys.executable, "-m", "baiuv.pipeline.config_files", "--configfile", str(target)],
            capture_output=True,
            text=True,
        )
        assert proc.returncode == 1
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and re.search(pattern, lines[0]), proc.stderr
    script = (REPO / "reproduce.sh").read_text()
    assert script.index("-m baiuv.pipeline.config_files") < script.index('snakemake "$@"')


def test_environment_snakemake_reports_config_files_in_one_line(tmp_path):
    """The ``snakemake`` command that scripts/setup-venv.sh writes (D299: Snakemake reads
    ``--configfile`` before any workflow code) names a missing file, or the file and line
    of a YAML error, in one line and exits 1; other calls reach Snakemake."""
    import subprocess
    import sys

    from baiuv.pipeline.config_files import install_entry_point

    (tmp_path / "bin").mkdir()
    cmd = install_entry_point(tmp_path / "bin" / "snakemake")
    assert install_entry_point(cmd) == cmd  # written once, unchanged the second time
    bad = _write(tmp_path, "seed: 7\nsimulation:\n\tshards: 1\n", "bad.yaml")
    for args, pattern in (
        (["-n", "--configfile", "gone.yaml"], r"^invalid configuration: gone\.yaml: no such"),
        ([f"--configfile={bad}", "-n"], r"^invalid configuration: .*bad\.yaml:3:\d+: YAML syntax"),
    ):
        proc = subprocess.run([cmd, *args], capture_output=True, text=True, cwd=tmp_path)
        assert proc.returncode == 1, proc.stderr
        lines = (proc.stdout + proc.stderr).strip().splitlines()
        assert len(lines) == 1 and re.search(pattern, lines[0]), proc.stderr
    proc = subprocess.run([cmd, "--version"], capture_output=True, text=True, check=True)
    assert re.fullmatch(r"\d+\.\d+\.\d+\S*", proc.stdout.strip()), proc.stdout
    # the set-up writes it into its environment; the environment running the tests has it
    script = (REPO / "scripts" / "setup-venv.sh").read_text()
    assert 'install_entry_point(".venv/bin/snakemake")' in script
    if Path(sys.prefix).resolve() == (REPO / ".venv").resolve():
        installed = Path(sys.prefix) / "bin" / "snakemake"
        assert "baiuv.pipeline.config_files" in installed.read_text()
