"""Numba kernels of the stopping thresholds, for the simulation engine.

The engine builds a :class:`~baiuv.thresholds.families.ThresholdSpec` once with
:func:`baiuv.thresholds.make_threshold` and then, before every sample, calls
:func:`pair_threshold_kernel` for the pairs it tests. Families with a data-dependent term (KL,
BoB, EV-BoB) keep a per-arm state (a float64 array of length :data:`STATE_SIZE`) that
:func:`update_state` refreshes after each sample of the arm.

State layout (see decision D15 in docs/decisions/architecture.md): ``[level, count, mean, var, logGR, tag]``
where ``level = i`` is the peeling index ``floor(log_gamma N)`` at which the statistics were
recorded, ``count`` the arm count at that moment (the first integer ``>= gamma^i``), ``mean``
and ``var`` the empirical mean and (1/n) variance at that count, and ``logGR =
ln(gamma R_{t,a}(delta))`` of Theorem thm:delta_correct_complex_threshold_glrt (``+inf``
when the preliminary box is not informative), ``tag`` the preliminary log term of the spec
that wrote it (a state is tied to one family, ``K``, ``delta`` and parameters; using it with
another spec raises). A fresh state is :func:`new_state`.

For ``bob``/``ev-bob`` the kernel calls the exact solver ``bob_exact`` of
:mod:`baiuv.thresholds.bob_exact`.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from baiuv.registry import (
    BOB,
    BOX,
    EV_BOB,
    EV_BOX,
    EV_HEURISTIC_STUDENT,
    EV_STUDENT,
    HEURISTIC,
    KL,
    STUDENT,
)

from .bob_exact import bob_exact as _bob_exact
from .concentration import eps_mu_L, one_minus_eps_minus_L, one_plus_eps_plus_L
from .lambert import wbar_m1_scalar

# Family codes (HEURISTIC ... EV_BOB) come from the registry.

# fparams layout
P_DELTA = 0
P_K = 1
P_S = 2
P_GAMMA = 3
P_ETA0 = 4
P_ETA1 = 5
P_NMIN = 6  # smallest per-arm count with a finite threshold (initial times)
P_LOGINVDELTA = 7  # ln(1/delta) (heuristic)
P_LBOX = 8  # log term of the box part: ln(4(K-1)zeta/delta') with delta' the box level
P_LPRE = 9  # log term of the KL preliminary concentration: ln(12(K-1)zeta/delta'')
P_LMAIN = 10  # main KL log term: ln(2 zeta^2 / delta'') (+ ln(K-1) if union over pairs)
P_LSTUD = 11  # ln(delta / (2(K-1)zeta(s))) = ln(2 alpha_n) + s ln n (Student)
P_NMIN_KL = 12  # smallest per-arm count at which the KL part is finite (BoB: KL(delta/2))
P_STATEFUL = 13  # 1.0: the family keeps a per-arm state (the registry's ThresholdFamily.stateful)
P_T_ONLY = 14  # 1.0: the threshold depends on t alone (the registry's ThresholdFamily.t_only)
# smallest count (of both arms) from which a computed pair threshold, widened by
# LB_MARGIN, is a lower bound of the pair's threshold at any later counts, the arms' states
# at the same peeling levels; inf: none (decision D254)
P_LB_NMIN = 15
# the lower bound below P_LB_NMIN (decision D254): LB_NONE; LB_WINDOW, the pair threshold is
# a non-decreasing function of one per-arm term of each count, non-increasing in the count
# from the initial count to P_LB_NMIN, so its value at the larger counts of a window below
# P_LB_NMIN bounds it over the window; LB_FLOOR, the threshold is at least
# ln(1 + ln(N_a + N_b)) + ln(1/delta) (lower_bound_floor); LB_PROGRAM, the BoB programs:
# program_lower_bound over a window
P_LB_MODE = 16
# the indifference zone epsilon >= 0 of the stopping rule (0: the paper's problem); read by
# the stopping check only, never by a threshold (D290: the epsilon-GLR is the GLR with the
# challenger's mean shifted by -epsilon)
P_EPS = 17
FPARAMS_SIZE = 18
LB_NONE = 0.0
LB_WINDOW = 1.0
LB_FLOOR = 2.0
LB_PROGRAM = 3.0
#: relative widening of a cached threshold used as a lower bound: ``c - LB_MARGIN (1 + |c|)``
#: (far above the kernels' rounding; a statistic that close to the threshold computes it)
LB_MARGIN = 1e-6
#: largest count of an arm at which the lower bounds are used: far beyond any run, below
#: the counts where the kernels' rounding (the Student bound's ``lgamma`` differences)
#: approaches the margin
LB_MAX_COUNT = 2**30

# state layout
S_LEVEL = 0
S_COUNT = 1
S_MEAN = 2
S_VAR = 3
S_LOGGR = 4
S_TAG = 5  # log term P_LPRE of the spec that wrote the state (guards against mixing deltas)
STATE_SIZE = 6


def new_state() -> np.ndarray:
    """A fresh per-arm state (no level recorded yet)."""
    st = np.full(STATE_SIZE, np.nan)
    st[S_LEVEL] = -1.0
    st[S_LOGGR] = np.inf
    return st


# ----------------------------------------------------------------------------- helpers
@njit(cache=True)
def peeling_level(n: float, gamma: float) -> int:
    """``i = floor(log_gamma n)`` for ``n >= 1``, exact w.r.t. ``gamma ** i`` (decision D14)."""
    i = int(math.floor(math.log(n) / math.log(gamma)))
    while gamma ** (i + 1) <= n:
        i += 1
    while i > 0 and gamma**i > n:
        i -= 1
    return i


@njit(cache=True)
def student_y_bound(n: float, lstud: float, s: float) -> float:
    """Upper bound on ``y_n = ln(1 + Q(1 - alpha_n; T_{n-1})^2 / (n-1))`` without scipy.

    With ``a = (n-1)/2`` and ``z = e^{-y}``, ``P(|T_{n-1}| >= q) = I_z(a, 1/2) <= z^a /
    (a B(a, 1/2) sqrt(1 - z))``; solving ``bound = 2 alpha_n`` gives ``y_u >= y_n``, hence
    a larger (safe) Student threshold. Used beyond the precomputed table (decision D13).
    """
    a = 0.5 * (n - 1.0)
    lnB = math.lgamma(a) + math.lgamma(0.5) - math.lgamma(a + 0.5)
    c = math.log(a) + lnB + (lstud - s * math.log(n))  # F(y) = a y + 0.5 ln(1-e^-y) + c
    lo = 0.0
    hi = 1.0
    while a * hi + 0.5 * math.log(-math.expm1(-hi)) + c < 0.0:
        lo = hi
        hi *= 2.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:
            break
        f = a * mid + 0.5 * math.log(-math.expm1(-mid)) + c
        if f < 0.0:
            lo = mid
        else:
            hi = mid
    return hi


@njit(cache=True)
def _student_y(n: int, fparams: np.ndarray, table: np.ndarray) -> float:
    if n < table.shape[0]:
        return table[n]
    return student_y_bound(float(n), fparams[P_LSTUD], fparams[P_S])


@njit(cache=True)
def box_constants(n: float, L: float, s: float, eta0: float):
    """``(C, D) = (eps_mu(n), 1 - eps_{-,sigma}(n - 1))``, Lemma
    lem:delta_correct_box_thresholds."""
    return eps_mu_L(n, L, s), one_minus_eps_minus_L(n - 1.0, L, s, eta0)


@njit(cache=True)
def log_gamma_R(
    level: int, mean: float, var: float, L: float, s: float, eta0: float, eta1: float, gamma: float
) -> float:
    """``ln(gamma R_{t,a}(delta))`` of Theorem thm:delta_correct_complex_threshold_glrt.

    ``n = gamma^level``; ``L`` is the preliminary log term ``ln(12(K-1)zeta(s)/delta)``.
    Returns ``+inf`` when the box at ``n`` is not informative (``1 - eps_{-,sigma}(n-1) <= 0``,
    ``n - 1 < 1`` or ``var <= 0``), decision D16.
    """
    n = gamma**level
    if not (var > 0.0) or n - 1.0 < 1.0:
        return math.inf
    em = eps_mu_L(n, L, s)
    om = one_minus_eps_minus_L(n - 1.0, L, s, eta0)
    op = one_plus_eps_plus_L(n - 1.0, L, s, eta1)
    if not (om > 0.0) or not (op > 0.0) or math.isnan(em):
        return math.inf
    sd = math.sqrt(var)
    mpp = abs(mean) + 2.0 * sd * math.sqrt(em / om)
    mpp2 = mpp * mpp
    s2p = var * op / om
    s2m = var * om / op
    gp = 2.0 * s2p / (s2p + 2.0 * mpp2 + 0.5) ** 2
    gm = 2.0 * s2m / (s2m + 2.0 * mpp2 + 0.5) ** 2
    gp = min(gp, 1.0)
    gm = min(gm, 1.0)
    fp = (1.0 + math.sqrt(1.0 - gp)) / math.sqrt(gp)
    fm = math.sqrt(gm) / (1.0 + math.sqrt(1.0 - gm))  # = (1 - sqrt(1-g))/sqrt(g)
    # R = sigma_+^3 f_+ / (sigma_-^3 f_-)
    return math.log(gamma) + 1.5 * math.log(s2p / s2m) + math.log(fp) - math.log(fm)


@njit(cache=True)
def kl_value(
    n_a: float, n_b: float, lgr_a: float, lgr_b: float, lmain: float, s: float, gamma: float
) -> float:
    """Eq. def_complex_threshold_glrt: ``4 Wbar_{-1}(1 + lmain/4 + s/4 sum ln(1 + log_gamma N)
    + 1/2 sum ln(gamma R))`` with ``lmain = ln(2 zeta(s)^2 / delta)``."""
    if math.isinf(lgr_a) or math.isinf(lgr_b):
        return math.inf
    lg = math.log(gamma)
    arg = 1.0 + 0.25 * lmain
    arg += 0.25 * s * (math.log1p(math.log(n_a) / lg) + math.log1p(math.log(n_b) / lg))
    arg += 0.5 * (lgr_a + lgr_b)
    return 4.0 * wbar_m1_scalar(arg)


@njit(cache=True)
def check_state(state: np.ndarray, n: int, fparams: np.ndarray) -> float:
    """``ln(gamma R)`` of an arm's state after ``n`` samples; ``ValueError`` when the state is
    stale or was written by another spec."""
    lvl = peeling_level(float(n), fparams[P_GAMMA])
    if state[S_LEVEL] != lvl:
        raise ValueError("stale KL/BoB arm state: call update_state after every sample of the arm")
    if state[S_TAG] != fparams[P_LPRE]:
        raise ValueError("KL/BoB arm state was built for another family, K, delta or params")
    return state[S_LOGGR]


@njit(cache=True)
def log_erfc_sqrt(c: float) -> float:
    """``ln erfc(sqrt(c))`` for ``c >= 0``: ``P(|N(0,1)| > sqrt(2c)) = P(N^2/2 > c)``; the
    asymptotic series ``-c - ln(sqrt(pi c)) + ln(1 - 1/(2c) + 3/(4c^2))`` once ``erfc``
    underflows (``c > 700``, relative error below ``1e-8``)."""
    if c <= 700.0:
        return math.log(math.erfc(math.sqrt(c)))
    return -c - 0.5 * math.log(math.pi * c) + math.log1p(-0.5 / c + 0.75 / (c * c))


@njit(cache=True)
def ev_heuristic_student(n_a: int, n_b: int, log_inv_delta: float) -> float:
    """Student-calibrated heuristic threshold of the EV-GLR statistic (the family
    ``ev-heuristic-student``, beyond the paper; :mod:`baiuv.studies.ev_remedies`).

    The heuristic ``c = ln((1 + ln s)/delta)`` (here with the pair's own count ``s = N_a +
    N_b``) is the level at which a Gaussian studentised gap stops: ``P(N^2/2 > c) = p =
    erfc(sqrt(c))``. With plug-in variances the gap is Student-like; Welch's statistic
    ``W`` has ``W^2 >= 2 Z^EV (m - 1)/m`` (``m = min(N_a, N_b)``, ``1/N`` variances) and,
    conservatively, ``nu = m - 1`` degrees of freedom (the lower end of Welch-Satterthwaite).
    The threshold is ``(m/2)(e^y - 1)`` with ``y = ln(1 + q^2/nu)``, ``q`` the two-sided
    ``p``-quantile of ``T_nu`` (upper bound :func:`student_y_bound`): ``Z^EV`` above it
    implies ``P(|T_nu| > |W|) <= p``. Tends to ``c`` as ``m`` grows.
    """
    return _ev_heuristic_student_at(min(n_a, n_b), n_a + n_b, log_inv_delta)


@njit(cache=True)
def _ev_heuristic_student_at(m: int, n_sum: int, log_inv_delta: float) -> float:
    """:func:`ev_heuristic_student` as a function of the smaller count ``m`` and the sum of
    the counts ``n_sum``."""
    if m < 2:
        return math.inf
    c = math.log1p(math.log(float(n_sum))) + log_inv_delta
    y = student_y_bound(float(m), log_erfc_sqrt(c), 0.0)
    return 0.5 * m * math.expm1(y)


# ----------------------------------------------------------------------------- public kernels
@njit(cache=True)
def has_state(fparams: np.ndarray) -> bool:
    """``True`` for the families whose thresholds read a per-arm state (KL, BoB, EV-BoB):
    :func:`update_state` is a no-op for the others. Read from the spec's ``fparams``, where
    :func:`baiuv.thresholds.make_threshold` wrote the registry's ``stateful`` flag."""
    return fparams[P_STATEFUL] == 1.0


@njit(cache=True)
def depends_on_t_only(fparams: np.ndarray) -> bool:
    """``True`` when :func:`pair_threshold_kernel` of the family depends on ``t`` alone (the
    same value for every pair) and is non-decreasing in ``t`` (heuristic); ``False`` when
    it does not depend on ``t`` but only on the pair's counts and states (every other
    family). The simulator caches thresholds on this basis (decision D160). Read from the
    spec's ``fparams`` (the registry's ``t_only`` flag)."""
    return fparams[P_T_ONLY] == 1.0


@njit(cache=True)
def lower_bound_nmin(fparams: np.ndarray) -> float:
    """Smallest count of both arms from which a pair threshold of the family, once computed,
    bounds from below (widened by :data:`LB_MARGIN`) its values at any later counts of the
    pair (each count not smaller, each arm's state at the same peeling level); ``inf``
    when the family has no such bound (decision D254)."""
    return fparams[P_LB_NMIN]


@njit(cache=True)
def lower_bound_window(n: int, fparams: np.ndarray):
    """``(p, hi)`` for one arm of count ``n`` (decision D254): from ``P_LB_NMIN`` on,
    ``(n, LB_MAX_COUNT)`` (the threshold is non-decreasing in the count); below it, for a family
    with ``P_LB_MODE = LB_WINDOW``, the window ``[n, hi]``, ``hi = min(n + n // 16 + 1, P_LB_NMIN)``,
    over which the threshold is at least its value at ``p = hi``; ``(n, -1)`` (no window)
    otherwise."""
    n_star = fparams[P_LB_NMIN]
    if n > LB_MAX_COUNT:
        return n, -1.0
    if n >= n_star:
        return n, float(LB_MAX_COUNT)
    if fparams[P_LB_MODE] != LB_WINDOW:
        return n, -1.0
    hi = n + n // 16 + 1
    if hi > n_star:
        hi = int(n_star)
    return hi, float(hi)


@njit(cache=True)
def upper_window(n: int) -> int:
    """The largest count ``n + n // 16 + 1`` of an arm's window of the cached upper bounds
    (D348: an upper bound of a pair threshold holds over windows of both counts)."""
    return n + n // 16 + 1


@njit(cache=True)
def pair_upper_bound(
    code: int,
    fparams: np.ndarray,
    table: np.ndarray,
    n_a: int,
    n_b: int,
    state_a: np.ndarray,
    state_b: np.ndarray,
):
    """``(ub, hi_a, hi_b)``: an upper bound ``ub`` of the pair threshold of a built-in family
    at every pair of counts in ``[n_a, hi_a] x [n_b, hi_b]``, the states at their current
    peeling levels (decision D348: cached upper bounds of the pair thresholds);
    ``(inf, -1, -1)`` where the family has none (the heuristic, a family with its own kernel, a spec without lower bounds: ``P_LB_NMIN =
    inf`` and ``P_LB_MODE = LB_NONE``) or a count is below the initial count or beyond
    ``LB_MAX_COUNT``.

    * Box, EV-Box: each per-arm term is ``n f(C(n)/D(n))``, ``f`` increasing, ``C`` not
      increasing and ``D`` not decreasing with the count (as in
      :func:`program_lower_bound`): at most ``hi f(C(n)/D(n))`` over the window.
    * BoB, EV-BoB: at most the Box bound with their own constants (the BoB program adds a
      constraint to the box program's: BoB(δ) ≤ Box(δ/2), Section 3.2 of the paper).
    * KL: ``Wbar_{-1}`` and ``ln(1 + log_gamma N)`` increase, ``ln(gamma R)`` is the
      state's, constant while its level is: the value at ``(hi_a, hi_b)``.
    * Student, EV-Student: ``max(g(N_a), g(N_b))``, ``g`` non-decreasing from
      ``P_LB_NMIN`` on (decision D254): the value at ``hi`` for an arm at or beyond it, at
      the count itself (``hi = n``, a window of one count) below it; none when both arms
      are below it.
    * The Student-calibrated heuristic: non-increasing in the smaller count and
      non-decreasing in the sum of the counts: its value at the smaller count and the
      windows' largest sum.
    """
    if fparams[P_LB_NMIN] == math.inf and fparams[P_LB_MODE] == LB_NONE:
        return math.inf, -1.0, -1.0  # a spec without cached bounds (a family's own kernel)
    if n_a > LB_MAX_COUNT or n_b > LB_MAX_COUNT:
        return math.inf, -1.0, -1.0
    nmin = fparams[P_NMIN]
    if n_a < nmin or n_b < nmin:
        return math.inf, -1.0, -1.0
    hi_a = upper_window(n_a)
    hi_b = upper_window(n_b)
    if code == BOX or code == EV_BOX or code == BOB or code == EV_BOB:
        L = fparams[P_LBOX]
        s = fparams[P_S]
        eta0 = fparams[P_ETA0]
        ca, da = box_constants(float(n_a), L, s, eta0)
        cb, db = box_constants(float(n_b), L, s, eta0)
        if not (da > 0.0) or not (db > 0.0):
            return math.inf, -1.0, -1.0
        if code == BOX or code == BOB:
            v = 0.5 * (hi_a * math.log1p(ca / da) + hi_b * math.log1p(cb / db))
        else:
            v = 0.5 * (hi_a * ca / da + hi_b * cb / db)
        return v, float(hi_a), float(hi_b)
    if code == KL:
        lgr_a = check_state(state_a, n_a, fparams)
        lgr_b = check_state(state_b, n_b, fparams)
        v = kl_value(
            float(hi_a), float(hi_b), lgr_a, lgr_b, fparams[P_LMAIN], fparams[P_S], fparams[P_GAMMA]
        )
        return v, float(hi_a), float(hi_b)
    if code == EV_HEURISTIC_STUDENT:
        v = _ev_heuristic_student_at(min(n_a, n_b), hi_a + hi_b, fparams[P_LOGINVDELTA])
        return v, float(hi_a), float(hi_b)
    if code == STUDENT or code == EV_STUDENT:
        n_star = fparams[P_LB_NMIN]
        if n_a < n_star:
            hi_a = n_a
        if n_b < n_star:
            hi_b = n_b
        if hi_a == n_a and hi_b == n_b:
            return math.inf, -1.0, -1.0
        ya = _student_y(hi_a, fparams, table)
        yb = _student_y(hi_b, fparams, table)
        if code == STUDENT:
            v = max(hi_a * ya, hi_b * yb)
        else:
            v = max(hi_a * math.expm1(ya), hi_b * math.expm1(yb))
        return v, float(hi_a), float(hi_b)
    return math.inf, -1.0, -1.0


@njit(cache=True)
def lower_bound_floor(n_sum: int, fparams: np.ndarray) -> float:
    """``ln(1 + ln(N_a + N_b)) + ln(1/delta)`` at ``n_sum = N_a + N_b``: a lower bound of
    the Student-calibrated heuristic (:func:`ev_heuristic_student`; its ``Z^EV`` level
    ``(m/2)(e^y - 1) >= (m/2) q^2/(m - 1) >= q^2/2 >= c``, the Student quantile ``q``
    being at least the Gaussian one, ``sqrt(2c)``), non-decreasing in the counts (D254:
    the floor bound of this family)."""
    return math.log1p(math.log(float(n_sum))) + fparams[P_LOGINVDELTA]


@njit(cache=True)
def program_lower_bound(
    code: int,
    fparams: np.ndarray,
    n_a: int,
    n_b: int,
    state_a: np.ndarray,
    state_b: np.ndarray,
):
    """``(lb, hi_a, hi_b)``: a lower bound ``lb`` of the BoB (EV-BoB) threshold at every
    pair of counts in ``[n_a, hi_a] x [n_b, hi_b]``, ``hi = n + n // 64 + 1``, the states at
    their current peeling levels (decision D254); ``(-inf, -1, -1)`` before the KL part's
    initial count and beyond ``LB_MAX_COUNT``.

    The program at counts ``hi`` with the box bounds ``C(hi)``, ``D(hi)`` and the KL budget
    ``E`` at ``(n_a, n_b)`` has a feasible set inside the program's at every pair of the
    window (``C`` does not increase with the count, ``D`` does not decrease, ``E`` does not
    decrease at fixed levels, and ``N f <= hi f``), and its objective times
    ``r = min(n_a/hi_a, n_b/hi_b)`` is at most theirs: ``lb = r bob_exact(...)``."""
    if n_a < fparams[P_NMIN_KL] or n_b < fparams[P_NMIN_KL]:
        return -math.inf, -1.0, -1.0
    if n_a > LB_MAX_COUNT or n_b > LB_MAX_COUNT:
        return -math.inf, -1.0, -1.0
    hi_a = n_a + n_a // 64 + 1
    hi_b = n_b + n_b // 64 + 1
    L = fparams[P_LBOX]
    s = fparams[P_S]
    eta0 = fparams[P_ETA0]
    ca, da = box_constants(float(hi_a), L, s, eta0)
    cb, db = box_constants(float(hi_b), L, s, eta0)
    if not (da > 0.0) or not (db > 0.0):
        return -math.inf, -1.0, -1.0
    lgr_a = check_state(state_a, n_a, fparams)
    lgr_b = check_state(state_b, n_b, fparams)
    e = kl_value(float(n_a), float(n_b), lgr_a, lgr_b, fparams[P_LMAIN], s, fparams[P_GAMMA])
    v = _bob_exact(float(hi_a), float(hi_b), ca, cb, da, db, e, code == EV_BOB)
    r = min(n_a / hi_a, n_b / hi_b)
    return r * v, float(hi_a), float(hi_b)


@njit(cache=True)
def update_state(
    code: int, fparams: np.ndarray, state: np.ndarray, n: int, mean: float, var: float
) -> None:
    """Refresh one arm's KL/BoB state after its count became ``n`` (no-op otherwise).

    Records ``(mean, var)`` (empirical mean and 1/n variance after ``n`` samples) when ``n``
    is the first count of a new peeling level ``i = floor(log_gamma n)``, i.e. the first
    count ``>= gamma^i`` (``bar t_a`` of Theorem thm:delta_correct_complex_threshold_glrt,
    decision D14), and stores ``ln(gamma R)`` for that level.
    """
    if not has_state(fparams):
        return
    if n < 1:
        return
    gamma = fparams[P_GAMMA]
    lvl = peeling_level(float(n), gamma)
    if state[S_LEVEL] == lvl:
        return
    state[S_LEVEL] = lvl
    state[S_TAG] = fparams[P_LPRE]
    state[S_COUNT] = n
    state[S_MEAN] = mean
    state[S_VAR] = var
    state[S_LOGGR] = log_gamma_R(
        lvl, mean, var, fparams[P_LPRE], fparams[P_S], fparams[P_ETA0], fparams[P_ETA1], gamma
    )


@njit(cache=True)
def states_at_counts(code: int, fparams: np.ndarray, x: np.ndarray, counts: np.ndarray):
    """Per-arm states after the first ``counts[j]`` samples of the stream ``x``.

    ``counts`` is sorted; row ``j`` of the result is the state :func:`update_state` leaves
    after feeding it the running mean and (biased) variance of ``x[:counts[j]]`` one
    sample at a time (Welford), starting from :func:`new_state`'s layout.
    """
    out = np.empty((counts.shape[0], STATE_SIZE))
    st = np.full(STATE_SIZE, np.nan)
    st[S_LEVEL] = -1.0
    st[S_LOGGR] = np.inf
    m = 0.0
    m2 = 0.0
    j = 0
    for i in range(x.shape[0]):
        if j == counts.shape[0]:
            break
        n = i + 1
        d = x[i] - m
        m += d / n
        m2 += d * (x[i] - m)
        update_state(code, fparams, st, n, m, m2 / n)
        while j < counts.shape[0] and counts[j] == n:
            out[j, :] = st
            j += 1
    return out


@njit(cache=True)
def pair_threshold_kernel(
    code: int,
    fparams: np.ndarray,
    table: np.ndarray,
    t: float,
    n_a: int,
    n_b: int,
    state_a: np.ndarray,
    state_b: np.ndarray,
) -> float:
    """Threshold ``c_{a,b}(N_t, delta)`` of family ``code`` for one pair of arms.

    Returns ``+inf`` before the initial times. Implements: heuristic ``ln((1 + ln t)/delta)``;
    Student (Lemma lem:delta_correct_student_thresholds) and EV-Student
    (Lemma lem:delta_correct_student_thresholds_ev); Box (Lemma lem:delta_correct_box_thresholds)
    and EV-Box (Lemma lem:delta_correct_box_thresholds_ev); KL (Theorem
    thm:delta_correct_complex_threshold_glrt); BoB (Corollary cor:delta_correct_Kinf_thresholds)
    and EV-BoB (Corollary cor:delta_correct_Kinf_thresholds_ev) via ``bob_exact``.
    """
    if code == HEURISTIC:
        if t < 1.0:
            return math.inf
        return math.log1p(math.log(t)) + fparams[P_LOGINVDELTA]
    nmin = fparams[P_NMIN]
    if n_a < nmin or n_b < nmin:
        return math.inf
    if code == EV_HEURISTIC_STUDENT:
        return ev_heuristic_student(n_a, n_b, fparams[P_LOGINVDELTA])
    s = fparams[P_S]
    if code == STUDENT or code == EV_STUDENT:
        ya = _student_y(n_a, fparams, table)
        yb = _student_y(n_b, fparams, table)
        if code == STUDENT:
            return max(n_a * ya, n_b * yb)
        return max(n_a * math.expm1(ya), n_b * math.expm1(yb))
    L = fparams[P_LBOX]
    eta0 = fparams[P_ETA0]
    if code == BOX or code == EV_BOX:
        ca, da = box_constants(float(n_a), L, s, eta0)
        cb, db = box_constants(float(n_b), L, s, eta0)
        if not (da > 0.0) or not (db > 0.0):
            return math.inf
        if code == BOX:
            return 0.5 * (n_a * math.log1p(ca / da) + n_b * math.log1p(cb / db))
        return 0.5 * (n_a * ca / da + n_b * cb / db)
    gamma = fparams[P_GAMMA]
    lgr_a = check_state(state_a, n_a, fparams)
    lgr_b = check_state(state_b, n_b, fparams)
    if code == KL:
        return kl_value(float(n_a), float(n_b), lgr_a, lgr_b, fparams[P_LMAIN], s, gamma)
    if code == BOB or code == EV_BOB:
        ca, da = box_constants(float(n_a), L, s, eta0)
        cb, db = box_constants(float(n_b), L, s, eta0)
        if not (da > 0.0) or not (db > 0.0):
            return math.inf
        e = math.inf
        if n_a >= fparams[P_NMIN_KL] and n_b >= fparams[P_NMIN_KL]:
            e = kl_value(float(n_a), float(n_b), lgr_a, lgr_b, fparams[P_LMAIN], s, gamma)
        return _bob_exact(float(n_a), float(n_b), ca, cb, da, db, e, code == EV_BOB)
    raise ValueError("unknown threshold code")


@njit(cache=True)
def pair_threshold_loop(code, fparams, table, n, state_a, state_b, reps):
    """Sum of ``reps`` calls of :func:`pair_threshold_kernel` at ``N_a = N_b = n`` (``t``
    alternating between ``2n`` and ``2n + 1``), in one compiled loop: the per-call cost of
    the kernel without a Python call around it
    (:func:`baiuv.experiments.thresholds.threshold_costs`)."""
    acc = 0.0
    for i in range(reps):
        acc += pair_threshold_kernel(
            code, fparams, table, 2.0 * n + (i % 2), n, n, state_a, state_b
        )
    return acc
