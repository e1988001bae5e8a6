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


def _base():
    return yaml.safe_load((ROOT / "config" / "test.yaml").read_text())


@pytest.mark.parametrize("section", ["simulation", "delta_correct"])
def test_sections_take_delta_or_log_inv_delta_exactly_one(section):
    """``delta`` or ``log_inv_delta`` (exactly one; decision D150), checked by the schema;
    ``section_delta`` / ``section_log_inv_delta`` resolve either."""
    import math

    from baiuv.pipeline.config import ConfigError, section_delta, section_log_inv_delta

    cfg = _base()
    sec = cfg[section]
    assert section_log_inv_delta(sec, section) == pytest.approx(math.log(1 / sec["delta"]))
    sec.pop("delta")
    sec["log_inv_delta"] = 1000.0
    validate_config(cfg, SCHEMA)
    assert section_log_inv_delta(sec, section) == 1000.0
    assert section_delta(sec, section) == 0.0  # e^-1000 underflows: display only
    for bad in ({"delta": 0.01, "log_inv_delta": 4.6}, {}, {"log_inv_delta": -1.0}):
        c = _base()
        c[section].pop("delta")
        c[section].update(bad)
        with pytest.raises(Exception, match="oneOf|log_inv_delta|minimum"):
            validate_config(c, SCHEMA)
    c = _base()
    c[section].pop("delta")
    with pytest.raises(
        ConfigError, match=f"give exactly one of {section}.delta and {section}.log_inv_delta"
    ):
        validate_config(c, SCHEMA)
    with pytest.raises(
        ConfigError, match=f"exactly one of {section}.delta and {section}.log_inv_delta"
    ):
        section_log_inv_delta({"delta": 0.1, "log_inv_delta": 2.3}, section)


def test_asymptotic_section_takes_deltas_or_log_inv_deltas():
    cfg = _base()
    sec = cfg["asymptotic"]
    assert "log_inv_deltas" in sec and "deltas" not in sec
    sec["log_inv_deltas"] = {"min": 10.0, "max": 1000.0, "num": 4, "scale": "log"}
    validate_config(cfg, SCHEMA)
    sec["deltas"] = [0.1, 0.01]
    with pytest.raises(Exception, match="oneOf|valid under each"):
        validate_config(cfg, SCHEMA)
    sec.pop("log_inv_deltas")
    validate_config(cfg, SCHEMA)
