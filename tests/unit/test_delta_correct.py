"""Experiment "δ-correct stopping" (decision D71)."""

import math

import numpy as np
import pandas as pd
import pytest

from baiuv import EASY, GaussianInstance
from baiuv.experiments.stopping_times import wilson_interval
from baiuv.model.validate import log_inv_delta_of
from baiuv.studies.delta_correct import (
    check_delta_correct_config,
    parse_variant,
    run_delta_correct_cell,
    variants_for,
)
from baiuv.studies.delta_correct_report import (
    delta_correct_markdown,
    delta_correct_timings_markdown,
    summarize_delta_correct,
)

EASY3 = GaussianInstance(np.array([1.0, 0.4, 0.0]), np.array([0.5, 0.5, 0.5]), "easy3")
L05, L01 = log_inv_delta_of(0.05), log_inv_delta_of(0.01)  # ln(1/delta), converted once


def test_parse_variant():
    assert parse_variant("bob-lazy", "TCI") == ("bob", True)
    assert parse_variant("ev-bob", "EV-TaS") == ("ev-bob", False)
    assert parse_variant("heuristic", "EV-TCI") == ("heuristic", False)
    for v, alg in [("ev-bob", "TCI"), ("bob", "EV-TCI"), ("bob-lazy-lazy", "TCI"), ("x", "TCI")]:
        with pytest.raises(ValueError, match="variant"):
            parse_variant(v, alg)
    with pytest.raises(ValueError, match="algorithm"):
        parse_variant("bob", "FHN2")


def test_common_random_numbers_and_delta_correct_is_slower():
    """Every variant of a run sees the same stream: the stopping rule consumes no
    randomness, so the δ-correct (larger) threshold stops later on every run, and the
    lazy variant stops on the grid no earlier than the eager one."""
    cells = {
        v: run_delta_correct_cell(EASY3, "TCI", v, range(6), seed=5, log_inv_delta=L05)
        for v in ["heuristic", "box", "bob", "bob-lazy"]
    }
    h = cells["heuristic"]["stopping_time"].to_numpy()
    for v in ["box", "bob", "bob-lazy"]:
        assert np.all(cells[v]["stopping_time"].to_numpy() >= h), v
    assert np.all(cells["bob-lazy"]["stopping_time"].to_numpy() >= cells["bob"]["stopping_time"])
    assert cells["bob-lazy"]["lazy_ratio"].eq(1.1).all()
    assert cells["bob"]["lazy_ratio"].isna().all()
    again = run_delta_correct_cell(EASY3, "TCI", "bob", [3, 4], seed=5, log_inv_delta=L05)
    pd.testing.assert_series_equal(
        again["stopping_time"].reset_index(drop=True),
        cells["bob"]["stopping_time"].iloc[3:5].reset_index(drop=True),
    )


def test_summary_against_hand_computation():
    rows = []
    taus = {"heuristic": [10, 20, 30], "box": [40, 50, 90]}
    correct = {"heuristic": [True, False, True], "box": [True, True, True]}
    for thr, ts in taus.items():
        for r, t in enumerate(ts):
            rows.append(
                {
                    "instance": "i",
                    "algorithm": "TCI",
                    "threshold": thr,
                    "run": r,
                    "stopping_time": t,
                    "correct": correct[thr][r],
                    "truncated": False,
                    "wall_time": 0.002,
                    "lower_bound": 5.0,
                }
            )
    s = summarize_delta_correct(pd.DataFrame(rows)).set_index("threshold")
    assert s.loc["box", "mean"] == pytest.approx(60.0)
    assert s.loc["box", "se"] == pytest.approx(np.std([40, 50, 90], ddof=1) / math.sqrt(3))
    assert s.loc["box", "ratio"] == pytest.approx(60.0 / 20.0)
    assert s.loc["box", "paired_ratio"] == pytest.approx((4 + 2.5 + 3) / 3)
    assert s.loc["heuristic", "errors"] == 1
    assert (s.loc["heuristic", "wilson_low"], s.loc["heuristic", "wilson_high"]) == pytest.approx(
        wilson_interval(1, 3)
    )
    md = delta_correct_markdown(s.reset_index(), 0.01)
    assert "| i | TCI | box | 3 | 60.0 ± 15.3 | 50 | 3.00 (paired 3.17) |" in md
    assert "wall" not in md  # timings live in their own file (D131)
    timings = pd.DataFrame(rows)[["instance", "algorithm", "threshold", "run", "wall_time"]]
    timings.loc[timings["threshold"] == "box", "wall_time"] = [0.001, 0.002, 0.006]
    tmd = delta_correct_timings_markdown(timings, 0.01)
    assert "| i | TCI | heuristic | 3 | 2 |" in tmd
    assert "| i | TCI | box | 3 | 3 |" in tmd


def test_config_checks():
    cfg = {
        "delta": 0.01,
        "instances": ["easy"],
        "runs": {"easy": 3},
        "algorithms": ["TCI", "EV-TCI"],
        "thresholds": ["heuristic", "bob-lazy"],
        "ev_thresholds": ["heuristic", "ev-bob"],
    }
    check_delta_correct_config(cfg, ["easy", "standard"])
    assert variants_for("EV-TCI", cfg) == ["heuristic", "ev-bob"]
    bad = [
        ({"instances": ["nope"]}, r"delta_correct.instances\[0\]"),
        ({"runs": {"other": 1}}, "delta_correct.runs"),
        ({"thresholds": ["bob"]}, "must contain 'heuristic'"),
        ({"thresholds": ["heuristic", "ev-bob"]}, "delta_correct.thresholds"),
        ({"ev_thresholds": ["heuristic", "kl"]}, "delta_correct.ev_thresholds"),
        ({"algorithms": ["FHN1"]}, "delta_correct.algorithms"),
    ]
    for patch, match in bad:
        with pytest.raises(ValueError, match=match):
            check_delta_correct_config({**cfg, **patch}, ["easy", "standard"])


def test_run_cell_columns_and_bad_instance():
    df = run_delta_correct_cell(EASY, "EV-TCI", "ev-box", [0], seed=1, log_inv_delta=L01)
    assert list(df.columns)[:3] == ["instance", "algorithm", "threshold"]
    assert df["correct"].item() and df["lower_bound"].item() > 0
    with pytest.raises(ValueError, match="instance"):
        run_delta_correct_cell(
            GaussianInstance([1.0, 0.0], [1.0, 1.0]), "TCI", "box", [0], seed=1, log_inv_delta=L01
        )
    with pytest.raises(TypeError, match="delta"):  # the level is ln(1/delta), resolved once
        run_delta_correct_cell(EASY, "TCI", "box", [0], seed=1, delta=0.01)


def _dc_runs(lazy_taus, eager_taus, wrong=0):
    rows = []
    for thr, taus in (("bob", eager_taus), ("bob-lazy", lazy_taus)):
        for r, tau in enumerate(taus):
            rows.append(
                dict(
                    instance="easy",
                    algorithm="TaS",
                    threshold=thr,
                    run=r,
                    stopping_time=tau,
                    correct=not (thr == "bob-lazy" and r < wrong),
                    truncated=False,
                    lower_bound=5.0,
                )
            )
    return pd.DataFrame(rows)


def test_lazy_rows_verdicts_and_paired_ratio():
    from baiuv.claims import DIFFERS, NOT_RESOLVED, REPRODUCED
    from baiuv.studies.delta_correct_report import delta_correct_claims, lazy_paired_ratios

    df = _dc_runs([110, 150, 100], [100, 100, 100])
    pr = lazy_paired_ratios(df).iloc[0]
    assert (pr["pairs"], pr["max_ratio"]) == (3, 1.5)
    assert pr["mean_ratio"] == pytest.approx((1.1 + 1.5 + 1.0) / 3)
    rows = delta_correct_claims(df, delta=0.01)
    first, cost = rows[0], rows[-1]
    assert first.verdict == NOT_RESOLVED  # 0 errors in 3 runs cannot resolve 0.01
    assert "1.500 exceeds" in cost.reason
    assert cost.beyond_paper and not first.beyond_paper  # the grid is not the paper's
    many = _dc_runs([100] * 1000, [100] * 1000)
    assert delta_correct_claims(many, delta=0.01)[0].verdict == REPRODUCED
    bad = _dc_runs([100] * 100, [100] * 100, wrong=10)
    assert delta_correct_claims(bad, delta=0.01)[0].verdict == DIFFERS


def _box_runs(box_factor, n=200, others=("kl", "bob"), noise=0.05, seed=0):
    """Paired runs of one cell: the other families' τ (the k-th: (1 + 0.1 k) × a base run),
    Box's = ``box_factor`` × the base run (run by run, with relative noise ``noise``), plus
    heuristic and lazy variants that never count."""
    rng = np.random.default_rng(seed)
    base = rng.lognormal(np.log(200.0), 0.5, n)
    taus = {f: base * (1.0 + 0.1 * k) for k, f in enumerate(others)}
    taus["box"] = base * box_factor * (1.0 + noise * rng.standard_normal(n))
    taus["heuristic"] = base / 10.0
    taus["bob-lazy"] = base * 100.0
    return pd.DataFrame(
        [
            dict(
                instance="easy",
                algorithm="TaS",
                threshold=thr,
                run=r,
                stopping_time=float(tau),
                correct=True,
                truncated=False,
                lower_bound=5.0,
            )
            for thr, v in taus.items()
            for r, tau in enumerate(v)
        ]
    )


def test_box_advice_row_judges_box_against_the_other_delta_correct_families(monkeypatch):
    """Section 3.3's "the Box threshold should be used since it has [...] good empirical
    performance" (D281): mean τ(Box)/mean τ(F) ≤ 1.2 for every other δ-correct GLR family,
    one-sided, on the paired bootstrap interval; the heuristic and lazy variants never
    enter (here they would make every ratio differ)."""
    from baiuv import claims
    from baiuv.claims import DIFFERS, NOT_RESOLVED, REPRODUCED, Band, judge
    from baiuv.studies.delta_correct_report import box_advice_claim, delta_correct_claims

    monkeypatch.setattr(claims, "N_BOOT", 500)
    c = box_advice_claim(_box_runs(1.0))
    assert c.verdict == REPRODUCED and "≤ 1.2" in c.paper and "D281" in c.paper
    assert "easy/TaS box/kl" in c.ours and "easy/TaS box/bob" in c.ours
    assert "heuristic" not in c.ours and "lazy" not in c.ours
    # Box faster than both: one-sided, still reproduced (a two-sided band would not be)
    assert box_advice_claim(_box_runs(0.5)).verdict == REPRODUCED
    c = box_advice_claim(_box_runs(1.6))  # 1.6 × KL's, 1.45 × BoB's: both above 1.2
    assert c.verdict == DIFFERS and "box/bob" in c.reason
    # few noisy runs: box/kl 1.246 [1.13, 1.37] straddles 1.2, so not resolved, where the
    # point alone would say differs
    c = box_advice_claim(_box_runs(1.3, noise=0.3, n=60, seed=3))
    assert c.verdict == NOT_RESOLVED and "straddles the bound" in c.reason
    assert "easy/TaS box/kl [1.1" in c.reason
    assert "box/kl 1.246" in c.ours and judge(1.246, None, Band(hi=1.2)) == DIFFERS
    # without another δ-correct family beside Box: no row
    assert box_advice_claim(_box_runs(1.0, others=())) is None
    assert not [r for r in delta_correct_claims(_dc_runs([1], [1]), delta=0.01) if "Box" in r.claim]
    rows = delta_correct_claims(_box_runs(1.0), delta=0.01)
    assert [r.verdict for r in rows if "Box threshold" in r.claim] == [REPRODUCED]


def _lb_runs(factor, n=200, seed=0, thresholds=("heuristic", "box", "bob", "bob-lazy"), wrong=()):
    """Runs of one cell whose stopping times are ``factor[thr]`` × the Lemma 2 bound (100)
    × a lognormal base shared by the variants (common random numbers); the runs of
    ``wrong`` recommend a wrong arm."""
    rng = np.random.default_rng(seed)
    base = rng.lognormal(0.0, 0.4, n)
    base /= base.mean()
    return pd.DataFrame(
        [
            dict(
                instance="easy",
                algorithm="TaS",
                threshold=thr,
                run=r,
                stopping_time=float(100.0 * factor.get(thr, 2.0) * base[r]),
                correct=(thr, r) not in wrong,
                truncated=False,
                lower_bound=100.0,
            )
            for thr in thresholds
            for r in range(n)
        ]
    )


def test_lemma2_row_judges_the_delta_correct_cells_only(monkeypatch):
    """Lemma 2 where it binds (D315): every δ-correct cell's mean τ / bound against ≥ 1 on
    its bootstrap interval; the heuristic cell is printed beside and never judged (here it
    lies below the bound and the row is still reproduced)."""
    from baiuv import claims
    from baiuv.claims import DIFFERS, NOT_RESOLVED, REPRODUCED, Band, judge
    from baiuv.studies.delta_correct_report import lemma2_claim

    monkeypatch.setattr(claims, "N_BOOT", 500)
    c = lemma2_claim(_lb_runs({"heuristic": 0.5, "box": 2.0, "bob": 2.1, "bob-lazy": 2.2}))
    assert c.verdict == REPRODUCED and not c.beyond_paper and "D315" in c.paper
    assert "easy/TaS/box 2.000" in c.ours and "easy/TaS/bob-lazy" in c.ours
    assert "beside (not δ-correct, not judged): easy/TaS/heuristic 0.500" in c.ours
    c = lemma2_claim(_lb_runs({"box": 0.7, "bob": 2.0, "bob-lazy": 2.0}))
    assert c.verdict == DIFFERS and "easy/TaS/box" in c.reason
    # 40 noisy runs at 1.03 × the bound: the interval contains 1, so not resolved where
    # the point alone would say reproduced
    c = lemma2_claim(_lb_runs({"box": 1.03, "bob": 2.0, "bob-lazy": 2.0}, n=40, seed=1))
    assert c.verdict == NOT_RESOLVED and "easy/TaS/box [" in c.reason
    assert judge(1.03, None, Band(lo=1.0)) == REPRODUCED
    assert lemma2_claim(_lb_runs({}, thresholds=("heuristic",))) is None


def test_conclusion_rows_judge_error_rate_and_conservativeness(monkeypatch):
    """The Conclusion (D314): (1) each calibrated variant's pooled error rate, Wilson
    interval against ≤ δ/100 (never resolved at these sizes without error, differs with
    errors well above δ/100); (2) mean τ(calibrated)/mean τ(heuristic) > 1, paired."""
    from baiuv import claims
    from baiuv.claims import DIFFERS, NOT_RESOLVED, REPRODUCED
    from baiuv.studies.delta_correct_report import conclusion_claims, delta_correct_claims

    monkeypatch.setattr(claims, "N_BOOT", 500)
    err, slow = conclusion_claims(_lb_runs({"heuristic": 1.0}), delta=0.01)
    assert err.verdict == NOT_RESOLVED and "38411 runs" in err.reason
    assert "box 0/200" in err.ours and "heuristic" not in err.ours
    assert "pooled 0/600" in err.ours
    assert slow.verdict == REPRODUCED and "easy/TaS box/heuristic 2.000" in slow.ours
    # 2 errors of 200 Box runs (1 %): resolved above δ/100 = 1e-4
    wrong = {("box", 0), ("box", 1)}
    err = conclusion_claims(_lb_runs({"heuristic": 1.0}, wrong=wrong), delta=0.01)[0]
    assert err.verdict == DIFFERS and "resolved above δ/100: box" in err.reason
    # 0 errors in 40 000 runs of one variant: Wilson upper bound 9.6e-5 < 1e-4
    many = _lb_runs({}, n=40_000, thresholds=("box",))
    assert [c.verdict for c in conclusion_claims(many, delta=0.01)] == [REPRODUCED]
    # a calibrated threshold no slower than the heuristic: differs; equal in law: open
    fast = conclusion_claims(_lb_runs({"heuristic": 3.0}), delta=0.01)[1]
    assert fast.verdict == DIFFERS and "no later than the heuristic" in fast.reason
    rng = np.random.default_rng(5)
    df = _lb_runs({"heuristic": 1.0, "box": 1.0}, n=50, thresholds=("heuristic", "box"))
    df["stopping_time"] *= rng.lognormal(0.0, 0.3, len(df))
    assert conclusion_claims(df, delta=0.01)[1].verdict == NOT_RESOLVED
    # without a heuristic cell, no conservativeness row; without δ-correct runs, no row
    assert len(conclusion_claims(_lb_runs({}, thresholds=("box",)), delta=0.01)) == 1
    assert conclusion_claims(_lb_runs({}, thresholds=("heuristic",)), delta=0.01) == []
    rows = delta_correct_claims(_lb_runs({"heuristic": 1.0}), delta=0.01)
    assert sum("Conclusion" == r.where for r in rows) == 2
    assert sum("Lemma" in r.where for r in rows) == 1


def test_truncated_runs_are_no_errors_and_decide_no_verdict_alone(monkeypatch):
    """D419: a run that reached max_samples made no recommendation (Definition 1 bounds
    P(τ < ∞, wrong)): the summary's errors are the stopped runs' wrong recommendations, and
    an error-rate verdict stands only when it is the same with every truncated run counted
    as an error; otherwise the truncated runs decide and it is not resolved."""
    from baiuv import claims
    from baiuv.claims import DIFFERS, NOT_RESOLVED, REPRODUCED, Band
    from baiuv.studies.delta_correct_report import conclusion_claims, judge_errors

    monkeypatch.setattr(claims, "N_BOOT", 200)
    band = Band(hi=0.01, words="w")
    assert judge_errors(0, 0, 1000, band) == (REPRODUCED, wilson_interval(0, 1000))
    verdict, interval = judge_errors(0, 15, 1000, band)  # 15 truncated runs could err
    assert verdict == NOT_RESOLVED
    assert interval == (wilson_interval(0, 1000)[0], wilson_interval(15, 1000)[1])
    assert judge_errors(30, 5, 1000, band)[0] == DIFFERS  # above δ either way
    assert judge_errors(0, 1, 1000, band)[0] == REPRODUCED  # below δ either way
    # a truncated run whose empirical best at the budget is a wrong arm: no error
    cut = {("box", 0), ("box", 1)}
    df = _lb_runs({"heuristic": 1.0}, wrong=cut)
    df.loc[(df["threshold"] == "box") & df["run"].isin([0, 1]), "truncated"] = True
    s = summarize_delta_correct(df).set_index("threshold")
    assert (s.loc["box", "errors"], s.loc["box", "truncated"]) == (0, 2)
    # 40 000 runs without a wrong stop resolve δ/100, unless 10 truncated runs could err
    many = _lb_runs({}, n=40_000, thresholds=("box",))
    assert conclusion_claims(many, delta=0.01)[0].verdict == REPRODUCED
    many.loc[many.index[:10], ["truncated", "correct"]] = [True, False]
    row = conclusion_claims(many, delta=0.01)[0]
    assert row.verdict == NOT_RESOLVED and "truncated runs decide" in row.reason
    assert "box 0/40000" in row.ours and "10 truncated" in row.ours
