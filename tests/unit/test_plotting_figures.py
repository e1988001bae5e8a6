"""What the stopping-time, characteristic-time and remedy figures draw: the ratio's
excess over 1 on its own log axis, the runs stopped at the first check marked with their
share, zero-error remedy cells drawn at their Wilson upper end with their own marker."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from baiuv.plotting.characteristic import excess_floor, ratio_figure
from baiuv.plotting.ev_remedies import RULE_MARKERS, ZERO_MARKER, remedies_figure
from baiuv.plotting.simulation import first_check_share, stopping_time_figure


def _lines(ax, marker):
    return [ln for ln in ax.get_lines() if ln.get_marker() == marker]


# ---------------------------------------------------------------- characteristic times
def _sweeps(var_ratio):
    x = np.logspace(-2, 2, len(var_ratio))
    gap = pd.DataFrame({"gap": x, "ratio": 1.0 + x, "bound": 2.0 + x})
    var = pd.DataFrame({"r": x, "ratio": var_ratio, "bound": np.asarray(var_ratio) + 1.0})
    return gap, var


def test_ratio_excess_over_one_has_its_own_log_axis():
    ratio = np.linspace(1.02, 1.00002, 30)  # the 1.00-1.02 of the variance sweep
    fig = ratio_figure(*_sweeps(ratio), r_fixed=0.5, gap_fixed=0.2)
    try:
        top, low = fig.axes[1], fig.axes[3]
        assert top.get_yscale() == "log" and low.get_yscale() == "log"
        (line,) = low.get_lines()
        np.testing.assert_allclose(line.get_ydata(), ratio - 1.0)
        bottom, top_lim = low.get_ylim()
        # the axis spans the excess (2e-5 .. 2e-2), not a log axis starting at 1
        assert top_lim < 1.0 and bottom < 2e-5 and top_lim > 2e-2
        assert np.log10(top_lim / bottom) >= 3.0
    finally:
        plt.close(fig)


def test_a_ratio_not_above_one_is_drawn_as_a_cross_not_dropped():
    ratio = np.array([1.01, 1.001, 1.0, 0.999, 1.0002])
    fig = ratio_figure(*_sweeps(ratio), r_fixed=0.5, gap_fixed=0.2)
    try:
        low = fig.axes[3]
        (crosses,) = _lines(low, "x")
        assert len(crosses.get_xdata()) == 2
        floor = excess_floor(ratio - 1.0)
        assert floor == pytest.approx(1e-5)
        np.testing.assert_allclose(crosses.get_ydata(), floor)
        assert low.get_ylim()[0] < floor
    finally:
        plt.close(fig)


# ---------------------------------------------------------------- stopping times
def _runs():
    rng = np.random.default_rng(3)
    rows = []
    for alg, at_first in (("TaS", 0), ("EV-TaS", 30), ("FHN1", 0)):
        tau = np.exp(rng.normal(4.0, 0.5, 100)).round() + 11
        tau[:at_first] = 10.0  # n0 * K = 2 * 5
        if alg == "FHN1":
            tau[:] = 235.0
        for t in tau:
            rows.append(("easy", alg, t, 5, 20.0, 25.0))
    cols = ["experiment", "algorithm", "stopping_time", "K", "lower_bound", "reference_line"]
    return pd.DataFrame(rows, columns=cols)


def test_first_check_share_counts_runs_at_n0_times_k():
    assert first_check_share([10, 10, 11, 20], [10, 10, 10, 10]) == 0.5
    with pytest.raises(ValueError, match="one shape"):
        first_check_share([10, 11], [10])


def test_runs_stopped_at_the_first_check_are_marked_with_their_share():
    fig = stopping_time_figure(_runs(), n0=2)
    try:
        ax = fig.axes[0]
        (diamond,) = [ln for ln in _lines(ax, "D") if ln.get_markeredgecolor() == "red"]
        assert list(diamond.get_xdata()) == [2] and list(diamond.get_ydata()) == [10.0]
        texts = [t.get_text() for t in ax.texts]
        assert "30 %" in texts
        assert any("235" in t for t in texts)  # FHN's collapsed box keeps its own label
        assert ax.get_ylim()[0] < 10.0
        legend = [t.get_text() for lg in fig.legends for t in lg.get_texts()]
        assert any("fences on log τ" in t for t in legend)
        assert any("n0·K" in t for t in legend)
    finally:
        plt.close(fig)


def test_no_first_check_marker_without_n0_and_n0_needs_k():
    fig = stopping_time_figure(_runs())
    try:
        assert not [ln for ln in _lines(fig.axes[0], "D") if ln.get_markeredgecolor() == "red"]
    finally:
        plt.close(fig)
    with pytest.raises(ValueError, match="column K"):
        stopping_time_figure(_runs().drop(columns="K"), n0=2)


# ---------------------------------------------------------------- remedies
def _cells():
    rows = []
    for g in ("standard", "easy"):
        for k, alg in enumerate(("EV-TaS", "EV-TCI", "EV-DKM", "EV-FWS")):
            for rem, errors in (("heuristic n0=2", 3 + k), ("ev-box n0=2", 0)):
                rate = errors / 100
                rows.append(
                    dict(
                        group=g,
                        algorithm=alg,
                        remedy=rem,
                        errors=errors,
                        error_rate=rate,
                        wilson_low=rate / 3,
                        wilson_high=0.037 if errors == 0 else rate * 2,
                        resolved=False,
                        cost_vs_paper=1.0 + k if errors else 5.0 + k,
                    )
                )
    return pd.DataFrame(rows)


def test_zero_error_cells_are_drawn_at_their_wilson_upper_end_with_their_own_marker():
    cells = _cells()
    fig = remedies_figure(cells, 0.01)
    try:
        ax_err = fig.axes[0]
        zero = _lines(ax_err, ZERO_MARKER)
        assert len(zero) == 4
        assert all(list(z.get_xdata()) == [0.037] for z in zero)
        # a measured cell sits at its point estimate, in its rule's own shape
        measured = [ln for m in RULE_MARKERS[:4] for ln in _lines(ax_err, m)]
        assert sorted(float(ln.get_xdata()[0]) for ln in measured) == [0.03, 0.04, 0.05, 0.06]
        assert not any(float(ln.get_xdata()[0]) == 0.037 for ln in measured)
        assert len(set(RULE_MARKERS[:4])) == 4 and ZERO_MARKER not in RULE_MARKERS
        legend = [t.get_text() for lg in fig.legends for t in lg.get_texts()]
        assert any("0 errors" in t for t in legend)
    finally:
        plt.close(fig)


def test_remedy_cells_are_dodged_apart():
    fig = remedies_figure(_cells(), 0.01)
    try:
        ys = [float(ln.get_ydata()[0]) for ln in _lines(fig.axes[1], "o")]
        ys += [float(ln.get_ydata()[0]) for m in RULE_MARKERS[1:4] for ln in _lines(fig.axes[1], m)]
        assert len(ys) == 8 and len(set(ys)) == 8  # 2 remedies x 4 rules, no two on one row
    finally:
        plt.close(fig)
    with pytest.raises(ValueError, match="columns"):
        remedies_figure(_cells().drop(columns="errors"), 0.01)
