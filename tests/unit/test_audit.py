"""delta-correctness audit: instances, runs, cells, flags, explanation, claims."""

import math

import numpy as np
import pandas as pd
import pytest

from baiuv.experiments.stopping_times import Experiment, wilson_interval
from baiuv.model.instance import EASY, STANDARD, GaussianInstance
from baiuv.studies.audit import (
    AuditInstance,
    audit_instances,
    audit_n0,
    check_audit_config,
    instance_features,
    run_audit_shard,
)
from baiuv.studies.audit_report import (
    FEATURES,
    audit_cells,
    audit_claims,
    audit_markdown,
    audit_summary,
    explain_flagged,
    runs_to_resolve,
)

NAMED = {"standard": STANDARD.to_dict(), "easy": EASY.to_dict()}
SECTION = {
    "delta": 0.01,
    "algorithms": ["TCI", "EV-TCI", "FHN2"],
    "n0": [2, 4],
    "runs": 2,
    "named": ["standard"],
    "families": [
        {"name": "paper", "n_instances": 3, "K": 10},
        {"name": "K2", "n_instances": 2, "K": 2},
    ],
}


# ------------------------------------------------------------------ resolution
@pytest.mark.parametrize("delta", [0.1, 0.05, 0.01, 0.001])
@pytest.mark.parametrize("level", [0.9, 0.95, 0.99])
def test_runs_to_resolve_brute_force(delta, level):
    n = runs_to_resolve(delta, level)
    assert wilson_interval(0, n, level)[1] < delta
    assert wilson_interval(0, n - 1, level)[1] >= delta


def test_runs_to_resolve_paper_value_and_errors():
    assert runs_to_resolve(0.01) == 381  # z^2 (1 - delta)/delta = 380.3
    with pytest.raises(ValueError, match="delta"):
        runs_to_resolve(0.0)
    with pytest.raises(ValueError, match="level"):
        runs_to_resolve(0.01, 1.0)


# ------------------------------------------------------------------ instances
def test_instance_features_standard_by_hand():
    f = instance_features(STANDARD)
    assert f["K"] == 5
    assert f["min_gap"] == pytest.approx(0.15)
    assert f["var_ratio_best"] == pytest.approx(1.0 / 0.35)
    assert f["var_ratio_second"] == pytest.approx(1.0 / 0.6)
    # d = max_a gap_a^2 / min(s2_a, s2_best): gaps .15,.2,.3,.35 over .6,.5,.4,.35
    assert f["d"] == pytest.approx(max(0.15**2 / 0.6, 0.2**2 / 0.5, 0.3**2 / 0.4, 0.35**2 / 0.35))
    assert f["ratio_T"] == pytest.approx(f["T_star"] / f["T_star_known"])
    assert set(FEATURES) == set(f)
    with pytest.raises(ValueError, match="instance"):
        instance_features((1, 2))


def test_audit_instances_are_the_engine_random_instances():
    out = audit_instances(SECTION, NAMED, seed=11)
    assert [a.instance_id for a in out] == [
        "standard",
        "paper-0",
        "paper-1",
        "paper-2",
        "K2-0",
        "K2-1",
    ]
    exp = Experiment("audit_paper", "random", 1, None, 3, 10)
    for i in range(3):
        np.testing.assert_array_equal(out[1 + i].instance.mu, exp.instance_at(i, 11)[1].mu)
    assert out[4].instance.K == 2
    again = audit_instances(SECTION, NAMED, seed=11)
    assert all(
        np.array_equal(a.instance.sigma2, b.instance.sigma2)
        for a, b in zip(out, again, strict=True)
    )


@pytest.mark.parametrize(
    "change, match",
    [
        ({"named": ["nope"]}, r"audit.named\[0\]"),
        ({"families": [{"name": "F", "K": 3}]}, r"audit.families\[0\] \(F\).n_instances"),
        (
            {"families": [{"name": "F", "n_instances": 2, "gap_range": [1.0, 0.5]}]},
            r"audit.families\[0\] \(F\)",
        ),
        ({"families": [{"n_instances": 2}]}, r"audit.families\[0\] \(\).name"),
        ({"families": [{"name": "F", "n_instances": 1}] * 2}, "duplicate family"),
        ({"algorithms": ["nope"]}, r"audit.algorithms\[0\]"),
        ({"n0": [1]}, "audit.n0"),
        ({"named": [], "families": []}, "at least one"),
    ],
)
def test_audit_config_errors(change, match):
    check_audit_config(SECTION, NAMED)
    with pytest.raises(ValueError, match=match):
        check_audit_config({**SECTION, **change}, NAMED)


def test_audit_n0_fhn_uses_its_own_initial_size():
    assert audit_n0("TCI", [2, 4, 10], 0.01, None) == [2, 4, 10]
    assert audit_n0("FHN2", [2, 4, 10], 0.01, None) == [47]
    assert audit_n0("FHN1", [2, 4], 0.01, 20) == [20]


# ------------------------------------------------------------------ runs
def test_shards_equal_full_run_and_rows():
    insts = audit_instances(
        {**SECTION, "families": [{"name": "K2", "n_instances": 2, "K": 2}]}, NAMED, 3
    )
    full = run_audit_shard(insts, "EV-TCI", 2, runs=3, seed=3)
    parts = pd.concat(
        [
            run_audit_shard(insts, "EV-TCI", 2, runs=3, seed=3, n_shards=4, shard=s)
            for s in range(4)
        ],
        ignore_index=True,
    )
    cols = ["instance", "run", "stopping_time", "correct"]
    pd.testing.assert_frame_equal(full[cols], parts[cols])
    assert len(full) == 9 and list(full["run"][:3]) == [0, 1, 2]
    assert (full["n0"] == 2).all() and (full["family"][3:] == "K2").all()
    fhn = run_audit_shard(insts[:1], "FHN2", 47, runs=1, seed=3)
    assert fhn["stopping_time"].iloc[0] >= 47 * STANDARD.K


def test_run_audit_shard_rejects_bad_input():
    insts = [AuditInstance("standard", "named", STANDARD)]
    with pytest.raises(ValueError, match="runs"):
        run_audit_shard(insts, "TCI", 2, runs=0, seed=0)
    with pytest.raises(ValueError, match="n0"):
        run_audit_shard(insts, "TCI", 1, runs=2, seed=0)
    with pytest.raises(ValueError, match="algorithm"):
        run_audit_shard(insts, "nope", 2, runs=2, seed=0)


@pytest.mark.slow
def test_audit_detects_ev_starvation_with_n0_2_monte_carlo():
    """Decision D50 through the audit: on the standard instance, EV-TCI with n0 = 2 errs
    in several percent of the runs (cell flagged: Wilson interval above delta = 0.01), while
    TCI (GLR) with n0 = 2 and EV-TCI with n0 = 10 are not flagged."""
    insts = [AuditInstance("standard", "named", STANDARD)]
    runs = pd.concat(
        [
            run_audit_shard(insts, "EV-TCI", 2, runs=400, seed=1),
            run_audit_shard(insts, "EV-TCI", 10, runs=400, seed=1),
            run_audit_shard(insts, "TCI", 2, runs=400, seed=1),
        ],
        ignore_index=True,
    )
    feats = pd.DataFrame([{"instance": "standard", **instance_features(STANDARD)}])
    cells = audit_cells(runs, feats, delta=0.01).set_index(["algorithm", "n0"])
    assert cells.loc[("EV-TCI", 2), "flagged"]
    assert not cells.loc[("EV-TCI", 10), "flagged"]
    assert not cells.loc[("TCI", 2), "flagged"]
    assert cells.loc[("EV-TCI", 10), "error_rate"] < cells.loc[("EV-TCI", 2), "error_rate"]


# ------------------------------------------------------------------ cells, summary, text
def _synthetic_cells(n_inst=20, runs=200, seed=0):
    """EV-TCI n0=2 errs at 10 % on instances with var_ratio_best > 5, 0 % elsewhere; TCI
    never errs."""
    rng = np.random.default_rng(seed)
    feats, rows = [], []
    for i in range(n_inst):
        vr = float(rng.uniform(1, 10))
        feats.append(
            {
                "instance": f"i{i}",
                "K": 10,
                "min_gap": rng.uniform(0.2, 1),
                "var_ratio_best": vr,
                "var_ratio_second": float(rng.uniform(1, 10)),
                "d": 1.0,
                "T_star": 100.0,
                "T_star_known": 99.0,
                "ratio_T": 1.01,
            }
        )
        for alg, n0 in [("EV-TCI", 2), ("EV-TCI", 10), ("TCI", 2)]:
            p = 0.1 if (alg == "EV-TCI" and n0 == 2 and vr > 5) else 0.0
            err = rng.random(runs) < p
            for r in range(runs):
                rows.append(
                    {
                        "instance": f"i{i}",
                        "family": "paper",
                        "algorithm": alg,
                        "n0": n0,
                        "run": r,
                        "stopping_time": 100,
                        "correct": not err[r],
                        "truncated": False,
                    }
                )
    return pd.DataFrame(rows), pd.DataFrame(feats)


def test_cells_flag_exactly_the_intervals_above_delta():
    runs, feats = _synthetic_cells()
    cells = audit_cells(runs, feats, delta=0.01)
    for r in cells.itertuples():
        lo, hi = wilson_interval(r.errors, r.runs)
        assert r.flagged == (lo > 0.01)
        assert r.wilson_low == pytest.approx(lo)
    ev2 = cells[(cells.algorithm == "EV-TCI") & (cells.n0 == 2)]
    assert (ev2["flagged"] == (ev2["var_ratio_best"] > 5)).all()
    assert not cells[cells.algorithm == "TCI"]["flagged"].any()
    s = audit_summary(cells, delta=0.01).set_index(["algorithm", "n0"])
    assert s.loc[("EV-TCI", 2), "flagged"] == int(ev2["flagged"].sum())
    assert s.loc[("EV-TCI", 2), "errors"] == int(ev2["errors"].sum())
    assert s.loc[("TCI", 2), "runs"] == 20 * 200
    assert s.loc[("EV-TCI", 2), "max_cell_error_rate"] == pytest.approx(ev2["error_rate"].max())
    with pytest.raises(ValueError, match="features"):
        audit_cells(runs, feats.iloc[:3], delta=0.01)
    with pytest.raises(ValueError, match="columns"):
        audit_cells(runs.drop(columns="n0"), feats, delta=0.01)


def test_explanation_names_the_separating_feature():
    runs, feats = _synthetic_cells()
    cells = audit_cells(runs, feats, delta=0.01)
    text = explain_flagged(cells, delta=0.01)
    feature_lines = [ln for ln in text.splitlines() if ln.strip().startswith("- `")]
    assert feature_lines[0].strip().startswith("- `var_ratio_best`")
    assert "AUC 1.00" in feature_lines[0]
    assert "EV-GLR" in text and "n0 = 2" in text and "larger `var_ratio_best`" in text
    assert "Hypothesis (decision D50" in text and "overstate" in text


def test_one_error_flag_is_named():
    """With 4 runs per cell one error puts the Wilson lower bound above δ: said so."""
    runs, feats = _synthetic_cells()
    few = runs[runs.run < 4]
    cells = audit_cells(few, feats, delta=0.01)
    if cells["flagged"].any():
        assert "a single error already puts" in explain_flagged(cells, delta=0.01)
    many = audit_cells(runs, feats, delta=0.01)
    assert "a single error already puts" not in explain_flagged(many, delta=0.01)


def test_explanation_without_flags_counts_runs():
    runs, feats = _synthetic_cells()
    runs = runs[runs.algorithm == "TCI"]
    cells = audit_cells(runs, feats, delta=0.01)
    text = explain_flagged(cells, delta=0.01)
    assert text.startswith("No cell is flagged: 20 cells, 4000 runs")
    few = audit_cells(runs[runs.run < 5], feats, delta=0.01)
    assert "cannot resolve" in explain_flagged(few, delta=0.01)


def test_markdown_and_claims():
    from baiuv.claims import DIFFERS, NOT_RESOLVED, REPRODUCED

    runs, feats = _synthetic_cells()
    cells = audit_cells(runs, feats, delta=0.01)
    summary = audit_summary(cells, delta=0.01)
    flagged_md, summary_md = audit_markdown(cells, summary, delta=0.01)
    n_flag = int(cells["flagged"].sum())
    assert flagged_md.count("| EV-TCI |") == n_flag > 0
    assert "| TCI | GLR | 2 | 20 | 4000 | 0 |" in summary_md
    assert "cannot resolve" in summary_md  # 200 runs per cell < 381
    claims = {c.claim: c for c in audit_claims(summary, cells, delta=0.01)}
    glr = [c for k, c in claims.items() if "GLR stopping, n0 = 2" in k][0]
    assert glr.verdict == NOT_RESOLVED  # 0 errors in 4000 runs: upper 9.6e-4 > 1e-4
    ev2 = [c for k, c in claims.items() if "EV-GLR" in k and "n0 = 2" in k][0]
    ev10 = [c for k, c in claims.items() if "EV-GLR" in k and "n0 = 10" in k][0]
    assert ev2.verdict == DIFFERS and ev10.verdict == REPRODUCED
    big = audit_cells(
        pd.concat([runs[runs.algorithm == "TCI"]] * 1, ignore_index=True), feats, delta=0.01
    )
    big["runs"] *= 10  # pretend 40000 runs without error
    assert [c for c in audit_claims(audit_summary(big, delta=0.01), big, delta=0.01)][
        0
    ].verdict == REPRODUCED


def test_audit_figure_smoke():
    from baiuv.plotting.asymptotic import audit_figure

    runs, feats = _synthetic_cells(n_inst=5, runs=20)
    s = audit_summary(audit_cells(runs, feats, delta=0.01), delta=0.01)
    fig = audit_figure(s, 0.01)
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["EV-TCI", "TCI"]
    assert any(
        math.isclose(line.get_ydata()[0], 0.01)
        for line in ax.get_lines()
        if len(line.get_ydata()) == 2
    )
    # the legend sits outside the plotting area, so it never hides a point
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    legend_box = ax.get_legend().get_window_extent(renderer)
    axes_box = ax.get_window_extent(renderer)
    assert legend_box.x0 >= axes_box.x1
    with pytest.raises(ValueError, match="delta"):
        audit_figure(s, 1.5)


def test_audit_instance_validation():
    with pytest.raises(ValueError, match="instance_id"):
        AuditInstance("", "named", STANDARD)
    with pytest.raises(ValueError, match="GaussianInstance"):
        AuditInstance("x", "named", GaussianInstance)
