"""GLR statistics (Lemma lem:glrt_formula_gaussian, Lemma lem:glrt_evglrt_inequalities)."""

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize

import baiuv


def brute_glr(N, m, v, a, best):
    """inf over lambda_a >= lambda_best and kappa^2 > 0 of sum_b N_b KL((m_b, v_b), (lambda_b,
    kappa_b^2)), by numerical minimisation (no formula from the package). The constraint binds
    (each term is unimodal in its own mean and the unconstrained minimiser violates it), so
    lambda_a = lambda_best = lambda and we minimise over (lambda, log kappa_a^2, log kappa_b^2)."""

    def kl(mu, s2, lam, k2):
        return 0.5 * ((mu - lam) ** 2 / k2 + s2 / k2 - 1 - np.log(s2 / k2))

    def obj(z):
        lam, lk_a, lk_b = z
        return N[a] * kl(m[a], v[a], lam, np.exp(lk_a)) + N[best] * kl(
            m[best], v[best], lam, np.exp(lk_b)
        )

    bounds = [(m[a], m[best]), (-20, 20), (-20, 20)]
    best_val = np.inf
    for frac in np.linspace(0, 1, 7):
        lam0 = m[a] + frac * (m[best] - m[a])
        z0 = [lam0, np.log(v[a] + (m[a] - lam0) ** 2), np.log(v[best] + (m[best] - lam0) ** 2)]
        r = minimize(
            obj, z0, bounds=bounds, method="L-BFGS-B", options={"ftol": 1e-15, "gtol": 1e-12}
        )
        best_val = min(best_val, r.fun)
    return best_val


@st.composite
def samples(draw):
    K = draw(st.integers(2, 5))
    N = np.asarray(draw(st.lists(st.integers(2, 200), min_size=K, max_size=K)), float)
    m = np.asarray(draw(st.lists(st.floats(-2, 2), min_size=K, max_size=K)))
    assume(np.min(np.diff(np.sort(m))) > 1e-3)
    v = np.asarray(draw(st.lists(st.floats(0.05, 5), min_size=K, max_size=K)))
    return N, m, v


@pytest.mark.slow  # a nested scipy optimisation per challenger and example
@settings(max_examples=25)
@given(samples())
def test_glr_matches_brute_force_over_means_and_variances(data):
    N, m, v = data
    z = baiuv.glr_statistics(N, m, v)
    best = int(np.argmax(m))
    assert np.isinf(z[best])
    for a in range(m.size):
        if a != best:
            assert z[a] == pytest.approx(brute_glr(N, m, v, a, best), rel=1e-5, abs=1e-9)


@given(samples())
def test_glr_ev_inequalities(data):
    N, m, v = data
    z = baiuv.glr_statistics(N, m, v)
    zev = baiuv.glr_statistics(N, m, v, known_variance=True)
    best = int(np.argmax(m))
    for a in range(m.size):
        if a == best:
            continue
        C = (m[best] - m[a]) ** 2 / min(v[best], v[a])
        assert zev[a] >= z[a] * (1 - 1e-12)
        assert z[a] >= np.log1p(C) / C * zev[a] * (1 - 1e-12)
        # EV statistic closed form
        assert zev[a] == pytest.approx(
            0.5 * (m[best] - m[a]) ** 2 / (v[a] / N[a] + v[best] / N[best])
        )


@pytest.mark.parametrize(
    "args,match",
    [
        (([1, 2], [0.0, 1.0], [1.0, 1.0, 1.0]), "same length"),
        (([1, 0], [0.0, 1.0], [1.0, 1.0]), "counts must be > 0"),
        (([1, 2], [0.0, np.nan], [1.0, 1.0]), "means must be finite"),
        (([1, 2], [0.0, 1.0], [1.0, -1.0]), "variances must be > 0"),
        (([[1, 2]], [0.0, 1.0], [1.0, 1.0]), "counts must be 1-D"),
    ],
)
def test_glr_bad_input(args, match):
    with pytest.raises(ValueError, match=match):
        baiuv.glr_statistics(*args)
