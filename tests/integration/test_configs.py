"""Every configuration shipped in ``config/`` passes the one validation call (schema with the
registry's enums and defaults, cross-field and experiment-section checks)."""

from pathlib import Path

import pytest
import yaml

from baiuv.pipeline.config import validate_config

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = str(ROOT / "workflow" / "schemas" / "config.schema.yaml")
CONFIGS = sorted((ROOT / "config").glob("*.yaml"))


def test_the_expected_configs_exist():
    names = {p.name for p in CONFIGS}
    assert {"config.yaml", "paper.yaml", "test.yaml", "audit-resolving.yaml"} <= names


@pytest.mark.parametrize("path", CONFIGS, ids=[p.name for p in CONFIGS])
def test_shipped_config_is_valid(path):
    cfg = yaml.safe_load(path.read_text())
    validate_config(cfg, SCHEMA)
    assert cfg["simulation"]["max_samples"] >= 1  # defaults filled in


def test_audit_resolving_config_resolves_delta():
    """400 runs per cell: enough for a cell without error to be resolved below delta (D89)."""
    from baiuv.experiments.audit import runs_to_resolve

    cfg = yaml.safe_load((ROOT / "config" / "audit-resolving.yaml").read_text())["audit"]
    assert cfg["runs"] >= runs_to_resolve(cfg["delta"], cfg["level"])


def test_publish_destinations():
    """config.yaml publishes to the committed figures/ and docs/reproduction.md; test.yaml
    (merged into it by --configfile) overrides both keys with a git-ignored folder."""
    from baiuv.pipeline.config import ConfigError, publish_paths

    default = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    assert publish_paths(default) == ("figures", "docs/reproduction.md")
    test = yaml.safe_load((ROOT / "config" / "test.yaml").read_text())
    assert publish_paths({**default, **test}) == ("runs/test/figures", "runs/test/reproduction.md")
    for bad in ("results/figures", "/abs", "../out", "a/../../out", "a/..", "./results"):
        with pytest.raises(ConfigError, match="publish.figures"):
            publish_paths({"publish": {"figures": bad, "report": "docs/r.md"}})
    with pytest.raises(ConfigError, match="no publish section"):
        publish_paths({})
