"""Every configuration shipped in ``config/`` passes the one validation call (schema with the
registry's enums and defaults, cross-field and experiment-section checks)."""

from pathlib import Path

import pytest
import yaml

from baiuv.pipeline.config import validate_config

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = str(ROOT / "workflow" / "schemas" / "config.schema.yaml")
#: Overlays, given after a full configuration (``--configfile config/paper.yaml <overlay>``).
OVERLAYS = {"paper-extended.yaml": "paper.yaml"}
CONFIGS = sorted(p for p in (ROOT / "config").glob("*.yaml") if p.name not in OVERLAYS)


def test_the_expected_configs_exist():
    names = {p.name for p in CONFIGS}
    assert {"config.yaml", "paper.yaml", "test.yaml", "audit-resolving.yaml"} <= names
    assert all((ROOT / "config" / name).exists() for name in OVERLAYS)


@pytest.mark.parametrize("path", CONFIGS, ids=[p.name for p in CONFIGS])
def test_shipped_config_is_valid(path):
    cfg = yaml.safe_load(path.read_text())
    validate_config(cfg, SCHEMA)
    assert cfg["simulation"]["max_samples"] >= 1  # defaults filled in


@pytest.mark.parametrize("overlay", sorted(OVERLAYS))
def test_overlay_on_its_base_is_valid(overlay):
    """An overlay merged over its base (Snakemake merges --configfile files key by key)
    validates, and turns on the sections its base switches off."""
    base = yaml.safe_load((ROOT / "config" / OVERLAYS[overlay]).read_text())
    over = yaml.safe_load((ROOT / "config" / overlay).read_text())
    assert all(base[key] is None for key in over)  # the overlay adds only what base skips
    cfg = {**base, **over}
    validate_config(cfg, SCHEMA)
    assert all(isinstance(cfg[key], dict) for key in over)


def test_null_section_is_skipped():
    """An optional experiment section set to null is removed (decision D200): the paper
    configuration runs the paper's figures and three studies, not the audit, although
    config/config.yaml, which it is merged into, enables every experiment of the artifact."""
    from baiuv.pipeline.config import optional_sections

    default = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    paper = yaml.safe_load((ROOT / "config" / "paper.yaml").read_text())
    assert all(key in default for key in optional_sections())
    cfg = {**default, **paper}
    validate_config(cfg, SCHEMA)
    from baiuv.pipeline.specs import specs

    studies = [s.section for s in specs() if s.beyond_paper and s.section in cfg]
    assert studies == ["asymptotic", "delta_correct", "ev_remedies"]
    assert "audit" in default and "audit" not in cfg
    with pytest.raises(Exception, match="simulation"):
        validate_config({**default, "simulation": None}, SCHEMA)  # required: not skippable


def test_tiny_config_sizes_every_experiment_section():
    """config/test.yaml (the test suite's run) sizes every experiment section that
    config/config.yaml enables, so that none runs at the default's size inherited through
    Snakemake's merge (decision D67)."""
    from baiuv.pipeline.config import optional_sections

    default = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    tiny = yaml.safe_load((ROOT / "config" / "test.yaml").read_text())
    enabled = [key for key in optional_sections() if default.get(key)]
    assert enabled
    assert [key for key in enabled if not isinstance(tiny.get(key), dict)] == []
    shards = {key: tiny[key].get("shards", 1) for key in enabled}
    assert shards == dict.fromkeys(enabled, 1)


def test_audit_resolving_config_resolves_delta():
    """400 runs per cell: enough for a cell without error to be resolved below delta (D89)."""
    from baiuv.studies.audit_report import runs_to_resolve

    cfg = yaml.safe_load((ROOT / "config" / "audit-resolving.yaml").read_text())["audit"]
    assert cfg["runs"] >= runs_to_resolve(cfg["delta"], cfg["level"])


def test_asymptotic_standard_runs_resolve_one_percent():
    """config/paper.yaml's runs on the standard instance resolve every cell's
    constant C to ±1 % at the section's level: with cv = sd(τ/ln(1/δ))/C measured by the
    pilot (tests/data/asymptotic_standard_pilot.csv, ln(1/δ) = 1000) at its 95 % upper
    confidence bound (chi-square), z·cv/sqrt(runs) <= 1 %. Fails if the runs are lowered
    below what the pilot needs, or if a cell of the section has no pilot."""
    import numpy as np
    import pandas as pd
    from scipy.stats import chi2

    from baiuv.studies.asymptotic import THEORY, asymptotic_pairs, theoretical_constants
    from baiuv.studies.asymptotic_claims import resolution_of_runs, runs_for_resolution

    base = yaml.safe_load((ROOT / "config" / "paper.yaml").read_text())
    sec = base["asymptotic"]
    (runs,) = [s["runs"] for s in sec["instances"] if s.get("instance") == "standard"]
    (std,) = [i for i in base["instances"] if i["name"] == "standard"]
    consts = theoretical_constants(std["mu"], std["sigma2"], float(sec["beta"]))
    pilot = pd.read_csv(ROOT / "tests" / "data" / "asymptotic_standard_pilot.csv", comment="#")
    level = float(sec["level"])
    for alg, thr in asymptotic_pairs(sec):
        g = pilot[(pilot.algorithm == alg) & (pilot.threshold == thr)]
        assert len(g) >= 20, f"no pilot for {alg} + {thr}"
        m = len(g)
        cv = (g.stopping_time / g.log_inv_delta).std(ddof=1) / consts[THEORY[alg][0]]
        upper = cv * np.sqrt((m - 1) / chi2.ppf(1 - level, m - 1))
        need = runs_for_resolution(upper, 0.01, level)
        assert runs >= need, f"{alg} + {thr}: {runs} runs, {need} needed for ±1 %"
        assert resolution_of_runs(upper, runs, level) <= 0.01


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


def test_publish_tables_destination():
    """The optional publish.tables key: none in the default config (tables are not
    published), docs/paper-scale/tables in the paper configuration, checked as the others."""
    from baiuv.pipeline.config import ConfigError, publish_paths, publish_tables_dir

    default = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    paper = yaml.safe_load((ROOT / "config" / "paper.yaml").read_text())
    assert publish_tables_dir(default) is None
    merged = {**default, **paper}
    assert publish_paths(merged) == ("docs/paper-scale/figures", "docs/paper-scale/reproduction.md")
    assert publish_tables_dir(merged) == "docs/paper-scale/tables"
    with pytest.raises(ConfigError, match="publish.tables"):
        publish_tables_dir({"publish": {"figures": "f", "report": "r.md", "tables": "results/t"}})


def _base():
    return yaml.safe_load((ROOT / "config" / "test.yaml").read_text())


@pytest.mark.parametrize("section", ["simulation", "delta_correct"])
def test_sections_take_delta_or_log_inv_delta_exactly_one(section):
    """``delta`` or ``log_inv_delta`` (exactly one), checked by the schema;
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


@pytest.mark.parametrize("bad", [0, -1, "foo", 2.5])
def test_shard_batches_refused_with_the_allowed_values(bad):
    """``shard_batches``: 'auto', 'off' or an integer >= 1; anything else is refused
    with the field and the allowed values named."""
    from baiuv.pipeline.config import ConfigError

    cfg = _base()
    cfg["shard_batches"] = bad
    with pytest.raises(
        ConfigError, match=r"shard_batches: .*allowed: 'auto', 'off', an integer >= 1"
    ):
        validate_config(cfg, SCHEMA)
    for good in ("auto", "off", 3):
        cfg = _base()
        cfg["shard_batches"] = good
        validate_config(cfg, SCHEMA)


def test_every_config_runs_a_family_of_shards_as_one_job_on_every_core():
    """Local runs use ``shard_batches: auto`` (D226): the default configuration sets it, and
    a --configfile is merged into it key by key, so the paper-scale configurations and the
    tests' tiny one inherit it. Fails when one of them sets a number of one-core batches."""
    default = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    assert default["shard_batches"] == "auto"
    for name in ("paper.yaml", "audit-resolving.yaml", "test.yaml"):
        merged = {**default, **yaml.safe_load((ROOT / "config" / name).read_text())}
        for overlay, base in OVERLAYS.items():
            if base == name:
                merged.update(yaml.safe_load((ROOT / "config" / overlay).read_text()))
        assert merged["shard_batches"] == "auto", name
