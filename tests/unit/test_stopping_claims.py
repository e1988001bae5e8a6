"""Claims of the stopping-time experiment: each verdict rule fed numbers that satisfy it and
numbers that contradict it, and each measured cause stated only when its numbers show it."""

import math

import numpy as np
import pandas as pd
import pytest

from baiuv import claims
from baiuv.claims import DIFFERS, NOT_CHECKABLE, NOT_RESOLVED, REPRODUCED
from baiuv.experiments.stopping_claims import band, experiment_claims, in_band
from baiuv.experiments.stopping_times import (
    lower_bound_of,
    stopping_time_summary,
    wilson_interval,
)
from baiuv.model.characteristic import characteristic_time


def _times(means, exp="easy", **cols):
    return pd.DataFrame(
        [
            {
                "experiment": exp,
                "algorithm": a,
                "runs": 5000,
                "mean": m,
                "se": 1.0,
                "median": m,
                "max": 3 * m,
                "ratio_to_bound": m / 10.0,
                "lower_bound": 10.0,
                **cols,
            }
            for a, m in means.items()
        ]
    )


def _errors(rows, runs=5000):
    out = []
    for e, a, k in rows:
        lo, hi = wilson_interval(k, runs)
        out.append(
            dict(
                experiment=e,
                algorithm=a,
                runs=runs,
                errors=k,
                error_rate=k / runs,
                wilson_low=lo,
                wilson_high=hi,
            )
        )
    return pd.DataFrame(out)


def _runs_of(times, n=200, share=0.55):
    """Runs whose mean and median are those of ``times`` (per experiment and algorithm):
    ``share`` of them within 0.02 % of the median, the others at the value that makes the
    mean (above the median: the median stays in the first block); on the random
    experiment one run per instance (instance i shared by all)."""
    rows = []
    for r in times.itertuples():
        k = int(share * n)
        core = r.median * (1 + 0.0002 * np.linspace(-1, 1, k))
        v = (n * r.mean - core.sum()) / (n - k)
        assert v >= r.median * (1 - 1e-12)
        taus = np.concatenate([core, np.full(n - k, v)])
        random = r.experiment == "random"
        for i, tau in enumerate(taus):
            rows.append(
                dict(
                    experiment=r.experiment,
                    algorithm=r.algorithm,
                    instance_index=i if random else 0,
                    run=0 if random else i,
                    stopping_time=tau,
                    lower_bound=r.lower_bound,
                )
            )
    return pd.DataFrame(rows)


@pytest.fixture(autouse=True)
def _few_resamples(monkeypatch):
    """500 bootstrap resamples: the rows' numbers are far from their bands' bounds."""
    monkeypatch.setattr(claims, "N_BOOT", 500)


def _claims(errors, times, delta=0.01):
    return experiment_claims(errors, times, delta, runs=_runs_of(times))


def _claim(claims, *words):
    (c,) = [c for c in claims if all(w in c.claim for w in words)]
    return c


BASE = {"TaS": 50, "EV-TaS": 48, "TCI": 52, "EV-TCI": 49, "uniform": 90, "fixed": 50}


def test_bands_are_two_sided():
    assert band("on par") == (pytest.approx(0.8), 1.25)
    assert band("comparable") == (pytest.approx(0.8), pytest.approx(1.2))
    for kind in ("on par", "comparable"):
        assert in_band(1.0, kind)
        assert not in_band(0.57, kind)  # too fast is not "on par" / "similar"
        assert not in_band(1.3, kind)
    with pytest.raises(ValueError, match="kind"):
        band("close")


def test_on_par_row_fails_on_both_sides():
    errors = _errors([("easy", "EV-TaS", 150), ("easy", "TaS", 0)])
    c = _claim(_claims(errors, _times(BASE), 0.01), "on par")
    assert c.verdict == REPRODUCED and "[0.80, 1.25]" in c.paper and "D170" in c.paper
    fast = _times(dict(BASE, **{"EV-TaS": 28.5}), init_share=0.0)  # 0.57x fixed
    fast.loc[fast.algorithm == "EV-TaS", "init_share"] = 0.29
    c = _claim(_claims(errors, fast, 0.01), "on par")
    assert c.verdict == DIFFERS and "faster than fixed: EV-TaS" in c.reason
    assert "EV-TaS 0.03" in c.reason and "EV-TaS 29.0%" in c.reason  # measured, printed
    # printed beside, not as a cause: the hypothesis covers every rule faster than fixed
    assert "measured beside them" in c.reason and "hypothesis (not measured)" in c.reason
    c = _claim(_claims(errors, _times(dict(BASE, TaS=70)), 0.01), "on par")
    assert c.verdict == DIFFERS and "slower than fixed: TaS" in c.reason
    assert "in the band by medians" not in c.reason  # median 70 = 1.4x fixed's
    tail = _times(dict(BASE, TaS=70))
    tail.loc[tail.algorithm == "TaS", "median"] = 30.0  # 0.6x fixed's median: not in band
    assert "in the band by medians" not in _claim(_claims(errors, tail, 0.01), "on par").reason
    tail.loc[tail.algorithm == "TaS", "median"] = 52.0
    assert "in the band by medians" in _claim(_claims(errors, tail, 0.01), "on par").reason
    c = _claim(_claims(errors, _times(dict(BASE, TaS=30)), 0.01), "on par")
    assert "hypothesis (not measured)" in c.reason  # an adapted rule faster than fixed


def test_comparable_row_and_tail_measurement():
    errors = _errors([("random", "TCI", 0)])
    key = ("similar result", "(random)")
    ok = _times({"TCI": 100, "EV-TCI": 105}, "random")
    assert _claim(_claims(errors, ok, 0.01), *key).verdict == REPRODUCED
    for ev in (70, 130):
        t = _times({"TCI": 100, "EV-TCI": ev}, "random")
        assert _claim(_claims(errors, t, 0.01), *key).verdict == DIFFERS
    # slower in mean with the median in the band: the long runs are named with their numbers
    t = _times({"TCI": 100, "EV-TCI": 160}, "random", long_runs=0, long_starved=0)
    t.loc[t.algorithm == "EV-TCI", ["median", "long_runs", "long_starved", "long_errors"]] = [
        95,
        3,
        3,
        3,
    ]
    t["long_errors"] = t["long_errors"].fillna(0)
    t["long_share_of_samples"] = [0.0, 0.4]
    c = _claim(_claims(errors, t, 0.01), *key)
    assert c.verdict == DIFFERS and "ratio of medians 0.950, in the band" in c.reason
    assert "3 runs longer than 10× the median" in c.reason
    assert "in 3 of them the best arm was never pulled" in c.reason


def test_several_orders_of_magnitude_rule():
    """'several order of magnitude lower than δ': the Wilson interval below δ/100."""
    # TCI's 3 errors in 5000 runs: interval [2.0e-4, 1.8e-3], entirely above δ/100
    c = _claim(_claims(_errors([("easy", "TCI", 3)]), _times(BASE), 0.01), "magnitude")
    assert c.verdict == DIFFERS and "TCI" in c.reason and "δ/100" in c.paper
    # 0 errors in 5000 runs: upper bound 7.7e-4 > 1e-4, not resolved
    c = _claim(_claims(_errors([("easy", "TCI", 0)]), _times(BASE), 0.01), "magnitude")
    assert c.verdict == NOT_RESOLVED
    # 0 errors in 100 000 runs resolve it
    e = _errors([("easy", "TCI", 0)], runs=100_000)
    assert _claim(_claims(e, _times(BASE), 0.01), "magnitude").verdict == REPRODUCED
    # the words are said of the heuristic threshold: FHN2 (elimination) is printed apart
    e = _errors([("easy", "TCI", 0), ("easy", "FHN2", 30)], runs=100_000)
    c = _claim(_claims(e, _times(BASE), 0.01), "magnitude")
    assert c.verdict == REPRODUCED and c.ours.startswith("1 rules stopped with the threshold")
    assert "not stopped with the threshold (elimination): FHN2 30/100000" in c.ours


def test_easy_row_says_what_the_advantage_consists_of():
    errors = _errors([("easy", "TaS", 0)])
    t = _times(BASE, init_share=0.0)
    t.loc[t.algorithm == "EV-TaS", "init_share"] = 0.28
    c = _claim(_claims(errors, t, 0.01), "slightly better")
    assert c.verdict == REPRODUCED and "EV-TaS 28.0% vs TaS 0.0%" in c.ours
    worse = _times(dict(BASE, **{"EV-TaS": 60}))
    assert _claim(_claims(errors, worse, 0.01), "slightly better").verdict == DIFFERS


def test_first_check_share_of_advantage_closed_form():
    from baiuv.experiments.stopping_claims import first_check_share_of_advantage as share

    # EV: 60 % of the runs at the first check 10, the others at 100 and 120 (mean 110): EV's
    # mean 50, adapted's 150; without the first-check runs EV's mean would be 110, so those
    # runs make 60 of the 100 samples of advantage
    ev = np.array([10.0] * 6 + [100.0, 120.0] * 2)
    assert share(ev, np.full(7, 150.0), 10.0)[0] == pytest.approx(0.6)
    # the same advantage without first-check runs: none of it is theirs
    assert share(np.full(10, 50.0), np.full(7, 150.0), 10.0)[0] == 0.0
    # no advantage (EV slower), or every run at the first check: nothing to decompose
    assert np.isnan(share(ev, np.full(7, 40.0), 10.0)[0])
    assert np.isnan(share(np.full(5, 10.0), np.full(5, 40.0), 10.0)[0])
    # a share above 1: the other EV runs are slower than the adapted rule's
    assert share(np.array([10.0, 10.0, 300.0, 300.0]), np.full(4, 200.0), 10.0)[0] > 1


def test_easy_row_decomposes_the_advantage():
    """With n0, the row prints each EV rule's share of its mean advantage made by its runs
    stopped at n0·K, from the runs (K = 5, n0 = 2: the first check is 10)."""
    rows = []
    for alg, taus in (
        ("TaS", [150.0] * 100),
        ("EV-TaS", [10.0] * 60 + [100.0, 120.0] * 20),
        ("TCI", [100.0] * 100),
        ("EV-TCI", [120.0] * 100),
    ):
        for i, tau in enumerate(taus):
            row = dict(experiment="easy", algorithm=alg, instance_index=0, run=i)
            rows.append(dict(row, stopping_time=tau, lower_bound=10.0, K=5))
    runs = pd.DataFrame(rows)
    extra = dict(reference_line=10.0, counts=None, best_arm=0, correct=True)
    times = stopping_time_summary(runs.assign(**extra))
    c = _claim(
        experiment_claims(_errors([("easy", "TaS", 0)]), times, 0.01, runs=runs, n0=2),
        "slightly better",
    )
    assert "EV-TaS 60% [" in c.ours and "EV-TCI: no mean advantage over TCI" in c.ours


def test_fhn_rows():
    errors = _errors([("easy", "TaS", 0)])
    means = dict(BASE, FHN2=200)
    assert _claim(_claims(errors, _times(means), 0.01), "wastes").verdict == REPRODUCED
    means["FHN2"] = 40
    assert _claim(_claims(errors, _times(means), 0.01), "wastes").verdict == DIFFERS
    rnd = _times(dict(BASE, FHN2=52), "random")
    c = _claim(_claims(errors, rnd, 0.01), "FHN2 has similar")
    assert c.verdict == REPRODUCED and "[0.8, 1.2]" in c.paper
    rnd = _times(dict(BASE, FHN2=80), "random")
    assert _claim(_claims(errors, rnd, 0.01), "FHN2 has similar").verdict == DIFFERS
    std = _times(dict(BASE, FHN2=80), "standard")  # said of random instances only
    assert not [c for c in _claims(errors, std, 0.01) if "FHN2" in c.claim]


def test_lower_bound_is_lemma_2_as_stated():
    mu, s2 = (1.0, 0.5, 0.2), (1.0, 0.3, 2.0)
    T, lb = lower_bound_of(mu, s2, math.log(100.0))
    assert T == characteristic_time(np.array(mu), np.array(s2))
    assert lb == pytest.approx(T * math.log(1 / (2.4 * 0.01)), rel=1e-12)
    errors = _errors([("easy", "TaS", 0)])
    t = _times({"TaS": 50, "EV-TaS": 45})  # lower_bound 10, se 1: above
    assert _claim(_claims(errors, t, 0.01), "2.4δ").verdict == REPRODUCED
    t.loc[t.algorithm == "EV-TaS", ["mean", "median"]] = 5.0
    c = _claim(_claims(errors, t, 0.01), "2.4δ")
    assert c.verdict == DIFFERS and "EV-TaS" in c.reason
    line = _claim(_claims(errors, t, 0.01), "Figure 2's line")
    assert line.verdict == NOT_CHECKABLE and "0.810 ×" in line.ours
    # a check beyond the paper (the Lemma binds δ-correct rules): counted apart
    assert c.beyond_paper and not line.beyond_paper


def test_size_row():
    errors = _errors([("easy", "TaS", 0)])
    c = _claim(_claims(errors, _times(BASE), 0.01), "1000 random")
    assert c.verdict == NOT_CHECKABLE  # only the easy experiment here
    t = pd.concat(
        [_times(BASE, "random").assign(runs=1000), _times(BASE, "standard"), _times(BASE)]
    )
    assert _claim(_claims(errors, t, 0.01), "1000 random").verdict == REPRODUCED


def test_summary_measures_initial_stops_and_long_runs():
    rows = []
    for r, tau in enumerate([10, 10, 40, 50, 60, 2000]):
        counts = [2, 2, 2, 2, 2] if tau == 10 else [tau - 8, 2, 2, 2, 2]
        if tau == 2000:
            counts = [2, 1000, 994, 2, 2]  # the best arm (0) never pulled after n0
        rows.append(
            dict(
                experiment="easy",
                algorithm="EV-TaS",
                run=r,
                K=5,
                stopping_time=tau,
                counts=counts,
                best_arm=0,
                correct=tau != 2000,
                lower_bound=5.0,
                reference_line=6.0,
            )
        )
    df = pd.DataFrame(rows)
    s = stopping_time_summary(df, n0=2, fhn_n0=47).iloc[0]
    assert s["init_share"] == pytest.approx(2 / 6)
    assert (s["long_runs"], s["long_starved"], s["long_errors"]) == (1, 1, 1)
    assert s["long_share_of_samples"] == pytest.approx(2000 / 2170)
    assert s["ratio_to_bound"] == pytest.approx(2170 / 6 / 5.0)
    assert s["ratio_to_reference"] == pytest.approx(2170 / 6 / 6.0)
    # FHN's first check is at fhn_n0 K
    fhn = df.assign(algorithm="FHN2", stopping_time=[235] * 6)
    assert stopping_time_summary(fhn, n0=2, fhn_n0=47).iloc[0]["init_share"] == 1.0


def test_one_run_cannot_decide_the_similar_row_and_bands_follow_the_words():
    """On random instances (paired by instance) one EV-TCI run of 40x the others' sum moves
    its mean 1.5x: the "similar" row is 'not resolved', not 'differs', and prints the
    medians. "Slightly better" refuses a 2.5x advantage; "outperforms uniform" is
    one-sided."""
    n = 300
    rows = []
    base = 100 + 10 * np.sin(np.arange(n))
    for alg, taus in (("TCI", base), ("EV-TCI", base.copy()), ("uniform", 2 * base)):
        if alg == "EV-TCI":
            taus[7] = 0.5 * base.sum()
        rows += [
            dict(experiment="random", algorithm=alg, instance_index=i, run=0,
                 stopping_time=t, lower_bound=10.0)
            for i, t in enumerate(taus)
        ]  # fmt: skip
    runs = pd.DataFrame(rows)
    means = runs.groupby("algorithm")["stopping_time"].mean().to_dict()
    t = _times(means, "random")
    claims_ = experiment_claims(_errors([("random", "TCI", 0)]), t, 0.01, runs=runs)
    c = _claim(claims_, "similar result", "(random)")
    assert c.verdict == NOT_RESOLVED and "EV-TCI/TCI 1.49" in c.ours and "medians 1.000" in c.ours
    assert "paired" in c.paper and "[0.8, 1.2]" in c.paper
    u = _claim(claims_, "outperforms uniform")
    # TCI at half uniform's mean is resolved below 1; EV-TCI's one run leaves it open
    assert u.verdict == NOT_RESOLVED and "< 1" in u.paper and "1/2 resolved" in u.ours
    assert "straddles" in u.reason and "EV-TCI 0.74" in u.reason
    errors = _errors([("easy", "TaS", 0)])
    fast = _times(dict(BASE, **{"EV-TaS": 20}))
    c = _claim(_claims(errors, fast), "slightly better")
    assert c.verdict == DIFFERS and 'more than "slightly"' in c.reason and "[0.8, 1)" in c.paper


def test_below_delta_row_judges_the_ev_rules_wilson_interval_one_sided():
    """Section 4.2's "the empirical proportion of error is lower than δ even when using a
    heuristic, asymptotically tight threshold" (D280): each EV rule's Wilson interval
    against < δ; the adapted rules are printed beside, never judged."""
    key = ("lower than δ even when", "threshold, easy)")
    # 20 errors in 5000 runs: 0.004 [0.0026, 0.0062], entirely below δ = 0.01
    e = _errors([("easy", "EV-TaS", 20), ("easy", "TaS", 90)])
    c = _claim(_claims(e, _times(BASE)), *key)
    assert c.verdict == REPRODUCED and "beside (GLR stopping, not judged): TaS 90/5000" in c.ours
    assert "< δ = 0.01" in c.paper and "D280" in c.paper
    # 70 errors: 0.014 [0.011, 0.018], entirely above δ
    c = _claim(_claims(_errors([("easy", "EV-TaS", 70)]), _times(BASE)), *key)
    assert c.verdict == DIFFERS and "EV-TaS 0.014" in c.reason
    # 50 errors: 0.01 [0.0076, 0.013], straddles δ; a two-sided reading or the point alone
    # (0.01 is not < 0.01) would say otherwise
    c = _claim(_claims(_errors([("easy", "EV-TaS", 50)]), _times(BASE)), *key)
    assert c.verdict == NOT_RESOLVED and "EV-TaS 50/5000" in c.reason
    # 0 errors in 100 runs: upper bound 0.037, not resolved below δ
    c = _claim(_claims(_errors([("easy", "EV-TaS", 0)], runs=100), _times(BASE)), *key)
    assert c.verdict == NOT_RESOLVED
    # one EV rule above δ makes the row differ; only EV rules are judged
    e = _errors([("easy", "EV-TaS", 20), ("easy", "EV-TCI", 80), ("easy", "FHN2", 4000)])
    c = _claim(_claims(e, _times(BASE)), *key)
    assert c.verdict == DIFFERS and "EV-TCI" in c.reason and "FHN2" not in c.ours
    # no EV rule in an experiment: no row
    assert not [
        c for c in _claims(_errors([("easy", "TaS", 0)]), _times(BASE)) if key[0] in c.claim
    ]
