"""Summaries (Wilson intervals, mean ± s.e.) and the stopping-time figure."""

import math

import numpy as np
import pandas as pd
import pytest

from baiuv.experiments.stopping_times import error_rates, stopping_time_summary, wilson_interval


@pytest.mark.parametrize("k,n", [(0, 10), (1, 200), (5, 50), (50, 50), (123, 1000)])
def test_wilson_is_root_of_score_equation(k, n):
    """Wilson bounds are the roots p of (k/n - p)^2 = z^2 p (1 - p) / n."""
    z = 1.959963984540054
    ph = k / n
    # (1 + z^2/n) p^2 - (2 ph + z^2/n) p + ph^2 = 0
    roots = np.sort(np.roots([1 + z * z / n, -(2 * ph + z * z / n), ph * ph]).real)
    lo, hi = wilson_interval(k, n)
    assert lo == pytest.approx(max(0.0, roots[0]), abs=1e-12)
    assert hi == pytest.approx(min(1.0, roots[1]), abs=1e-12)


def test_wilson_bad_input():
    with pytest.raises(ValueError, match="n must"):
        wilson_interval(0, 0)
    with pytest.raises(ValueError, match="errors"):
        wilson_interval(3, 2)
    with pytest.raises(ValueError, match="level"):
        wilson_interval(1, 2, level=1.0)


def _toy():
    rng = np.random.default_rng(0)
    rows = []
    for exp, lb in (("standard", 100.0), ("random", 50.0)):
        for alg in ("TaS", "EV-TaS", "uniform"):
            for r in range(40):
                rows.append(
                    dict(
                        experiment=exp,
                        algorithm=alg,
                        run=r,
                        stopping_time=int(rng.integers(50, 500)),
                        correct=bool(r % 20),
                        truncated=False,
                        lower_bound=lb + (r % 2) * 10,
                        reference_line=1.2 * (lb + (r % 2) * 10),
                    )
                )
    return pd.DataFrame(rows)


def test_summaries():
    df = _toy()
    er = error_rates(df)
    assert (er["errors"] == 2).all() and (er["runs"] == 40).all()
    assert er["error_rate"].iloc[0] == pytest.approx(0.05)
    st = stopping_time_summary(df)
    g = df[(df.experiment == "standard") & (df.algorithm == "TaS")]["stopping_time"]
    row = st[(st.experiment == "standard") & (st.algorithm == "TaS")].iloc[0]
    assert row["mean"] == pytest.approx(g.mean())
    assert row["se"] == pytest.approx(g.std(ddof=1) / math.sqrt(len(g)))
    assert row["lower_bound"] == pytest.approx(105.0)  # mean over instances (D49)
    assert row["reference_line"] == pytest.approx(126.0)
    assert row["ratio_to_bound"] == pytest.approx(g.mean() / 105.0)
    assert "init_share" not in st.columns  # only with n0 and fhn_n0


def test_figure_has_one_panel_per_experiment():
    from baiuv.plotting.simulation import stopping_time_figure

    fig = stopping_time_figure(_toy(), ["random", "standard"], ["TaS", "EV-TaS", "uniform"])
    axes = [ax for ax in fig.axes if ax.get_title()]
    assert len(axes) == 2
    # dashed: the line of Figure 2 (T* ln(1/δ)); dotted: Lemma 2's bound T* ln(1/(2.4δ))
    ys = [ln.get_ydata()[0] for ln in axes[1].get_lines() if ln.get_linestyle() == "--"]
    assert ys and ys[0] == pytest.approx(126.0)
    ys = [ln.get_ydata()[0] for ln in axes[1].get_lines() if ln.get_linestyle() == ":"]
    assert ys and ys[0] == pytest.approx(105.0)
    with pytest.raises(ValueError, match="columns"):
        stopping_time_figure(pd.DataFrame({"x": [1]}))


def test_log_box_stats_whiskers_in_log_space():
    """Whiskers at 1.5 interquartile ranges of log10(τ): a value 100 times below the median
    is an outlier in log space, where in linear space the lower whisker would run to it."""
    from matplotlib import cbook

    from baiuv.plotting.simulation import log_box_stats

    x = np.array([1.0, 100, 100, 100, 1000, 1000])
    st = log_box_stats(x, "a")
    assert st["med"] == pytest.approx(100.0)
    assert st["q1"] == pytest.approx(100.0) and st["q3"] == pytest.approx(100.0 * 10**0.75)
    assert list(st["fliers"]) == pytest.approx([1.0]) and st["whislo"] == pytest.approx(100.0)
    (linear,) = cbook.boxplot_stats(x)
    assert len(linear["fliers"]) == 0 and linear["whislo"] == 1.0  # what the old figure drew
    assert st["mean"] == pytest.approx(x.mean())
    with pytest.raises(ValueError, match="positive"):
        log_box_stats(np.array([0.0, 1.0]), "a")


def test_collapsed_box_share_counted_from_the_data():
    """A box whose quartiles coincide (FHN stopping at its initialisation on the easy
    instance) is annotated with the share of runs at that value, counted here by hand."""
    from baiuv.plotting.simulation import collapsed_box, collapsed_label

    x = np.array([235.0] * 23 + [239.0, 250.0, 301.0])  # 23 of 26 at 235: 88 %
    value, share = collapsed_box(x)
    assert value == 235.0 and share == pytest.approx(23 / 26)
    assert collapsed_label(value, share) == "88 % of\nruns at\nτ = 235"
    assert collapsed_box(np.array([10.0, 20.0, 30.0, 40.0])) is None
    with pytest.raises(ValueError, match="non-empty"):
        collapsed_box(np.array([]))


def test_figure_annotates_collapsed_boxes_only(tmp_path):
    """In the figure, the flat box carries the share of its runs at its value; the others
    carry nothing; the figure is byte-identical when drawn twice."""
    from baiuv.plotting.simulation import stopping_time_figure
    from baiuv.storage.io import save_figure

    df = _toy()
    flat = (df.algorithm == "uniform") & (df.experiment == "standard")
    df.loc[flat, "stopping_time"] = np.where(
        df.loc[flat, "run"] < 31, 235, 300 + df.loc[flat, "run"]
    )
    fig = stopping_time_figure(df, ["random", "standard"], ["TaS", "EV-TaS", "uniform"])
    axes = [ax for ax in fig.axes if ax.get_title()]
    assert [t.get_text() for t in axes[0].texts] == []
    (text,) = axes[1].texts
    assert text.get_text() == "78 % of\nruns at\nτ = 235"  # 31 of 40 runs
    assert text.xy == (3, 235.0)  # the third box
    paths = [tmp_path / "a.png", tmp_path / "b.png"]
    for p in paths:
        save_figure(
            stopping_time_figure(df, ["random", "standard"], ["TaS", "EV-TaS", "uniform"]), [p]
        )
    assert paths[0].read_bytes() == paths[1].read_bytes()
