"""The EV remedy study on stopping levels: the remedies of one n0 share a trajectory, each
row equal to that remedy run alone; paired costs; the evidence of a truncated run."""

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from baiuv.simulation.engine import RunSettings, simulate_run
from baiuv.simulation.rng import generator_of, run_seed
from baiuv.studies.ev_remedy_runs import (
    EXPERIMENT,
    RUN_COLUMNS,
    Remedy,
    ev_instances,
    remedies_by_n0,
    remedies_from_config,
    run_remedy_shard,
)

ROOT = Path(__file__).resolve().parents[2]


def _alone(instances, algorithm, remedy, *, seed, delta, max_samples):
    """The rows of ``remedy`` run alone, one simulate_run per run (written here)."""
    s = RunSettings(delta=delta, threshold=remedy.threshold, n0=remedy.n0, max_samples=max_samples)
    rows = []
    for g, a, runs in instances:
        for r in range(runs):
            res = simulate_run(a.instance, algorithm, settings=s, seed=seed,
                               experiment=EXPERIMENT, instance_id=a.instance_id, run=r)  # fmt: skip
            rows.append((g, a.instance_id, remedy.name, r, res["stopping_time"],
                         res["recommendation"], res["truncated"], tuple(res["counts"])))  # fmt: skip
    return rows


def test_levels_rows_equal_each_remedy_alone():
    """Every remedy of the test configuration, every EV rule, two runs per instance: the
    rows of the shared trajectories equal, bit for bit, those of each remedy alone."""
    cfg = yaml.safe_load((ROOT / "config" / "test.yaml").read_text())
    sec = dict(cfg["ev_remedies"], named={"standard": 2, "easy": 2}, audit_runs=2)
    sec["random"] = dict(sec["random"], n_instances=1)
    named = {i["name"]: i for i in cfg["instances"]}
    insts = ev_instances(sec, named, cfg["seed"])
    remedies = remedies_from_config(sec["remedies"])
    assert {r.threshold for r in remedies} == {"heuristic", "ev-box", "ev-bob",
                                               "ev-heuristic-student"}  # fmt: skip
    kw = dict(seed=cfg["seed"], delta=sec["delta"], max_samples=3000)
    truncated = 0
    for alg in sec["algorithms"]:
        for n0, group in remedies_by_n0(remedies).items():
            got = run_remedy_shard(insts, alg, group, **kw)
            assert list(got.columns) == RUN_COLUMNS
            want = []
            for rem in group:
                want += _alone(insts, alg, rem, **kw)
            key = {(g, i, rem, r): (t, rec, tr) for g, i, rem, r, t, rec, tr, _ in want}
            assert len(got) == len(key)
            for row in got.itertuples(index=False):
                t, rec, tr = key[(row.group, row.instance, row.remedy, row.run)]
                assert (row.stopping_time, row.recommendation, row.truncated) == (t, rec, tr)
                assert row.n0 == n0
            counts = {(g, i, rem, r): c for g, i, rem, r, *_, c in want}
            for row in got.itertuples(index=False):
                c = counts[(row.group, row.instance, row.remedy, row.run)]
                assert row.count_best == c[row.best_arm] and row.count_rec == c[row.recommendation]
            truncated += int(got["truncated"].sum())
    assert truncated > 0  # the comparison covers truncated levels too


def test_shard_refuses_mixed_n0_and_rules_that_read_the_level():
    insts = ev_instances(
        {"named": {"standard": 1}}, {"standard": {"mu": [1, 0], "sigma2": [1, 1]}}, 0
    )
    kw = dict(seed=0, delta=0.01, max_samples=100)
    with pytest.raises(ValueError, match="share n0"):
        run_remedy_shard(insts, "EV-TCI", [Remedy("heuristic", 2), Remedy("heuristic", 4)], **kw)
    with pytest.raises(ValueError, match="'TCI' is not an EV rule"):
        run_remedy_shard(insts, "TCI", Remedy("heuristic", 2), **kw)
    from baiuv.registry import ALGORITHMS

    assert not ALGORITHMS["FHN1"].shares_levels and ALGORITHMS["EV-TCI"].shares_levels
    from baiuv.registry import Algorithm
    from baiuv.studies import ev_remedy_runs

    reads = Algorithm(name="EV-ELIM", kernel="fhn", plug_in=True)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(ev_remedy_runs, "get_algorithm", lambda name: reads)
        with pytest.raises(ValueError, match="EV-ELIM reads the stopping level"):
            run_remedy_shard(insts, "EV-ELIM", Remedy("heuristic", 2), **kw)
        sec = {"delta": 0.01, "algorithms": ["EV-ELIM"], "named": {"standard": 1},
               "remedies": [{"threshold": "heuristic", "n0": 2}]}  # fmt: skip
        with pytest.raises(ValueError, match=r"algorithms\[0\]: EV-ELIM reads"):
            ev_remedy_runs.check_ev_remedies_config(
                sec, {"standard": {"mu": [1, 0], "sigma2": [1, 1]}}, 0
            )


def test_truncated_run_records_the_starved_best_arm():
    """EV-TCI, n0 = 2, three arms (the two others tied): a seed whose best arm's two first
    samples are almost equal and whose mean falls below another arm's. With EV-Box the
    run reaches
    max_samples; its evidence names the best arm as starved, with the count, mean and 1/N
    variance of its two samples (computed here from the run's stream), a statistic that
    stays below its limit as the other counts grow, and the pair's infinite threshold."""
    inst = {"mu": [0.5, 0.0, 0.0], "sigma2": [1.0, 1.0, 1.0]}
    insts = ev_instances({"named": {"three": 1}}, {"three": inst}, 0)
    mu, sd = np.array(inst["mu"]), np.sqrt(inst["sigma2"])
    tried = 0
    for seed in range(20000):
        z = generator_of(run_seed(seed, EXPERIMENT, "three", "EV-TCI", 0)).standard_normal(6)
        x = mu[[0, 1, 2, 0, 1, 2]] + sd[[0, 1, 2, 0, 1, 2]] * z  # round robin, n0 = 2
        m = (x[:3] + x[3:]) / 2
        if abs(x[0] - x[3]) > 0.02 or m[0] >= m[1:].max():
            continue
        tried += 1
        runs, ev = run_remedy_shard(insts, "EV-TCI", [Remedy("heuristic", 2), Remedy("ev-box", 2)],
                                    seed=seed, delta=0.01, max_samples=5000, evidence=True)  # fmt: skip
        if runs.set_index("remedy").loc["ev-box n0=2", "truncated"]:
            break
        assert tried < 5, "no truncated run among the first candidate seeds"
    e = ev.set_index("remedy").loc["ev-box n0=2"]
    assert e["checked_at"] == 5000 and e["best_arm"] == 0 and e["empirical_best"] != 0
    assert e["starved_arm"] == 0 and e["starved_is_best"] and e["starved_count"] == 2
    assert e["starved_mean"] == pytest.approx(m[0], abs=1e-12)
    assert e["starved_var"] == pytest.approx(((x[0] - x[3]) / 2) ** 2, rel=1e-6, abs=1e-15)
    assert e["starved_true_var"] == 1.0
    assert math.isinf(e["starved_threshold"]) and e["starved_z"] < e["starved_z_limit"]
    assert e["blocking_has_starved"] and e["blocking_z"] <= e["blocking_threshold"]
    # the summary counts it
    from baiuv.studies.ev_truncation import truncation_markdown, truncation_summary

    s = truncation_summary(runs, ev).set_index("remedy").loc["ev-box n0=2"]
    assert (s["truncated"], s["starved_best"], s["starved_count"]) == (1, 1, 2.0)
    md = truncation_markdown(truncation_summary(runs, ev), ev, max_samples=5000)
    assert "Hypothesis" in md and "is the best arm in 1 of them" in md
    # as the aggregation reads it: with the empty tables of the shards without truncation
    from baiuv.studies.ev_truncation import EVIDENCE_COLUMNS

    mixed = pd.concat([pd.DataFrame(columns=EVIDENCE_COLUMNS), ev], ignore_index=True)
    assert truncation_markdown(truncation_summary(runs, mixed), mixed, max_samples=5000) == md


def _study(scale: np.ndarray, n: int = 500, seed: int = 1) -> pd.DataFrame:
    """Runs of three remedies on the same trajectories: the baseline (30 errors), n0 = 6
    (heavy-tailed τ, no error) and n0 = 10 (n0 = 6's τ times ``scale``, no error); a named
    group of ``n`` runs and a random group of ``n`` instances with one run each."""
    rng = np.random.default_rng(seed)
    rows = []
    for g, units in (("standard", [("standard", r) for r in range(n)]),
                     ("random", [(f"random-{i}", 0) for i in range(n)])):  # fmt: skip
        tau = 100 * (1 + rng.pareto(1.5, len(units)))
        for rem, n0, t in (("heuristic n0=2", 2, 0.8 * tau), ("heuristic n0=6", 6, tau),
                           ("heuristic n0=10", 10, tau * scale[: len(units)])):  # fmt: skip
            for k, (i, r) in enumerate(units):
                rows.append(
                    dict(group=g, instance=i, algorithm="EV-TCI", remedy=rem, threshold="heuristic",
                         n0=n0, run=r, stream=EXPERIMENT, stream_instance=i, spawn_key="",
                         stopping_time=int(t[k]), recommendation=0, best_arm=0,
                         correct=not (n0 == 2 and k < 30), truncated=False, count_best=1,
                         count_rec=1, lower_bound=50.0)
                )  # fmt: skip
    return pd.DataFrame(rows)


@pytest.mark.parametrize(
    ("scale", "verdict"),
    [(1.3, "reproduced"), (None, "not resolved")],
)
def test_cheapest_remedy_judged_on_paired_ratios(scale, verdict):
    """The rival of the cheapest resolved remedy costs 1.3x on every run (paired ratio
    interval above 1: the claim holds), or the same up to ±2 % noise (interval straddles 1:
    not resolved), although each remedy's heavy-tailed τ alone would give wide intervals."""
    from baiuv.studies.ev_paired import paired_costs
    from baiuv.studies.ev_remedies import ev_claims, remedy_cells

    rng = np.random.default_rng(7)
    s = np.full(500, 1.3) if scale else 1 + rng.uniform(-0.02, 0.02, 500)
    runs = _study(s)
    cells = remedy_cells(runs, delta=0.01)
    paired = paired_costs(runs, cells, n_boot=400)
    assert set(paired["resampled"]) == {"runs", "instances"}
    assert (paired[paired["group"] == "random"]["resampled"] == "instances").all()
    row = paired[(paired["remedy"] == "heuristic n0=10") & (paired["reference"] == "heuristic n0=6")
                 & (paired["group"] == "standard")].iloc[0]  # fmt: skip
    assert row["pairs"] == 500
    from baiuv.claims import bootstrap_ratio
    from baiuv.studies.ev_paired import COSTLIER

    x = runs[runs["group"] == "standard"]
    num, den = (x[x["remedy"] == r]["stopping_time"].to_numpy(float)
                for r in ("heuristic n0=10", "heuristic n0=6"))  # fmt: skip
    alone = bootstrap_ratio(num, den, COSTLIER, identity=("t",), paired=False, n_boot=400)
    assert alone.interval[1] - alone.interval[0] > 5 * (row["ratio_high"] - row["ratio_low"])
    if scale:
        assert row["ratio_low"] > 1 and row["side"] == "above 1"
    else:
        assert row["ratio_low"] < 1 < row["ratio_high"] and row["side"] == "straddles 1"
    claims = ev_claims(cells, pd.DataFrame(columns=["group"]), delta=0.01, paired=paired)
    assert claims[-1].claim.startswith("cheapest remedy") and "heuristic n0=6" in claims[-1].ours
    assert claims[-1].verdict == verdict
    if verdict != "reproduced":
        assert "heuristic n0=10/heuristic n0=6" in claims[-1].reason
    # fewer runs of a remedy: paired on the runs both have
    fewer = runs[~((runs["remedy"] == "heuristic n0=10") & (runs["run"] >= 100))]
    p = paired_costs(fewer, remedy_cells(fewer, delta=0.01), n_boot=50)
    r = p[(p["remedy"] == "heuristic n0=10") & (p["group"] == "standard")]
    assert set(r["pairs"]) == {100}


def _replayed_evidence(instance, algorithm, threshold, *, n0, delta, max_samples, seed_sequence):
    """The evidence of a truncated run computed apart from the simulator (written here): the
    run replayed with the identifier fed the observations ``mu_a + sigma_a Z`` with ``Z``
    and its coins from the run's generator (D72), read at its last check through the
    identifier's own statistics and thresholds."""
    import warnings

    from baiuv.simulation.ev_advice import HeuristicEVWarning
    from baiuv.simulation.identify import BestArmIdentifier

    gen = generator_of(seed_sequence)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HeuristicEVWarning)
        idf = BestArmIdentifier(instance.K, delta, algorithm, threshold, n0=n0, rng=gen,
                                max_samples=max_samples)  # fmt: skip
    mu, sd = instance.mu, np.sqrt(instance.sigma2)
    while not idf.done:
        a = idf.next_arm()
        idf.observe(a, mu[a] + sd[a] * gen.standard_normal())
    assert idf.stop_reason == "budget" and idf.n_samples == max_samples
    counts, var, means = (np.asarray(x) for x in (idf.counts, idf.variances, idf.means))
    hat, s = int(np.argmax(means)), int(np.argmin(counts))
    z, c = np.asarray(idf.glr(), float), np.asarray(idf.thresholds(), float)
    margin = z - c
    margin[hat] = math.inf
    b = int(np.argmin(margin))
    return {
        "checked_at": idf.n_samples, "empirical_best": hat, "starved_arm": s,
        "starved_count": int(counts[s]), "starved_var": float(var[s]),
        "starved_mean": float(means[s]), "starved_z": float(z[s]) if s != hat else math.nan,
        "starved_threshold": float(c[s]) if s != hat else math.nan,
        "starved_z_limit": float((means[hat] - means[s]) ** 2 * counts[s] / (2 * var[s]))
        if s != hat else math.nan,
        "blocking_arm": b, "blocking_z": float(z[b]), "blocking_threshold": float(c[b]),
    }  # fmt: skip


def test_evidence_from_final_statistics_equals_the_replay():
    """The evidence of every truncated level of EV-TCI and EV-TaS at n0 = 2 on the test
    configuration's instances (every threshold kind, the stateful EV-BoB among them), read
    from the simulator's final statistics, equals the evidence of the run replayed through
    the identifier: the integers exactly, the statistics and thresholds to rounding."""
    cfg = yaml.safe_load((ROOT / "config" / "test.yaml").read_text())
    sec = dict(cfg["ev_remedies"], named={"standard": 6, "easy": 2}, audit_runs=2)
    sec["random"] = dict(sec["random"], n_instances=1)
    named = {i["name"]: i for i in cfg["instances"]}
    insts = ev_instances(sec, named, cfg["seed"])
    group = remedies_by_n0(remedies_from_config(sec["remedies"]))[2]
    by_id = {a.instance_id: a.instance for _, a, _ in insts}
    checked = set()
    for alg in ("EV-TCI", "EV-TaS"):
        runs, ev = run_remedy_shard(insts, alg, group, seed=cfg["seed"], delta=0.01,
                                    max_samples=2000, evidence=True)  # fmt: skip
        assert len(ev) == int(runs["truncated"].sum())
        for e in ev.head(12).itertuples(index=False):
            want = _replayed_evidence(
                by_id[e.instance], alg, e.threshold, n0=2, delta=0.01, max_samples=2000,
                seed_sequence=run_seed(cfg["seed"], EXPERIMENT, e.instance, alg, e.run),
            )  # fmt: skip
            got = e._asdict()
            for k, v in want.items():
                if isinstance(v, int):
                    assert got[k] == v, (k, e)
                else:
                    np.testing.assert_allclose(got[k], v, rtol=1e-9, err_msg=k)
            checked.add(e.threshold)
    assert "ev-bob" in checked and len(checked) >= 2


def test_truncated_runs_count_as_errors_and_a_deciding_truncation_is_flagged():
    """A cell of 2000 runs without error and 15 truncated: counted as errors (the verdicts'
    convention) its Wilson upper bound exceeds δ = 0.01, counted as correct it is below;
    the cell says that its truncated runs decide its verdict, and the check of the study's
    verdicts reports the flip; with one truncated run neither does."""
    from baiuv.studies.ev_paired import truncation_check
    from baiuv.studies.ev_remedies import remedy_cells

    def runs_with(n_cut):
        rows = []
        for rem, n0 in (("heuristic n0=2", 2), ("heuristic n0=6", 6)):
            for r in range(2000):
                cut = rem == "heuristic n0=6" and r < n_cut
                rows.append(dict(group="standard", instance="standard", algorithm="EV-TCI",
                                 remedy=rem, threshold="heuristic", n0=n0, run=r,
                                 stream=EXPERIMENT, stream_instance="standard", spawn_key="",
                                 stopping_time=10**6 if cut else 100 + r, recommendation=0,
                                 best_arm=0, correct=not (n0 == 2 and r < 200), truncated=cut,
                                 count_best=1, count_rec=1, lower_bound=50.0))  # fmt: skip
        return pd.DataFrame(rows)

    six = runs_with(15)
    cell = remedy_cells(six, delta=0.01).set_index("remedy").loc["heuristic n0=6"]
    assert (cell["errors"], cell["truncated"], cell["resolved"]) == (15, 15, False)
    assert cell["truncation_decides"]
    ok = remedy_cells(six, delta=0.01, truncated_as="correct").set_index("remedy")
    assert ok.loc["heuristic n0=6", "resolved"] and ok.loc["heuristic n0=6", "errors"] == 0
    check = truncation_check(six, delta=0.01, n_boot=50)
    assert check["flips"].any()
    one = runs_with(1)
    cell = remedy_cells(one, delta=0.01).set_index("remedy").loc["heuristic n0=6"]
    assert cell["resolved"] and not cell["truncation_decides"]
    assert not truncation_check(one, delta=0.01, n_boot=50)["flips"].any()
