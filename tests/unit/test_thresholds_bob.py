"""BoB NLP (Corollaries cor:delta_correct_Kinf_thresholds and _ev): the Pyomo model solved by
the Ipopt backends against independent scipy solves written here."""

import math
import shutil

import numpy as np
import pytest
from scipy import optimize

from baiuv.thresholds import (
    BobSolverError,
    PyomoCyipoptBridge,
    bob_fallback_count,
    bob_upper_bound,
    build_bob_model,
    reset_bob_fallback_count,
    solve_bob,
)


def _wm1(x):
    """w >= 1 with w - ln w = x, by bracketing (independent of the package's Newton)."""
    if x <= 1.0:
        return 1.0
    return optimize.brentq(
        lambda w: w - math.log(w) - x, 1.0, 2.0 * x + 2.0, xtol=1e-15, rtol=1e-15
    )


def _per_arm_best_y(beta, C, D):
    """max y s.t. exists x >= D with x y <= C and (1+y)x - 1 - ln x <= beta (nan if none)."""
    xmax = _wm1(1.0 + beta)  # y_KL(x) >= 0 iff x - ln x <= 1 + beta
    if D > xmax:
        return math.nan
    if D == xmax:
        return 0.0

    def ymax(x):
        return min(C / x, (beta + 1.0 + math.log(x)) / x - 1.0)

    # quasi-concave in x: min of a decreasing and a unimodal function
    res = optimize.minimize_scalar(
        lambda x: -ymax(x), bounds=(D, xmax), method="bounded", options={"xatol": 1e-13}
    )
    return max(ymax(D), -res.fun, 0.0)


def nested_solve(N, C, D, E, ev=False):
    """Independent global solve: split the KL budget E between the arms (1-D grid + refine),
    best y per arm by a 1-D search."""
    g = (lambda y: y) if ev else math.log1p
    N, C, D = map(np.asarray, (N, C, D))
    # least budget of arm i: x = max(D, 1), y = 0
    bmin = [0.5 * N[i] * (D[i] - 1.0 - math.log(D[i]) if D[i] > 1 else 0.0) for i in (0, 1)]

    def phi(b):
        if b < bmin[0] or E - b < bmin[1]:
            return -math.inf
        ya = _per_arm_best_y(2 * b / N[0], C[0], D[0])
        yb = _per_arm_best_y(2 * (E - b) / N[1], C[1], D[1])
        if math.isnan(ya) or math.isnan(yb):
            return -math.inf
        return 0.5 * (N[0] * g(ya) + N[1] * g(yb))

    grid = np.linspace(bmin[0], E - bmin[1], 801)
    vals = np.array([phi(b) for b in grid])
    k = int(np.argmax(vals))
    lo, hi = grid[max(k - 1, 0)], grid[min(k + 1, len(grid) - 1)]
    res = optimize.minimize_scalar(
        lambda b: -phi(b), bounds=(lo, hi), method="bounded", options={"xatol": 1e-12 * max(1.0, E)}
    )
    return max(vals[k], -res.fun)


def slsqp_solve(N, C, D, E, ev=False, starts=8, seed=0):
    """Independent local solves (scaled SLSQP, multi-start); returns the best value over the
    feasible end points. SLSQP's status flag is not used: whatever a release reports, a
    feasible point's value is a lower bound on the optimum, which is all the caller needs."""
    N, C, D = map(np.asarray, (N, C, D))
    sy = C / D

    def obj(z):
        y = sy * z[2:]
        return -0.5 * np.sum(N * (y if ev else np.log1p(y)))

    def kl(z):
        x, y = D * z[:2], sy * z[2:]
        return E - 0.5 * np.sum(N * ((1 + y) * x - 1 - np.log(x)))

    cons = [{"type": "ineq", "fun": lambda z: 1.0 - z[:2] * z[2:]}, {"type": "ineq", "fun": kl}]
    rng = np.random.default_rng(seed)
    best = -math.inf
    for _ in range(starts):
        z0 = np.concatenate([rng.uniform(1.0, 1.0 / D.min(), 2), rng.uniform(0, 1, 2)])
        res = optimize.minimize(
            obj,
            z0,
            method="SLSQP",
            constraints=cons,
            bounds=[(1, 50), (1, 50), (0, 50), (0, 50)],
            options={"ftol": 1e-14, "maxiter": 1000},
        )
        z = res.x
        in_box = np.all(z[:2] >= 1 - 1e-12) and np.all(z[2:] >= -1e-12)
        if in_box and kl(z) > -1e-7 and 1 - np.max(z[:2] * z[2:]) > -1e-9:
            best = max(best, -obj(z))
    assert best > -math.inf, "no feasible SLSQP end point"
    return best


def random_instances(n=12, seed=7):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        N = rng.integers(20, 20_000, 2).astype(float)
        C = rng.uniform(5, 60, 2) / N
        D = rng.uniform(0.4, 0.99, 2)
        box = 0.5 * np.sum(N * np.log1p(C / D))
        E = box * rng.uniform(0.3, 1.6)
        out.append((N, C, D, E))
    # a paper-like instance: N = 2500 each, delta = 0.01 (C, D, E from the families)
    out.append(
        (np.array([2500.0, 2500.0]), np.array([0.0125, 0.0126]), np.array([0.93, 0.93]), 40.0)
    )
    return out


INSTANCES = random_instances()


@pytest.mark.parametrize("ev", [False, True])
@pytest.mark.parametrize(
    # Ipopt, a nested solver and SLSQP on every program: the first one in the quick suite
    "k",
    [0, *(pytest.param(k, marks=pytest.mark.slow) for k in range(1, len(INSTANCES)))],
)
def test_cyipopt_matches_independent_solvers(k, ev):
    N, C, D, E = INSTANCES[k]
    got = solve_bob(N, C, D, E, ev=ev, backend="cyipopt")
    ref = nested_solve(N, C, D, E, ev=ev)
    assert got == pytest.approx(ref, rel=2e-7, abs=1e-8)
    local = slsqp_solve(N, C, D, E, ev=ev)
    assert local <= got * (1 + 1e-6) + 1e-8  # no local solve beats ours
    assert got <= bob_upper_bound(N, C, D, E, ev=ev) * (1 + 1e-6)


def test_limited_memory_hessian_agrees():
    N, C, D, E = INSTANCES[-1]
    a = solve_bob(N, C, D, E, backend="cyipopt", hessian="exact")
    b = solve_bob(N, C, D, E, backend="cyipopt", hessian="limited-memory")
    assert a == pytest.approx(b, rel=1e-7)


def test_bob_equals_kl_when_kl_binds_and_box_when_not():
    """ln(1+y) = inf_x f(x, y): if E is small enough, the optimum is E (x = 1/(1+y))."""
    N, C, D = np.array([2500.0, 2500.0]), np.array([0.0125, 0.0126]), np.array([0.93, 0.93])
    assert solve_bob(N, C, D, 5.0, backend="cyipopt") == pytest.approx(5.0, rel=1e-7)
    box = bob_upper_bound(N, C, D, math.inf)
    assert solve_bob(N, C, D, 1e3, backend="cyipopt") == pytest.approx(box, rel=1e-7)


@pytest.mark.skipif(
    shutil.which("ipopt") is None,
    reason="no ipopt executable on PATH "
    "(conda-forge ipopt or `idaes get-extensions` need internet)",
)
@pytest.mark.parametrize("ev", [False, True])
def test_ipopt_executable_and_cyipopt_agree(ev):
    for N, C, D, E in INSTANCES[:5]:
        a = solve_bob(N, C, D, E, ev=ev, backend="ipopt")
        b = solve_bob(N, C, D, E, ev=ev, backend="cyipopt")
        assert a == pytest.approx(b, rel=1e-7)


@pytest.mark.parametrize("ev", [False, True])
def test_exact_backend_agrees_with_cyipopt(ev):
    for N, C, D, E in INSTANCES:
        a = solve_bob(N, C, D, E, ev=ev, backend="exact")
        b = solve_bob(N, C, D, E, ev=ev, backend="cyipopt")
        assert a == pytest.approx(b, rel=1e-6)


def test_failure_raises_or_falls_back_and_is_counted():
    N, C, D, E = INSTANCES[0]
    with pytest.raises(BobSolverError, match="status"):
        solve_bob(N, C, D, E, backend="cyipopt", options={"max_iter": 1})
    reset_bob_fallback_count()
    with pytest.warns(RuntimeWarning, match="conservative"):
        v = solve_bob(N, C, D, E, backend="cyipopt", options={"max_iter": 1}, on_failure="fallback")
    assert v == bob_upper_bound(N, C, D, E)
    assert bob_fallback_count() == 1
    # the next regular solve is unaffected by the failed one
    assert solve_bob(N, C, D, E, backend="cyipopt") == pytest.approx(
        nested_solve(N, C, D, E), rel=2e-7
    )


def test_bridge_derivatives_match_finite_differences():
    m = build_bob_model([300.0, 120.0], [0.05, 0.1], [0.8, 0.7], 20.0)
    br = PyomoCyipoptBridge(m)
    x = np.array([1.1, 0.9, 0.03, 0.05])  # order of br.vars
    names = [v.name for v in br.vars]
    assert names == ["x[0]", "x[1]", "y[0]", "y[1]"]
    h = 1e-7
    num = np.array(
        [(br.objective(x + h * e) - br.objective(x - h * e)) / (2 * h) for e in np.eye(4)]
    )
    np.testing.assert_allclose(br.gradient(x), num, rtol=1e-6)
    rows, cols = br.jacobianstructure()
    J = np.zeros((3, 4))
    J[rows, cols] = br.jacobian(x)
    Jn = np.array(
        [
            (br.constraints_values(x + h * e) - br.constraints_values(x - h * e)) / (2 * h)
            for e in np.eye(4)
        ]
    ).T
    np.testing.assert_allclose(J, Jn, rtol=1e-6, atol=1e-9)
    lam = np.array([0.3, 0.7, 1.1])
    hr, hc = br.hessianstructure()
    H = np.zeros((4, 4))
    H[hr, hc] = br.hessian(x, lam, 1.0)
    H = H + np.tril(H, -1).T

    def lag_grad(z):
        return br.gradient(z) + J_at(z).T @ lam

    def J_at(z):
        Jz = np.zeros((3, 4))
        Jz[rows, cols] = br.jacobian(z)
        return Jz

    Hn = np.array([(lag_grad(x + 1e-6 * e) - lag_grad(x - 1e-6 * e)) / 2e-6 for e in np.eye(4)])
    np.testing.assert_allclose(H, Hn, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(
    "kw,arg",
    [
        (dict(counts=[1, 2, 3]), "counts"),
        (dict(C=[0.1, -1]), "C"),
        (dict(D=[0.0, 0.5]), "D"),
        (dict(E=0.0), "E"),
        (dict(backend="gurobi"), "backend"),
        (dict(on_failure="ignore"), "on_failure"),
        (dict(hessian="bfgs"), "hessian"),
    ],
)
def test_bad_input(kw, arg):
    base = dict(counts=[10, 10], C=[0.1, 0.1], D=[0.9, 0.9], E=1.0)
    base.update(kw)
    with pytest.raises(ValueError, match=arg):
        solve_bob(base.pop("counts"), base.pop("C"), base.pop("D"), base.pop("E"), **base)


def test_ipopt_local_maximum_is_never_returned_silently():
    """Decision D22: a non-convex EV-BoB program on which Ipopt stops at a local maximum
    (found by random search); the certified cyipopt path must refuse it."""
    from baiuv.thresholds.bob import BobSolverError, bob_fallback_count, solve_bob
    from baiuv.thresholds.bob_exact import bob_exact

    n = [85.0, 98.0]
    c = [2.6695686247035106, 2.8027901127091863]
    d = [0.3899054368736167, 0.5929533391932729]
    e = 6.5052008824112475
    glob = bob_exact(n[0], n[1], c[0], c[1], d[0], d[1], e, True)
    assert solve_bob(n, c, d, e, ev=True) == pytest.approx(glob)  # auto = exact
    with pytest.raises(BobSolverError, match="local maximum"):
        solve_bob(n, c, d, e, ev=True, backend="cyipopt")
    before = bob_fallback_count()
    with pytest.warns(RuntimeWarning):
        v = solve_bob(n, c, d, e, ev=True, backend="cyipopt", on_failure="fallback")
    assert v >= glob and bob_fallback_count() == before + 1
