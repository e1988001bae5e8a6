"""EV-GLR remedies: the model of the first check, the Student-calibrated threshold, the
remedy table, and the identifier's warning."""

import math
import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from baiuv.experiments.stopping_times import wilson_interval
from baiuv.model.instance import GaussianInstance
from baiuv.simulation.ev_advice import (
    MEASURED_ERROR,
    RECOMMENDED_COST,
    RECOMMENDED_N0,
    HeuristicEVWarning,
)
from baiuv.studies.ev_mechanism import (
    erring_runs,
    final_state,
    init_stop_probabilities,
    monte_carlo_init,
    replay_state,
)
from baiuv.studies.ev_paired import paired_costs
from baiuv.studies.ev_remedies import (
    cheapest_resolved,
    ev_claims,
    remedy_cells,
    remedy_markdown,
)
from baiuv.studies.ev_remedy_runs import (
    BASELINE,
    EXPERIMENT,
    Remedy,
    ev_instances,
    run_remedy_shard,
)

ROOT = Path(__file__).resolve().parents[2]
STANDARD = {"mu": [1.0, 0.85, 0.8, 0.7, 0.65], "sigma2": [1.0, 0.6, 0.5, 0.4, 0.35]}
THREE = GaussianInstance([0.0, -0.3, -0.5], [1.0, 0.3, 2.0], "three")


def _mc_init(inst, n0, n, seed):
    """Direct simulation of the initialisation, written here: n0 draws per arm, 1/N
    variances, EV-GLR statistics against the empirical best, heuristic threshold."""
    rng = np.random.default_rng(seed)
    K = inst.K
    c = math.log(1 + math.log(n0 * K)) + math.log(100.0)
    hits = np.zeros(K)
    for _ in range(n // 50000):
        x = inst.mu[:, None, None] + np.sqrt(inst.sigma2)[:, None, None] * rng.standard_normal(
            (K, 50000, n0)
        )
        m, v = x.mean(-1), x.var(-1)
        j = m.argmax(0)
        ok = np.ones(50000, bool)
        for a in range(K):
            other = j != a
            mj = np.take_along_axis(m, j[None], 0)[0]
            vj = np.take_along_axis(v, j[None], 0)[0]
            z = (mj - m[a]) ** 2 / (2 * (vj + v[a]) / n0)
            ok &= ~other | (z > c)
        hits += np.bincount(j[ok], minlength=K)
    return hits / (n // 50000 * 50000)


@pytest.mark.parametrize("n0", [2, 3, 5])
def test_init_model_matches_monte_carlo(n0):
    p = init_stop_probabilities(THREE, n0, 0.01)
    mc = _mc_init(THREE, n0, 400000, n0)
    sd = np.sqrt(np.maximum(p, 1e-6) * (1 - p) / 400000)
    assert np.all(np.abs(p - mc) < 5 * sd + 1e-5), (p, mc)
    # the module's own Monte Carlo agrees too
    mc2 = monte_carlo_init(THREE, n0, 0.01, 200000, np.random.default_rng(7))
    assert np.all(np.abs(p - mc2) < 5 * np.sqrt(np.maximum(p, 1e-6) / 200000) + 1e-5)


def test_init_model_quadrature_converged_and_sensitive():
    a = init_stop_probabilities(THREE, 2, 0.01)
    b = init_stop_probabilities(THREE, 2, 0.01, nodes=256)
    assert np.allclose(a, b, rtol=5e-3, atol=1e-6)
    # a larger threshold (smaller delta) must lower every stop probability
    assert np.all(init_stop_probabilities(THREE, 2, 0.001) < b)


def test_student_threshold_bounds_exact_quantile():
    from baiuv.thresholds.kernels import ev_heuristic_student

    lid = math.log(100.0)
    for na, nb in [(2, 2), (2, 9), (3, 3), (5, 40), (30, 30), (1000, 2000)]:
        m = min(na, nb)
        c = math.log1p(math.log(na + nb)) + lid
        q = stats.t.isf(math.erfc(math.sqrt(c)) / 2, m - 1)
        exact = 0.5 * m / (m - 1) * q * q
        got = ev_heuristic_student(na, nb, lid)
        assert exact <= got <= exact * 1.02, (na, nb, exact, got)
    assert ev_heuristic_student(1, 5, lid) == math.inf


def _runs(errors_base, errors_fix, n=1000):
    rows = []
    for rem, err, tau in ((BASELINE, errors_base, 100), ("heuristic n0=10", errors_fix, 150)):
        for g in ("standard", "easy"):
            for r in range(n):
                rows.append(
                    dict(group=g, instance=g, algorithm="EV-TCI", remedy=rem,
                         threshold="heuristic", n0=int(rem[-1]) if rem != BASELINE else 2,
                         run=r, stream=EXPERIMENT, stream_instance=g, spawn_key="",
                         stopping_time=tau, recommendation=0, best_arm=0,
                         correct=r >= err, truncated=False, count_best=1, count_rec=1,
                         lower_bound=50.0)
                )  # fmt: skip
    return pd.DataFrame(rows)


def test_remedy_cells_wilson_costs_and_table_shape():
    cells = remedy_cells(_runs(30, 0), delta=0.01)
    assert len(cells) == 4
    b = cells[(cells["remedy"] == BASELINE) & (cells["group"] == "easy")].iloc[0]
    assert (b["errors"], b["runs"]) == (30, 1000)
    assert (b["wilson_low"], b["wilson_high"]) == wilson_interval(30, 1000)
    assert not b["resolved"] and b["cost_vs_paper"] == 1.0 and b["cost_vs_lb"] == 2.0
    f = cells[cells["remedy"] == "heuristic n0=10"]
    assert f["resolved"].all() and np.allclose(f["cost_vs_paper"], 1.5)
    rank = cheapest_resolved(cells)
    assert rank.iloc[0]["remedy"] == "heuristic n0=10" and rank.iloc[0]["all_resolved"]
    md = remedy_markdown(cells, delta=0.01)
    table = [ln for ln in md.splitlines() if ln.startswith("| ")]
    assert len(table) == 1 + 2 + 1 + 2  # header + 2 remedies; ranking header + 2
    assert table[0].count("|") == 2 + 2 * 2 + 1
    assert "**heuristic n0=10**" in md
    paired = paired_costs(_runs(30, 0), cells)
    claims = ev_claims(cells, pd.DataFrame(columns=["group"]), delta=0.01, paired=paired)
    assert claims[-1].verdict == "reproduced" and "n0=10" in claims[-1].ours
    assert "paired over 2 cells: 1.5–1.5" in claims[-1].ours
    assert all(c.beyond_paper for c in claims)  # the artifact's own study
    # 10 errors in 1000 runs is not resolved below delta
    assert not remedy_cells(_runs(30, 10), delta=0.01)["resolved"].any()


def test_shard_replay_and_student_remedy_run():
    named = {"standard": STANDARD}
    insts = ev_instances({"named": {"standard": 60}}, named, 3)
    base = run_remedy_shard(insts, "EV-TaS", Remedy("heuristic", 2), seed=3, delta=0.01,
                            max_samples=10**6)  # fmt: skip
    stud = run_remedy_shard(insts, "EV-TaS", Remedy("ev-heuristic-student", 2), seed=3,
                            delta=0.01, max_samples=10**6)  # fmt: skip
    assert len(base) == len(stud) == 60
    # same streams: the Student threshold is larger, so no run stops earlier
    assert (stud["stopping_time"].to_numpy() >= base["stopping_time"].to_numpy()).all()
    assert (stud["stopping_time"] > base["stopping_time"]).any()
    base.loc[0, "correct"] = False  # replay a run (whatever its outcome) through the identifier
    err = erring_runs(base, {"standard": insts[0][1].instance}, seed=3, delta=0.01,
                      max_samples=10**6)  # fmt: skip
    assert len(err) >= 1
    # the simulator's final statistics are the identifier's replay of the run, bit for bit
    from baiuv.registry import get_algorithm
    from baiuv.simulation.engine import Runner, RunSettings
    from baiuv.simulation.rng import run_seed

    inst = insts[0][1].instance
    runner = Runner(get_algorithm("EV-TaS"), RunSettings(delta=0.01, n0=2, max_samples=10**6))
    for r in range(5):
        ss = run_seed(3, "ev_remedies", "standard", "EV-TaS", r)
        mine = final_state(runner, inst, ss)
        kw = {"n0": 2, "delta": 0.01, "seed_sequence": ss, "max_samples": 10**6}
        other = replay_state(inst, "EV-TaS", **kw)
        assert mine.keys() == other.keys()
        for key, value in mine.items():
            assert np.array_equal(value, other[key]), key
    bad = base.copy()
    bad.loc[0, "stopping_time"] += 1
    with pytest.raises(RuntimeError, match="does not reproduce"):
        erring_runs(bad.iloc[:1], {"standard": insts[0][1].instance}, seed=3, delta=0.01,
                    max_samples=10**6)  # fmt: skip


def test_identifier_warns_for_heuristic_ev_small_n0():
    from baiuv import BestArmIdentifier

    with pytest.warns(HeuristicEVWarning, match=r"n0 = 2 the EV rules erred in 0\.22–6\.9 %"):
        BestArmIdentifier(3, 0.01, "ev-tci", "heuristic", n0=2, rng=0)
    with pytest.warns(HeuristicEVWarning, match=r"n0 = 4 \(the largest measured n0 <= 5\)"):
        BestArmIdentifier(3, 0.01, "ev-tas", "heuristic", n0=5, rng=0)
    for kw in (
        dict(sampling="ev-tci", threshold="heuristic", n0=RECOMMENDED_N0),
        dict(sampling="ev-tci", threshold="ev-box", n0=2),
        dict(sampling="tci", threshold="heuristic", n0=2),
        dict(sampling="ev-tci", threshold="ev-bob"),
    ):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            BestArmIdentifier(3, 0.01, rng=0, **kw)


def test_warning_numbers_match_the_published_remedies_table():
    """The advice's numbers are those of the paper-scale EV remedies table: per n0, the range
    of the heuristic's error rates over its cells, and the recommended remedy and cost."""
    text = (ROOT / "docs" / "paper-scale" / "tables" / "ev_remedies.md").read_text()
    text = text.split("## Ranking")[0]  # the error-rate table; the paired costs come later
    rows = re.findall(r"^\| heuristic n0=(\d+) \| (EV-\w+) \| (.*)\|$", text, re.M)
    assert len(rows) == 4 * len(MEASURED_ERROR)  # every EV rule at every measured n0
    by_n0 = {}
    for n0, _alg, rest in rows:
        rates = re.findall(r"\| ([\d.e-]+) \[[^]]*\] \(n=\d+\)", "| " + rest)
        assert len(rates) == 4  # standard, easy, random, audit
        by_n0.setdefault(int(n0), []).extend(float(r) for r in rates)
    for n0, (lo, hi) in MEASURED_ERROR.items():
        assert (min(by_n0[n0]), max(by_n0[n0])) == (lo, hi), n0
    rec = re.search(
        r"the \*\*recommended\*\* one, is \*\*heuristic n0=(\d+)\*\*: mean stopping time "
        r"([\d.]+)×",
        text,
    )
    assert rec and int(rec[1]) == RECOMMENDED_N0 and float(rec[2]) == RECOMMENDED_COST


def test_cli_prints_the_advice_as_one_plain_stderr_line(capsys):
    from baiuv import cli

    assert cli.main(["identify", "--simulate", "easy", "--seed", "1", "--sampling", "ev-tci",
                     "--threshold", "heuristic", "--quiet"]) in (0, None)  # fmt: skip
    err = capsys.readouterr().err.splitlines()
    advice = [ln for ln in err if "heuristic threshold with an EV rule" in ln]
    assert len(advice) == 1 and advice[0].startswith("warning: ") and "n0 >= 10" in advice[0]
    assert cli.main(["identify", "--simulate", "easy", "--seed", "1", "--sampling", "ev-tci",
                     "--threshold", "ev-box", "--quiet"]) in (0, None)  # fmt: skip
    assert "heuristic threshold with an EV rule" not in capsys.readouterr().err


def test_config_checks_name_the_field():
    from baiuv.studies.ev_remedy_runs import check_ev_remedies_config

    named = {"standard": STANDARD}
    ok = {"delta": 0.01, "algorithms": ["EV-TCI"], "named": {"standard": 10},
          "remedies": [{"threshold": "heuristic", "n0": 2}]}  # fmt: skip
    check_ev_remedies_config(ok, named, 0)
    with pytest.raises(ValueError, match=r"algorithms\[0\]: 'TCI' is not an EV rule"):
        check_ev_remedies_config({**ok, "algorithms": ["TCI"]}, named, 0)
    with pytest.raises(ValueError, match="baseline"):
        check_ev_remedies_config({**ok, "remedies": [{"threshold": "ev-box", "n0": 2}]}, named, 0)
    with pytest.raises(ValueError, match=r"remedies\[0\].*threshold"):
        check_ev_remedies_config({**ok, "remedies": [{"threshold": "box", "n0": 2}]}, named, 0)
    with pytest.raises(ValueError, match="unknown instance 'hard'"):
        check_ev_remedies_config({**ok, "named": {"hard": 5}}, named, 0)


def _two_instance_runs(errors_b: int, remedy: str, n0: int) -> list[dict]:
    """One group of two instances: ``a`` (3000 runs, no error), ``b`` (1000 runs,
    ``errors_b`` errors)."""
    rows = []
    for inst, n, err in (("a", 3000, 0), ("b", 1000, errors_b)):
        for r in range(n):
            rows.append(
                dict(group="audit", instance=inst, algorithm="EV-TaS", remedy=remedy,
                     threshold="heuristic", n0=n0, run=r, stream=EXPERIMENT,
                     stream_instance=inst, spawn_key="", stopping_time=100 + 10 * n0,
                     recommendation=0, best_arm=0, correct=r >= err, truncated=False,
                     count_best=1, count_rec=1, lower_bound=50.0)
            )  # fmt: skip
    return rows


def test_a_group_that_hides_an_erring_instance_is_not_recommended():
    """9 errors in 1000 runs on one instance: its Wilson upper bound (0.017) is above δ,
    while the group's cell (9 in 4000, upper 0.0043) is resolved. The check per instance
    refuses the remedy; the remedy without error on either instance is recommended."""
    from baiuv.studies.ev_remedies import instance_cells, recommended

    runs = pd.DataFrame(
        _two_instance_runs(30, BASELINE, 2)
        + _two_instance_runs(9, "heuristic n0=6", 6)
        + _two_instance_runs(0, "heuristic n0=10", 10)
    )
    cells = remedy_cells(runs, delta=0.01)
    assert cells.set_index("remedy").loc["heuristic n0=6", "resolved"]  # pooled: resolved
    inst = instance_cells(runs, delta=0.01)
    b6 = inst[(inst["remedy"] == "heuristic n0=6") & (inst["instance"] == "b")].iloc[0]
    assert (b6["errors"], b6["runs"]) == (9, 1000)
    assert b6["wilson_high"] == wilson_interval(9, 1000)[1] > 0.01 and not b6["resolved"]
    rank = cheapest_resolved(cells, inst)
    assert rank.iloc[0]["remedy"] == "heuristic n0=6"  # the cheapest by cells
    rec = recommended(rank)
    assert rec["remedy"] == "heuristic n0=10" and rec["instances_checked"] == 2
    md = remedy_markdown(cells, delta=0.01, instances=inst)
    assert "**recommended** one, is **heuristic n0=10**" in md
    assert "The worst instance of heuristic n0=6: b: 0.009 [" in md
    paired = paired_costs(runs, cells, instances=inst)
    claims = ev_claims(cells, pd.DataFrame(columns=["group"]), delta=0.01, instances=inst,
                       paired=paired)  # fmt: skip
    assert "heuristic n0=10" in claims[-1].ours and claims[-1].verdict == "reproduced"
    # an instance with fewer runs than a cell without error needs (381) is not checked
    few = instance_cells(runs[runs["run"] < 300], delta=0.01)
    assert few.empty
    with pytest.raises(ValueError, match="cheapest_resolved"):
        recommended(cheapest_resolved(cells))


def test_readme_report_and_identifier_give_the_same_recommendation():
    """The README's findings, the paper-scale report's row "beyond the paper" and the
    identifier's advice name the same n0 and cost."""
    readme = " ".join((ROOT / "README.md").read_text().split())
    assert f"n0 = {RECOMMENDED_N0} initial samples per arm is the cheapest" in readme
    assert f"at {RECOMMENDED_COST:.2f}× the mean stopping time of n0 = 2" in readme
    assert f"with n0 < {RECOMMENDED_N0}" in readme
    report = (ROOT / "docs" / "paper-scale" / "reproduction.md").read_text()
    row = re.search(r"^\|[^\n]*every cell and every instance checked[^\n]*$", report, re.M)
    assert row, "the paper-scale report has no recommended remedy"
    assert f"| heuristic n0={RECOMMENDED_N0}: max error" in row[0]
    table = (ROOT / "docs" / "paper-scale" / "tables" / "ev_remedies.md").read_text()
    assert (
        f"is **heuristic n0={RECOMMENDED_N0}**: mean stopping time {RECOMMENDED_COST:.2f}×" in table
    )
    from baiuv.simulation.ev_advice import heuristic_ev_message

    msg = heuristic_ev_message(2)
    assert f"n0 >= {RECOMMENDED_N0}" in msg and f"{RECOMMENDED_COST:.2f}×" in msg
