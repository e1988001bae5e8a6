"""The figures read their palettes and groupings from the registry: a sampling rule or a
threshold family added to the registry's tables gets its own colour (and the EV version of a
family its family's colour) in the stopping-time, δ-correct, asymptotic and threshold
figures, without any edit of the plotting code."""

from __future__ import annotations

import matplotlib
import numpy as np
import pandas as pd
import pytest
from matplotlib.colors import to_rgb
from test_registry import with_records

from baiuv.plotting.asymptotic import asymptotic_figure
from baiuv.plotting.delta_correct import delta_correct_figure
from baiuv.plotting.simulation import stopping_time_figure
from baiuv.plotting.style import (
    REFERENCE_COLOUR,
    algorithm_colours,
    threshold_colours,
    threshold_markers,
    threshold_order,
)
from baiuv.plotting.thresholds import figure_families, threshold_figure
from baiuv.registry import (
    RULE_UNIFORM,
    THRESHOLD_FAMILIES,
    Algorithm,
    ThresholdFamily,
)

matplotlib.use("Agg")


@pytest.fixture
def toy(monkeypatch):
    """A toy rule with both wrappers and a toy threshold family with its EV version, in
    the registry's tables for one test (test_registry.with_records)."""
    with_records(
        monkeypatch,
        Algorithm(
            name="toy",
            kernel="glr",
            rule=RULE_UNIFORM,
            plug_in=False,
            family="toy",
            wrapper="adapted",
            description="toy rule",
        ),
        Algorithm(
            name="EV-toy",
            kernel="glr",
            rule=RULE_UNIFORM,
            plug_in=True,
            family="toy",
            wrapper="EV",
            description="toy rule, EV",
        ),
        ThresholdFamily(name="tiny", code=90, rules=("GLR",)),
        ThresholdFamily(name="ev-tiny", code=91, rules=("EV-GLR",)),
    )


def _rgb(c) -> tuple:
    return tuple(np.round(to_rgb(c), 6))


def _line_colours(fig) -> dict[str, tuple]:
    """Colour of every labelled line of the figure's legends and axes."""
    out = {}
    handles = [h for leg in fig.legends for h in leg.legend_handles]
    handles += [h for ax in fig.axes for h in ax.get_legend_handles_labels()[0]]
    for h in handles:
        if hasattr(h, "get_color"):
            out[h.get_label()] = _rgb(h.get_color())
    return out


def test_style_gives_a_new_family_its_own_colour_and_marker(toy):
    col = threshold_colours()
    assert {"tiny", "ev-tiny"} <= set(col)
    assert col["tiny"] == col["ev-tiny"] == threshold_colours(["tiny-lazy"])["tiny-lazy"]
    others = {_rgb(c) for f, c in col.items() if f not in ("tiny", "ev-tiny")}
    assert _rgb(col["tiny"]) not in others
    assert _rgb(col["heuristic"]) == _rgb(REFERENCE_COLOUR)
    # colours of the paper's families do not depend on what else is registered
    assert (
        col["bob"] == threshold_colours(["bob"])["bob"] == threshold_colours(["kl", "bob"])["bob"]
    )
    assert threshold_colours(["box"])["box"] != threshold_colours(["bob"])["bob"]
    mk = threshold_markers()
    assert mk["heuristic"] is None and mk["tiny"] == mk["ev-tiny"]
    assert mk["tiny"] not in {m for f, m in mk.items() if f not in ("tiny", "ev-tiny")}
    # order: the reference first, each base with its EV version, lazy variants last
    assert threshold_order(["ev-tiny", "bob-lazy", "tiny", "box", "heuristic", "ev-box"]) == [
        "heuristic",
        "box",
        "ev-box",
        "tiny",
        "ev-tiny",
        "bob-lazy",
    ]
    algs = algorithm_colours(["TaS", "EV-TaS", "toy", "EV-toy"])
    assert algs["toy"] == algs["EV-toy"] != algs["TaS"] == algs["EV-TaS"]


def test_threshold_figures_draw_a_new_family(toy):
    glr = figure_families("glr")
    refs = [f for f in glr if not THRESHOLD_FAMILIES[f].delta_correct]  # drawn last
    assert "heuristic" in refs and glr[-len(refs) :] == refs and "tiny" in glr
    assert "ev-tiny" in figure_families("evglr") and "tiny" not in figure_families("evglr")
    every = figure_families("all")
    assert every.index("tiny") < every.index("ev-student")  # GLR families first
    with pytest.raises(ValueError, match="which"):
        figure_families("ev")
    x = np.array([1.0, 2.0, 3.0])
    df = pd.DataFrame(
        [{"family": f, "x": v, "value": v + k} for k, f in enumerate(every) for v in x]
    )
    fig = threshold_figure(df, df, every, t_fixed=10, delta_fixed=0.1)
    lines = _line_colours(fig)
    col = threshold_colours()
    assert lines["tiny"] == lines["ev-tiny"] == _rgb(col["tiny"])
    assert lines["BoB"] == _rgb(col["bob"]) != lines["tiny"]


def _delta_correct_summary(algorithms, thresholds) -> pd.DataFrame:
    rows = [
        {
            "instance": "standard",
            "algorithm": a,
            "threshold": t,
            "mean": 100.0 + k,
            "se": 1.0,
            "error_rate": 0.0,
            "wilson_low": 0.0,
            "wilson_high": 0.01,
            "lower_bound": 50.0,
        }
        for a in algorithms
        for k, t in enumerate(thresholds)
    ]
    return pd.DataFrame(rows)


def test_delta_correct_figure_colours_a_new_family(toy):
    thresholds = ["heuristic", "bob", "ev-tiny", "tiny", "bob-lazy"]
    fig = delta_correct_figure(
        _delta_correct_summary(["TaS", "toy"], thresholds), ["standard"], ["TaS", "toy"], 0.01
    )
    lines = _line_colours(fig)
    col = threshold_colours()
    assert list(lines)[:4] == ["heuristic", "bob", "tiny / ev-tiny", "bob-lazy"]
    assert lines["tiny / ev-tiny"] == _rgb(col["tiny"])
    assert lines["heuristic"] == _rgb(REFERENCE_COLOUR)
    assert lines["bob"] == lines["bob-lazy"] == _rgb(col["bob"]) != lines["tiny / ev-tiny"]
    ax = fig.axes[0]
    assert [t.get_text() for t in fig.axes[1].get_xticklabels()] == ["TaS", "toy"]
    drawn = {_rgb(line.get_color()) for line in ax.get_lines()}
    assert _rgb(col["tiny"]) in drawn


def _asymptotic_summary(cells) -> pd.DataFrame:
    rows = []
    for alg, thr in cells:
        for x in (10.0, 100.0):
            rows.append(
                {
                    "instance": "two_arm",
                    "algorithm": alg,
                    "threshold": thr,
                    "log_inv_delta": x,
                    "ratio": 5.0,
                    "ratio_low": 4.5,
                    "ratio_high": 5.5,
                    "theory": 5.0,
                    "constant": "T_star",
                    "T_star": 5.0,
                }
            )
    return pd.DataFrame(rows)


def test_asymptotic_figure_colours_by_registered_family(toy):
    cells = [("EV-toy", "heuristic"), ("TaS", "kl"), ("toy", "tiny"), ("EV-TaS", "bob")]
    fig = asymptotic_figure(_asymptotic_summary(cells))
    # default columns: algorithms in registry order (the toy rules, registered last, last)
    titles = [ax.get_title() for ax in fig.axes]
    assert [t.split(",")[0] for t in titles] == ["TaS", "EV-TaS", "toy", "EV-toy"]
    assert titles[2] == "toy, tiny threshold"
    colour = [_rgb(ax.get_lines()[0].get_color()) for ax in fig.axes]
    expected = algorithm_colours(["TaS", "EV-TaS", "toy", "EV-toy"])
    assert colour == [_rgb(expected[a]) for a in ("TaS", "EV-TaS", "toy", "EV-toy")]
    assert colour[0] == colour[1] != colour[2] == colour[3]


def test_stopping_time_figure_groups_a_new_rule_with_its_wrapper(toy):
    rng = np.random.default_rng(0)
    algs = ["TaS", "EV-TaS", "toy", "EV-toy"]
    df = pd.DataFrame(
        {
            "experiment": "standard",
            "algorithm": np.repeat(algs, 5),
            "stopping_time": rng.uniform(50, 100, 20),
            "lower_bound": 40.0,
            "reference_line": 48.0,
        }
    )
    fig = stopping_time_figure(df)
    ax = fig.axes[0]
    boxes = [p for p in ax.patches if p.get_hatch() is not None or p.get_facecolor()]
    faces = [_rgb(p.get_facecolor()) for p in ax.patches][:4]
    hatched = [bool(p.get_hatch()) for p in ax.patches][:4]
    assert len(boxes) >= 4
    assert faces[2] == faces[3] != faces[0] == faces[1]
    assert hatched == [False, True, False, True]
    # one separator between the two families (x = 2.5), none inside a family
    seps = [line.get_xdata()[0] for line in ax.get_lines() if line.get_linestyle() == "-"]
    assert 2.5 in seps and 1.5 not in seps and 3.5 not in seps
