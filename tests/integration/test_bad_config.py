"""Bad configurations are refused before any job starts, with a message naming the field.

Each case mutates the tiny configuration (``config/test.yaml``) and runs the real command a
user would type, ``snakemake --cores 1 --configfile bad.yaml`` (not a dry run: if the
config slipped through, jobs would start and results would change). In every case the
command exits non-zero, the output names the offending field and, where there is a closed
list, the allowed values; no job starts; and nothing under ``results/`` or ``figures/``
(the committed, published copies) changes (size and mtime of every file, and no new files).

Checks come from two places: the JSON schema (``workflow/schemas/config.schema.yaml``:
types, ranges, enums, unknown keys) and ``baiuv.pipeline.config.validate_config_semantics``
(cross-field checks), called by ``workflow/rules/common.smk`` right after the schema.
"""

from __future__ import annotations

import copy
import math
import re

import pytest
import yaml
from pipeline_helpers import REPO, copy_repo, run_snakemake, tree_state

from baiuv.pipeline.config import ConfigError, validate_config_semantics

BASE = yaml.safe_load((REPO / "config" / "test.yaml").read_text())


def _set(path: str, value):
    """Mutation setting ``path`` (dotted, integers index lists) to ``value``."""

    def mutate(cfg):
        keys = [int(k) if k.isdigit() else k for k in path.split(".")]
        node = cfg
        for k in keys[:-1]:
            node = node[k]
        node[keys[-1]] = value

    return mutate


def _dup_name(cfg):
    cfg["instances"][1]["name"] = cfg["instances"][0]["name"]


def _tie(cfg):
    mu = cfg["instances"][0]["mu"]
    mu[1] = max(mu)


# (id, mutation, regexes that must all appear in the output)
CASES = [
    (
        "publish_into_results",
        _set("publish.figures", "results/figures"),
        [r"publish", r"does not match"],
    ),
    (
        "publish_report_absolute",
        _set("publish.report", "/tmp/reproduction.md"),
        [r"publish", r"does not match"],
    ),
    (
        "publish_into_results_via_dotdot",
        _set("publish.figures", "x/../results/figures"),
        [r"publish\.figures", r"outside results/"],
    ),
    (
        "variance_zero",
        _set("instances.0.sigma2.1", 0.0),
        [r"instances.*0.*sigma2", r"less than or equal to the minimum of 0"],
    ),
    (
        "variance_negative",
        _set("instances.1.sigma2.0", -1.0),
        [r"instances.*1.*sigma2", r"minimum of 0"],
    ),
    (
        "mu_sigma2_lengths_differ",
        _set("instances.0.sigma2", [1.0, 0.6, 0.5]),
        [r"instances\[0\]", r"mu and sigma2 must have the same length", r"5 and 3"],
    ),
    (
        "K_one_arm",
        lambda c: (_set("instances.0.mu", [1.0])(c), _set("instances.0.sigma2", [1.0])(c)),
        [r"instances.*0.*mu", r"too short|minItems|fewer than 2|non-empty"],
    ),
    ("duplicate_instance_names", _dup_name, [r"instances\[1\]\.name", r"duplicate.*standard"]),
    ("tied_best_arm", _tie, [r"instances\[0\]\.mu", r"best arm must be unique"]),
    (
        "mean_not_finite",
        _set("instances.0.mu.2", math.inf),
        [r"instances\[0\]", r"finite"],
    ),
    (
        "variance_nan",
        _set("instances.1.sigma2.2", math.nan),
        [r"instances\[1\]", r"finite"],
    ),
    (
        "unknown_top_level_key",
        _set("sead", 3),
        [r"Additional properties are not allowed", r"'sead' was unexpected"],
    ),
    (
        "unknown_instance_key",
        _set("instances.0.sigma", [1.0, 1.0]),
        [r"'sigma' was unexpected", r"instances.*0"],
    ),
    (
        "unknown_section_key",
        _set("characteristic_times.gap_swep", {}),
        [r"'gap_swep' was unexpected", r"characteristic_times"],
    ),
    (
        "unknown_instance_in_table",
        _set("characteristic_times.instances", ["standard", "hard"]),
        [r"characteristic_times\.instances\[1\]", r"unknown instance 'hard'", r"allowed"],
    ),
    (
        "beta_one",
        _set("characteristic_times.beta", 1.0),
        [r"characteristic_times.*beta", r"greater than or equal to the maximum of 1"],
    ),
    (
        "seed_negative",
        _set("seed", -5),
        [r"seed", r"less than the minimum of 0"],
    ),
    (
        "seed_not_integer",
        _set("seed", "abc"),
        [r"seed", r"not of type 'integer'"],
    ),
    (
        "grid_num_zero",
        _set("characteristic_times.gap_sweep.grid.num", 0),
        [r"gap_sweep.*grid.*num", r"less than the minimum of 1"],
    ),
    (
        "grid_scale_unknown",
        _set("characteristic_times.variance_sweep.grid.scale", "log2"),
        [r"variance_sweep.*grid.*scale", r"is not one of \['log', 'linear'\]"],
    ),
    (
        "grid_max_below_min",
        _set("characteristic_times.gap_sweep.grid", {"min": 10.0, "max": 1.0, "num": 3}),
        [r"characteristic_times\.gap_sweep\.grid", r"max must be >= min"],
    ),
    (
        "delta_zero",
        _set("simulation.delta", 0.0),
        [r"simulation.*delta", r"less than or equal to the minimum of 0"],
    ),
    (
        "delta_one",
        _set("simulation.delta", 1.0),
        [r"simulation.*delta", r"greater than or equal to the maximum of 1"],
    ),
    (
        "unknown_algorithm",
        _set("simulation.algorithms", ["TaS", "Tas-EV"]),
        [r"simulation.*algorithms.*1", r"'Tas-EV' is not one of \['TaS', 'EV-TaS'"],
    ),
    (
        "duplicate_algorithm",
        _set("simulation.algorithms", ["TaS", "TaS"]),
        [r"simulation.*algorithms", r"non-unique elements|has non-unique"],
    ),
    (
        "unknown_threshold",
        _set("simulation.threshold", "student-t"),
        [r"simulation.*threshold", r"'student-t' is not one of \['heuristic', 'student'"],
    ),
    (
        "runs_zero",
        _set("simulation.experiments.standard.runs", 0),
        [r"experiments.*standard.*runs", r"less than the minimum of 1"],
    ),
    (
        "runs_negative_random",
        _set("simulation.experiments.random.n_instances", -3),
        [r"experiments.*random.*n_instances", r"less than the minimum of 1"],
    ),
    (
        "shards_zero",
        _set("simulation.shards", 0),
        [r"simulation.*shards", r"less than the minimum of 1"],
    ),
    (
        "experiment_unknown_instance",
        _set("simulation.experiments.standard.instance", "hard"),
        [r"simulation\.experiments\.standard\.instance", r"unknown instance 'hard'", "allowed"],
    ),
    (
        "experiment_kind_unknown",
        _set("simulation.experiments.easy.kind", "fixed"),
        [r"experiments.*easy.*kind", r"is not one of \['named', 'random'\]"],
    ),
    (
        "named_experiment_without_runs",
        lambda c: c["simulation"]["experiments"].update(
            easy2={"kind": "named", "instance": "easy"}
        ),
        [r"simulation\.experiments\.easy2\.runs", r"required for kind 'named'"],
    ),
    (
        "random_gap_range_reversed",
        _set("simulation.experiments.random.gap_range", [1.0, 0.2]),
        [r"simulation\.experiments\.random\.gap_range", r"low <= high"],
    ),
    (
        "unknown_simulation_key",
        _set("simulation.runs", 10),
        [r"'runs' was unexpected", r"simulation"],
    ),
    (
        "instance_name_with_slash",
        _set("instances.0.name", "a/b"),
        [r"instances.*0.*name", r"does not match"],
    ),
]


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    """One private copy of the repository with sentinel results and figures."""
    root = copy_repo(tmp_path_factory.mktemp("badcfg") / "repo")
    for rel in (
        "results/characteristic_times/sentinel.parquet",
        "results/figures/sentinel.png",
        "figures/sentinel.png",
    ):
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(b"sentinel")
    return root


def test_at_least_fifteen_cases():
    assert len(CASES) >= 15
    assert len({c[0] for c in CASES}) == len(CASES)


def test_base_config_is_valid():
    validate_config_semantics(copy.deepcopy(BASE))


@pytest.mark.pipeline
@pytest.mark.parametrize("case_id,mutate,patterns", CASES, ids=[c[0] for c in CASES])
def test_bad_config_is_refused(repo, tmp_path, case_id, mutate, patterns):
    cfg = copy.deepcopy(BASE)
    mutate(cfg)
    bad = tmp_path / f"{case_id}.yaml"
    bad.write_text(yaml.safe_dump(cfg, sort_keys=False))
    before = tree_state(repo, "results", "figures")
    assert before, "sentinel files missing"

    res = run_snakemake(repo, "--cores", "1", "--configfile", str(bad), timeout=300)

    out = res.stdout
    assert res.returncode != 0, f"{case_id}: accepted\n{out[-3000:]}"
    for pat in patterns:
        assert re.search(pat, out, re.S), f"{case_id}: /{pat}/ not in output:\n{out[-3000:]}"
    # no job started (snakemake prints "rule <name>:" / "localrule" for every job it runs)
    assert not re.search(r"^\s*(local)?rule \w+:", out, re.M), out[-3000:]
    assert "Select jobs to execute" not in out
    assert tree_state(repo, "results", "figures") == before


def test_semantic_errors_are_value_errors_naming_the_field():
    cfg = copy.deepcopy(BASE)
    _dup_name(cfg)
    with pytest.raises(ValueError, match=r"instances\[1\]\.name"):
        validate_config_semantics(cfg)
    assert issubclass(ConfigError, ValueError)
