"""BoB slope study (decision D171): where BoB's slope in ln(1/delta) joins KL's."""

import math

import numpy as np
import pandas as pd
import pytest

from baiuv.experiments.bob_slope import (
    bob_slope_curves,
    bob_slope_markdown,
    bob_slope_summary,
    local_slopes,
)


def _synthetic(join=30.0):
    """BoB = min(Box-like slope 2, KL-like slope 1) kink at ``join``; bound above BoB."""
    x = np.geomspace(1, 400, 40)
    kl = 20 + 1.0 * x
    box = 20 - join + 2.0 * x  # equals kl at x = join
    bob = np.minimum(kl, box)
    rows = []
    for fam, v in (
        ("bob", bob),
        ("kl", kl),
        ("box", box),
        ("kl(δ/2)", kl + 0.7),
        ("box(δ/2)", box + 1.4),
    ):
        rows += [dict(t=5000, x=a, family=fam, value=b) for a, b in zip(x, v, strict=True)]
    return pd.DataFrame(rows)


def test_local_slopes_of_linear_pieces():
    ls = local_slopes(_synthetic()).set_index(["family", "x"])["slope"]
    kl = ls.loc["kl"]
    np.testing.assert_allclose(kl.to_numpy(), 1.0)
    box = ls.loc["box"]
    np.testing.assert_allclose(box.to_numpy(), 2.0)


def test_join_found_where_slopes_meet():
    for join in (10.0, 30.0, 100.0):
        s = bob_slope_summary(_synthetic(join), tol=0.1).iloc[0]
        assert join <= s["join_log_inv_delta"] <= join * 1.4  # first midpoint past the kink
        assert s["bob_tail_slope"] == pytest.approx(1.0)
        assert s["points_above_bound"] == 0
        # KL(δ/2) = 20.7 + x < Box(δ/2) = 21.4 - join + 2x from x > join - 0.7
        x = np.geomspace(1, 400, 40)
        assert s["kl_half_below_box_half_from"] == x[x > join - 0.7][0]
        text = bob_slope_markdown(bob_slope_summary(_synthetic(join), tol=0.1), _synthetic(join))
        assert f"KL(δ/2) is below Box(δ/2) from ln(1/δ) ≈ {x[x > join - 0.7][0]:.3g}" in text
        assert "holds for our BoB" in text
    bad = _synthetic()
    bad.loc[(bad.family == "bob") & (bad.x > 100), "value"] += 50
    assert bob_slope_summary(bad).iloc[0]["points_above_bound"] > 0
    assert "does not hold for our BoB" in bob_slope_markdown(bob_slope_summary(bad), bad)
    never = _synthetic(join=1000.0)
    assert math.isinf(bob_slope_summary(never).iloc[0]["join_log_inv_delta"])


def test_real_curves_bob_below_bound_and_joins_kl():
    """On the figures' stream: BoB ≤ min(Box(δ/2), KL(δ/2)) everywhere, its slope is
    Box-like at small ln(1/δ) and KL's at large ln(1/δ) (t = 50 000)."""
    x = np.geomspace(2, 300, 12)
    c = bob_slope_curves(x, [50000], streams=1)
    w = c.pivot(index="x", columns="family", values="value")
    assert (w["bob"] <= np.minimum(w["kl(δ/2)"], w["box(δ/2)"]) * (1 + 1e-9)).all()
    s = bob_slope_summary(c, tail_points=3).iloc[0]
    assert s["bob_tail_slope"] == pytest.approx(s["kl_tail_slope"], rel=0.02)
    assert s["bob_figure_slope"] > 1.5 * s["kl_figure_slope"]
    assert 10 < s["join_log_inv_delta"] < 100
    text = bob_slope_markdown(bob_slope_summary(c, tail_points=3), c)
    assert "| 50000 |" in text and "D171" in text


def test_bad_input():
    with pytest.raises(ValueError, match="log_inv_delta"):
        bob_slope_curves([0.0, 1.0], [5000])
    with pytest.raises(ValueError, match="log_inv_delta"):
        bob_slope_curves([1.0, 700.0], [5000])
    with pytest.raises(ValueError, match="times"):
        bob_slope_curves([1.0, 2.0], [1])
    with pytest.raises(ValueError, match="tol"):
        bob_slope_summary(_synthetic(), tol=1.5)
