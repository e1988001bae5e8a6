"""The EV remedy study's runs of the authors' code's configuration (heuristic, n0 = 2) on
the instances of Figure 2 are the main experiment's runs: the same stream, stopping time,
recommendation and counts, checked here against the stopping-time experiment's own runs,
and refused by the configuration check when the two sections would run them otherwise."""

import copy
from pathlib import Path

import pandas as pd
import pytest
import yaml

from baiuv.experiments.stopping_times import experiment_from_config, run_shard
from baiuv.registry import run_parameters
from baiuv.simulation.engine import RunSettings
from baiuv.studies.ev_remedies import main_markdown, remedy_cells
from baiuv.studies.ev_remedy_runs import (
    BASELINE,
    EXPERIMENT,
    check_ev_remedies_config,
    check_main_rows,
    ev_instances,
    main_groups,
    main_pairs,
    main_streams,
    remedies_by_n0,
    remedies_from_config,
    run_remedy_shard,
)

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = ("config.yaml", "paper.yaml", "test.yaml")


def _config(name="test.yaml"):
    return yaml.safe_load((ROOT / "config" / name).read_text())


def _small():
    """config/test.yaml with fewer runs and a small max_samples in both sections (so that
    some levels are truncated), kept equal between them."""
    cfg = _config()
    sim, sec = cfg["simulation"], cfg["ev_remedies"]
    sim["max_samples"] = sec["max_samples"] = 4000
    for e, runs in (("standard", 3), ("easy", 3)):
        sim["experiments"][e]["runs"] = sec["named"][e] = runs
    sim["experiments"]["random"]["n_instances"] = sec["random"]["n_instances"] = 2
    sec["audit_runs"] = 2
    return cfg


def _main_runs(cfg, algorithm):
    """The stopping-time experiment's runs of ``algorithm`` on standard, easy, random."""
    sim = cfg["simulation"]
    named = {i["name"]: i for i in cfg["instances"]}
    settings = RunSettings(**run_parameters(sim))
    frames = []
    for e in ("standard", "easy", "random"):
        exp = experiment_from_config(e, sim["experiments"][e], named)
        frames.append(run_shard(exp, algorithm, seed=cfg["seed"], settings=settings))
    return pd.concat(frames, ignore_index=True)


@pytest.mark.parametrize("algorithm", ["EV-TaS", "EV-TCI", "EV-DKM", "EV-FWS"])
def test_baseline_rows_are_the_main_experiments_runs(algorithm):
    """Every run of the baseline on standard, easy and the random instances equals, bit for
    bit, the main experiment's run (stream, stopping time, recommendation, truncation,
    counts of the best and recommended arms); the other thresholds of n0 = 2 are levels of
    the same trajectory; n0 = 4 and the audit instances keep the study's streams; the
    cells count what the main experiment counts."""
    cfg = _small()
    sec, sim = cfg["ev_remedies"], cfg["simulation"]
    named = {i["name"]: i for i in cfg["instances"]}
    check_ev_remedies_config(sec, named, cfg["seed"], simulation=sim)
    insts = ev_instances(sec, named, cfg["seed"])
    streams = main_streams(sec, sim, algorithm)
    assert streams == {"standard": ("standard", "standard"), "easy": ("easy", "easy"),
                       "random-0": ("random", "0"), "random-1": ("random", "1")}  # fmt: skip
    kw = dict(seed=cfg["seed"], delta=sec["delta"], max_samples=sec["max_samples"])
    runs = pd.concat(
        [run_remedy_shard(insts, algorithm, group, streams=streams, **kw)
         for group in remedies_by_n0(remedies_from_config(sec["remedies"])).values()],
        ignore_index=True,
    )  # fmt: skip
    main = _main_runs(cfg, algorithm)
    base = runs[(runs["remedy"] == BASELINE) & (runs["group"] != "audit")]
    assert len(base) == len(main) == 3 + 3 + 2
    by_key = main.set_index(["experiment", "instance", "run"])
    for r in base.itertuples(index=False):
        m = by_key.loc[(r.stream, r.stream_instance, r.run)]
        assert r.spawn_key == m["spawn_key"]
        assert (r.stopping_time, r.recommendation, r.truncated, r.correct) == (
            m["stopping_time"], m["recommendation"], m["truncated"], m["correct"])  # fmt: skip
        assert (r.count_best, r.count_rec) == (
            m["counts"][r.best_arm], m["counts"][r.recommendation])  # fmt: skip
    assert base["truncated"].any() or runs["truncated"].any()  # truncated levels compared
    # the levels of n0 = 2 share the baseline's trajectory; n0 = 4 and audit: own streams
    two = runs[(runs["n0"] == 2) & (runs["group"] != "audit")]
    assert (two.groupby(["instance", "run"])["spawn_key"].nunique() == 1).all()
    assert set(two["stream"]) == {"standard", "easy", "random"}
    assert (runs[(runs["n0"] != 2) | (runs["group"] == "audit")]["stream"] == EXPERIMENT).all()
    pairs = [p for p in main_pairs(sec, sim) if p[1] == algorithm]
    assert check_main_rows(runs, main, pairs) == len(base)
    # the cells of the baseline count the main experiment's errors
    cells = remedy_cells(runs, delta=sec["delta"]).set_index(["group", "remedy"])
    for g, e in (("standard", "standard"), ("easy", "easy"), ("random", "random")):
        c = cells.loc[(g, BASELINE)]
        m = main[main["experiment"] == e]
        assert (c["runs"], c["wrong"], c["truncated"]) == (
            len(m), int((~m["correct"]).sum()), int(m["truncated"].sum()))  # fmt: skip
        assert c["main_experiment"] == e
        assert cells.loc[(g, "heuristic n0=4"), "main_experiment"] == ""
    assert cells.loc[("audit", BASELINE), "main_experiment"] == ""
    md = main_markdown(cells.reset_index())
    assert f"| standard | {algorithm} | {BASELINE} | standard | 3 |" in md
    assert "ev-box" not in md  # the other levels have no cell in the main experiment


def test_check_main_rows_fails_loudly():
    """A run that differs, a run missing, or a cell of the main experiment not covered: the
    aggregation's check refuses each, naming it."""
    cfg = _small()
    sec, sim = cfg["ev_remedies"], cfg["simulation"]
    named = {i["name"]: i for i in cfg["instances"]}
    insts = [x for x in ev_instances(sec, named, cfg["seed"]) if x[0] != "audit"]
    remedy = remedies_from_config(sec["remedies"])[:1]
    streams = main_streams(sec, sim, "EV-TCI")
    runs = run_remedy_shard(insts, "EV-TCI", remedy, seed=cfg["seed"], delta=sec["delta"],
                            max_samples=sec["max_samples"], streams=streams)  # fmt: skip
    main = _main_runs(cfg, "EV-TCI")
    pairs = main_pairs(sec, {**sim, "algorithms": ["EV-TCI"]})
    assert pairs == [("standard", "EV-TCI"), ("easy", "EV-TCI"), ("random", "EV-TCI")]
    assert check_main_rows(runs, main, pairs) == 8
    bad = runs.copy()
    bad.loc[bad.index[-1], "stopping_time"] += 1
    with pytest.raises(ValueError, match="stopping_time differs in 1 runs"):
        check_main_rows(bad, main, pairs)
    with pytest.raises(ValueError, match="EV-TCI on easy: 2 runs, the main experiment's 3"):
        check_main_rows(runs.drop(index=runs.index[3]), main, pairs)
    with pytest.raises(ValueError, match="expected"):
        check_main_rows(runs, main, pairs + [("standard", "EV-TaS")])
    # the study's own streams are not the main experiment's runs
    own = run_remedy_shard(insts, "EV-TCI", remedy, seed=cfg["seed"], delta=sec["delta"],
                           max_samples=sec["max_samples"])  # fmt: skip
    assert (own["stream"] == EXPERIMENT).all()
    with pytest.raises(ValueError, match="expected"):
        check_main_rows(own, main, pairs)


@pytest.mark.parametrize("name", CONFIGS)
def test_every_configuration_runs_the_paper_configuration_as_the_main_experiment(name):
    cfg = _config(name)
    sec, sim = cfg["ev_remedies"], cfg["simulation"]
    named = {i["name"]: i for i in cfg["instances"]}
    check_ev_remedies_config(sec, named, cfg["seed"], simulation=sim)
    assert set(main_groups(sec, sim)) == {"standard", "easy", "random"}
    assert len(main_pairs(sec, sim)) == 3 * len(sec["algorithms"])


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda c: c["ev_remedies"].update(max_samples=c["simulation"]["max_samples"] + 1),
         r"ev_remedies.max_samples = \d+ but simulation.max_samples = \d+"),
        (lambda c: c["ev_remedies"]["named"].update(easy=4),
         r"ev_remedies.named.easy = 4 runs but simulation.experiments.easy.runs = 6"),
        (lambda c: c["ev_remedies"]["random"].update(n_instances=2),
         r"ev_remedies.random.n_instances = 2 but simulation.experiments.random.n_instances"),
        (lambda c: c["ev_remedies"]["random"].update(K=5), r"ev_remedies.random.K = 5"),
    ],
)  # fmt: skip
def test_config_refuses_runs_the_main_experiment_runs_otherwise(change, message):
    cfg = copy.deepcopy(_config())
    change(cfg)
    named = {i["name"]: i for i in cfg["instances"]}
    with pytest.raises(ValueError, match=message):
        check_ev_remedies_config(cfg["ev_remedies"], named, cfg["seed"],
                                 simulation=cfg["simulation"])  # fmt: skip


@pytest.mark.parametrize(
    "change",
    [
        lambda c: c["simulation"].update(n0=4),  # the main experiment is not the baseline
        lambda c: c["simulation"].update(delta=0.05),  # another delta
        lambda c: c["simulation"].update(beta=0.6),  # another rule
        lambda c: (c["simulation"].pop("delta"), c["simulation"].update(log_inv_delta=1000.0)),
        lambda c: c["simulation"].update(algorithms=["TaS", "TCI"]),  # no EV rule there
        lambda c: c["simulation"]["experiments"].pop("easy"),  # easy: the study's own runs
    ],
)
def test_nothing_shared_nothing_required(change):
    """Where the main experiment does not run the study's baseline (its threshold, n0, δ and
    rule parameters) on an instance with a rule, the study keeps its own streams and its
    own numbers of runs and max_samples."""
    cfg = copy.deepcopy(_config())
    change(cfg)
    cfg["ev_remedies"]["named"]["easy"] = 4
    m = cfg["simulation"]["max_samples"]  # another cap where nothing is shared
    cfg["ev_remedies"]["max_samples"] = m + 1 if "easy" in cfg["simulation"]["experiments"] else m
    sec, sim = cfg["ev_remedies"], cfg["simulation"]
    named = {i["name"]: i for i in cfg["instances"]}
    check_ev_remedies_config(sec, named, cfg["seed"], simulation=sim)
    assert "easy" not in main_streams(sec, sim, "EV-TCI")
