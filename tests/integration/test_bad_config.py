"""Bad configurations are refused before any job starts, with a message naming the field.

The workflow checks its configuration with one call,
``baiuv.pipeline.config.validate_workflow_config``, which ``workflow/rules/common.smk``
makes on Snakemake's merged ``config`` (``config/config.yaml`` with every ``--configfile``
merged over it) before it schedules anything. Checks come from two places: the JSON schema
(``workflow/schemas/config.schema.yaml``: types, ranges, enums, unknown keys) and the
cross-field checks (``baiuv.pipeline.config.validate_config_semantics`` and each experiment
section's own).

Each case mutates the tiny configuration (``config/test.yaml``) and writes it to a file.

* In process, every case: the file is merged over ``config/config.yaml`` as Snakemake merges
  it (:func:`snakemake.common.configfile.load_configfile`,
  :func:`snakemake.utils.update_config`) and given to ``validate_workflow_config``: it is
  refused, the message names the offending field and, where there is a closed list, the
  allowed values, and nothing is written.
* End to end, a few cases (a schema error, a cross-field error, a partial overlay over
  ``config/test.yaml``): the real command a user would type,
  ``snakemake --cores 1 --configfile bad.yaml`` (not a dry run: if the config slipped
  through, jobs would start and results would change), exits non-zero with the in-process
  message verbatim in its output; no job starts; and nothing under ``results/``, ``logs/``
  or ``figures/`` (the committed, published copies) changes (size and mtime of every file,
  and no new files). That the workflow calls the same function as the in-process cases is
  checked on ``common.smk`` itself.
"""

from __future__ import annotations

import copy
import math
import re
from pathlib import Path

import pytest
import yaml
from pipeline_helpers import REPO, copy_repo, job_env, run_snakemake, tree_state
from snakemake.common.configfile import load_configfile
from snakemake.utils import update_config

from baiuv.pipeline.config import (
    SCHEMA_PATH,
    ConfigError,
    validate_config_semantics,
    validate_workflow_config,
)

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


def merged_config(workdir: Path, *configfiles: Path) -> dict:
    """Snakemake's ``config`` for ``--configfile <configfiles>`` in ``workdir``: the files
    merged in order into the command-line config, which is merged over the Snakefile's
    ``configfile: "config/config.yaml"`` (``snakemake.workflow.Workflow.configfile``)."""
    overwrite: dict = {}
    for f in configfiles:
        update_config(overwrite, load_configfile(str(f)))
    config = load_configfile(str(workdir / "config" / "config.yaml"))
    update_config(config, overwrite)
    return config


def refusal(workdir: Path, *configfiles: Path) -> str:
    """The workflow's refusal of ``--configfile <configfiles>``, checked in process; fails
    the test when the configuration is accepted."""
    config = merged_config(workdir, *configfiles)
    with pytest.raises(ValueError, match=r"^invalid configuration: ") as info:
        validate_workflow_config(config, workdir)
    return str(info.value)


def _bad_file(tmp_path: Path, case_id: str, mutate) -> Path:
    cfg = copy.deepcopy(BASE)
    mutate(cfg)
    bad = tmp_path / f"{case_id}.yaml"
    bad.write_text(yaml.safe_dump(cfg, sort_keys=False))
    return bad


def test_at_least_fifteen_cases():
    assert len(CASES) >= 15
    assert len({c[0] for c in CASES}) == len(CASES)


def test_base_config_is_valid():
    validate_config_semantics(copy.deepcopy(BASE))
    # and the merged configuration the cases start from passes the workflow's check
    validate_workflow_config(merged_config(REPO, REPO / "config" / "test.yaml"), REPO)


@pytest.mark.parametrize("case_id,mutate,patterns", CASES, ids=[c[0] for c in CASES])
def test_bad_config_is_refused_in_process(tmp_path, monkeypatch, case_id, mutate, patterns):
    bad = _bad_file(tmp_path, case_id, mutate)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    message = refusal(REPO, bad)
    for pat in patterns:
        assert re.search(pat, message, re.S), f"{case_id}: /{pat}/ not in {message!r}"
    assert not any(work.iterdir()), sorted(work.iterdir())


def test_the_workflow_checks_its_config_with_the_same_call():
    # the in-process cases call what common.smk calls, on the config Snakemake hands it
    smk = (REPO / "workflow" / "rules" / "common.smk").read_text()
    assert re.search(
        r"^from baiuv\.pipeline\.config import \([^)]*\bvalidate_workflow_config,", smk, re.M
    )
    calls = re.findall(r"^(\w+)\(config\b.*$", smk, re.M)
    assert calls.count("validate_workflow_config") == 1, calls
    assert "validate_workflow_config(config, workflow.basedir)" in smk
    assert "validate_config(" not in smk
    # before it, the configuration files are read again strictly (D267): the same dict
    assert smk.index("load_workflow_config(\n    config,") < smk.index(
        "validate_workflow_config(config"
    )
    assert (REPO / SCHEMA_PATH).is_file()
    snakefile = (REPO / "Snakefile").read_text()
    first_include = snakefile.index("include:")
    base = 'configfile: os.path.join(workflow.basedir, "config", "config.yaml")'
    assert snakefile.index(base) < first_include
    assert snakefile[first_include:].startswith('include: "workflow/rules/common.smk"')


def _partial_overlay(tmp_path: Path, root: Path) -> list[Path]:
    """``--configfile config/test.yaml overlay.yaml``, the overlay holding one bad key."""
    overlay = tmp_path / "overlay.yaml"
    overlay.write_text(yaml.safe_dump({"simulation": {"experiments": {"easy": {"runs": 0}}}}))
    return [root / "config" / "test.yaml", overlay]


# (id, config files, regexes that must all appear in the output): one schema error, one
# cross-field error, and an overlay of one key merged over the tiny configuration
END_TO_END = [
    ("unknown_top_level_key", "schema", None),
    ("tied_best_arm", "cross-field", None),
    ("partial_overlay", "overlay", [r"experiments.*easy.*runs", r"less than the minimum of 1"]),
]


def _end_to_end_files(case_id: str, tmp_path: Path, root: Path) -> tuple[list[Path], list[str]]:
    """Config files (absolute paths) and expected patterns of an end-to-end case."""
    if case_id == "partial_overlay":
        return _partial_overlay(tmp_path, root), END_TO_END[-1][2]
    (mutate, patterns) = next((m, p) for c, m, p in CASES if c == case_id)
    return [_bad_file(tmp_path, case_id, mutate)], patterns


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    """One private copy of the repository with sentinel results, logs and figures."""
    root = copy_repo(tmp_path_factory.mktemp("badcfg") / "repo")
    for rel in (
        "results/characteristic_times/sentinel.parquet",
        "results/figures/sentinel.png",
        "logs/characteristic_times/sentinel.log",
        "figures/sentinel.png",
    ):
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(b"sentinel")
    return root


@pytest.mark.pipeline
@pytest.mark.parametrize("case_id", [c[0] for c in END_TO_END])
def test_snakemake_refuses_before_any_job(repo, tmp_path, case_id):
    files, patterns = _end_to_end_files(case_id, tmp_path, repo)
    expected = refusal(repo, *files)  # the in-process check, on the copy the run uses
    before = tree_state(repo, "results", "logs", "figures")
    assert len(before) == 4, "sentinel files missing"

    args = ("--cores", "1", "--configfile", *map(str, files))
    res = run_snakemake(repo, *args, timeout=300)

    out = res.stdout
    assert res.returncode != 0, f"{case_id}: accepted\n{out[-3000:]}"
    for pat in patterns:
        assert re.search(pat, out, re.S), f"{case_id}: /{pat}/ not in output:\n{out[-3000:]}"
    # the same message as in process: the same check on the same merged configuration
    assert expected in out, f"{case_id}: {expected!r} not in output:\n{out[-3000:]}"
    # no job started (snakemake prints "rule <name>:" / "localrule" for every job it runs)
    assert not re.search(r"^\s*(local)?rule \w+:", out, re.M), out[-3000:]
    assert "Select jobs to execute" not in out
    assert tree_state(repo, "results", "logs", "figures") == before


def test_semantic_errors_are_value_errors_naming_the_field():
    cfg = copy.deepcopy(BASE)
    _dup_name(cfg)
    with pytest.raises(ValueError, match=r"instances\[1\]\.name"):
        validate_config_semantics(cfg)
    assert issubclass(ConfigError, ValueError)


@pytest.mark.pipeline
def test_configuration_traps_through_snakemake(repo, tmp_path):
    """Each configuration trap (D267), through Snakemake's own reading of the files (dry
    runs): a duplicate key refused with file and line, ``experiments: {}`` refused, an
    overlay dropping an inherited experiment, the base configuration found from another
    working directory."""
    tiny = repo / "config" / "test.yaml"

    def dry_run(*files: Path, cwd: Path = repo, args: tuple[str, ...] = ()):
        return run_snakemake(
            cwd,
            "-n",
            "--cores",
            "1",
            *args,
            "--configfile",
            *map(str, files),
            timeout=300,
            env=job_env(repo),
        )

    dup = tmp_path / "dup.yaml"
    dup.write_text("seed: 7\nseed: 99\n")
    res = dry_run(tiny, dup)
    assert res.returncode != 0
    assert f"{dup}:2: duplicate key 'seed' (first given on line 1)" in res.stdout, res.stdout[
        -3000:
    ]

    empty = tmp_path / "empty.yaml"
    empty.write_text("simulation:\n  experiments: {}\n")
    res = dry_run(tiny, empty)
    assert res.returncode != 0
    assert "invalid configuration: simulation.experiments" in res.stdout, res.stdout[-3000:]

    experiments = list(yaml.safe_load(tiny.read_text())["simulation"]["experiments"])
    assert len(experiments) >= 2
    drop = tmp_path / "drop.yaml"
    drop.write_text(f"simulation:\n  experiments:\n    {experiments[0]}: null\n")
    res = dry_run(tiny, drop)
    assert res.returncode == 0, res.stdout[-3000:]
    assert f"results/simulations/{experiments[0]}.parquet" not in res.stdout
    assert f"results/simulations/{experiments[1]}.parquet" in res.stdout

    # from another directory, an overlay of one key over the base configuration: without
    # the base file (looked up in the working directory) it would be incomplete
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    one_key = tmp_path / "one_key.yaml"
    one_key.write_text("seed: 3\n")
    res = dry_run(one_key, cwd=elsewhere, args=("--snakefile", str(repo / "Snakefile")))
    assert res.returncode == 0, res.stdout[-3000:]
    assert "results/simulations/" in res.stdout
