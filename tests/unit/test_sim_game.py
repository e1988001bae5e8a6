"""The numba game solver of FWS against scipy's HiGHS (decision D47)."""

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from baiuv.simulation.game import solve_game, solve_game_highs


def _check(M):
    """Our (v, z) against HiGHS. HiGHS solves to its feasibility tolerance (1e-7), so its
    value is compared at that tolerance; the exact checks are the certificates: our ``z``
    guarantees ``v`` against every row, and no point, HiGHS's included, guarantees more.

    The certificates hold up to the simplex's own stopping rule, not to rounding: it stops
    when every reduced cost is above ``-_TOL`` (1e-12) on the payoff rescaled to [1, 2]. The
    duals ``y`` (clipped at 0) then satisfy ``M' y >= 1 - _TOL`` and the basis's primal
    solution gives ``sum(y) - K _TOL <= 1 / value'`` with ``value' <= 2``, so ``v``, the
    guarantee ``min (M z)`` and the true value differ by at most ``(2 + 4 K) _TOL`` times
    ``max M - min M``. Rounding adds at most ``K eps max|M|`` to ``M z`` (``z`` sums to 1
    up to rounding), and a payoff whose spread is at most 1e-300 is solved as a constant one
    (value ``min M``, uniform ``z``: off by at most that spread). Twice the sum is the
    absolute tolerance, never a relative one (the value is often 0)."""
    v, z = solve_game(M)
    vh, zh = solve_game_highs(M)
    scale = max(1.0, np.abs(M).max())
    K = M.shape[1]
    eps = np.finfo(float).eps
    spread = M.max() - M.min()
    tol = 2 * ((2 + 4 * K) * 1e-12 * spread + K * eps * np.abs(M).max() + 1e-300)
    assert v == pytest.approx(vh, rel=0, abs=1e-7 * scale)
    assert np.all(z >= -1e-12) and z.sum() == pytest.approx(1.0, rel=0, abs=1e-12)
    # z guarantees the value against every row (optimality certificate)
    assert (M @ z).min() == pytest.approx(v, rel=0, abs=tol)
    # v is the max-min: HiGHS's (clipped, normalised) strategy guarantees no more
    zc = np.clip(zh, 0.0, None)
    assert (M @ (zc / zc.sum())).min() <= v + tol


@pytest.mark.parametrize("m,K", [(1, 3), (2, 2), (3, 5), (9, 10), (4, 10)])
def test_random_games_match_highs(m, K):
    rng = np.random.default_rng(m * 100 + K)
    for _ in range(30):
        _check(rng.normal(size=(m, K)))


@settings(max_examples=60, deadline=None)
@example(  # HiGHS stops 1e-8 above the value 2.98e-8 (its tolerance); ours is exact
    np.array([[-1.0, 0.0, 0.0, 5.96046448e-08], [1.0, 0, 0, 0], [1.0, 0, 0, 0], [2.0, 0, 0, 0]])
)
@example(np.full((1, 5), 3.0))  # constant payoff: M z is 3 up to rounding, z sums to 1
@example(np.array([[1e-300, 0.0]]))  # spread 1e-300: solved as a constant payoff
@example(  # value 0: our v is -8.9e-12 (the simplex's stopping tolerance), z guarantees 0.0
    np.array([[0.0001, -2.3391331933019806, 0.0], [1.2067933470313283, 0.0, 0.0], [0.0] * 3])
)
@given(
    arrays(
        np.float64,
        st.tuples(st.integers(1, 6), st.integers(2, 8)),
        elements=st.floats(-5, 5, allow_nan=False, width=64),
    )
)
def test_property_matches_highs(M):
    _check(M)


def test_known_games():
    # matching pennies: value 0, z = (1/2, 1/2)
    v, z = solve_game(np.array([[1.0, -1.0], [-1.0, 1.0]]))
    assert v == pytest.approx(0.0, abs=1e-12) and z == pytest.approx([0.5, 0.5])
    # a dominant column
    v, z = solve_game(np.array([[1.0, 3.0, 0.0], [2.0, 4.0, 1.0]]))
    assert v == pytest.approx(3.0) and z == pytest.approx([0.0, 1.0, 0.0])
    # constant payoff
    v, z = solve_game(np.full((2, 3), 0.7))
    assert v == pytest.approx(0.7) and z.sum() == pytest.approx(1.0)
    # FWS-like payoff: <e_i - x, g_j> with sparse gradients
    x = np.array([0.4, 0.3, 0.3])
    G = np.array([[1.0, 2.0, 0.0], [1.5, 0.0, 1.0]])
    M = G - (G @ x)[:, None]
    _check(M)


def test_highs_rejects_bad_input():
    with pytest.raises(ValueError, match="M must"):
        solve_game_highs(np.zeros(3))
