"""An anytime-valid p-value for the identifier's recommendation.

At a check ``t`` of the stopping rule, the rule at level δ stops when the GLR (or EV-GLR)
statistic of every challenger exceeds its threshold:
:math:`Z_a(t) > c_{\\hat a_t, a}(N_t, \\delta)` for every :math:`a \\ne \\hat a_t`
(Equations (4) and (5) of the paper, Section 2.3). Each threshold is non-increasing in δ
(non-decreasing in :math:`\\ln(1/\\delta)`), so the levels at which the rule stops at
``t`` form an interval: with :math:`L_a(t) = \\sup\\{L : Z_a(t) > c_{\\hat a_t, a}(N_t,
e^{-L})\\}` for each challenger, the rule stops at ``t`` for every
:math:`\\delta > \\delta_t = \\max_a e^{-L_a(t)}`. The p-value after the checks
:math:`t_1, t_2, \\ldots` is

.. math:: p = \\min_{k} \\delta_{t_k},

with the recommendation :math:`\\hat a_{t_k}` of the check that attains it.

Validity. For a δ-correct family, the proofs of the paper (Lemma 5, Theorem 6,
Corollary 7 and their EV-GLR versions) bound the probability that *at some time* the
statistic of a wrong empirical best arm exceeds its thresholds against every challenger
by δ, whatever the sampling. If :math:`p \\le \\alpha` with a wrong recommendation, that
event happened at level α (the thresholds at α are at most those at
:math:`\\delta_{t_k} \\le \\alpha`), so :math:`\\mathbb{P}(p \\le \\alpha,\\ \\text{wrong})
\\le \\alpha` for every α at once: the p-value is anytime-valid for the hypothesis "the
recommended arm is not the best". With a family that is not δ-correct (the registry's
``delta_correct`` flag, e.g. ``heuristic``) it is reported but labelled not valid. With an
indifference zone ε > 0 (:mod:`baiuv.simulation.epsilon`) the identifier passes the
statistics its ε-rule compares, and the same argument makes the p-value anytime-valid for
"the recommended arm is more than ε below the best" (D293: the p-value of the ε-rule).

Computation (decision D270). The family's parameters are those of the identifier, with
the slice ratios :math:`\\eta_0, \\eta_1` fixed at their value for the identifier's δ
(by default :math:`1/\\ln(1/\\delta)`); the paper's thresholds are δ-correct for any
fixed :math:`\\eta_0, \\eta_1 > 0`, and with them fixed each threshold is non-decreasing in
:math:`L = \\ln(1/\\delta)`. At a check, the rule at the current level :math:`L_p` (with
:math:`p = e^{-L_p}`) is tested first, one threshold per challenger: if it does not stop,
:math:`\\delta_t \\ge p` and nothing changes. Otherwise :math:`\\min_a L_a(t)` is the
supremum of the levels at which every challenger's statistic exceeds its threshold
(monotone in ``L``), found by doubling then bisection to the last bit of a double. The
thresholds at a level ``L`` are the identifier's kernels on the specification built at
``L``; the KL/BoB per-arm states are rebuilt at ``L`` from the statistics they recorded
(those do not depend on δ); the Student families use the exact quantile below the
identifier's table size and the same upper bound beyond, as the rule does.

Cost. The heuristic's level is ``min_a Z_a - ln(1 + ln t)``; the Student families' is
closed form too (the Student tail at the quantile that makes the pair's threshold equal to
``Z_a``, per count). For the other families, once every pair's counts are past the
family's initial counts at the identifier's δ (so past them at every larger δ), the
thresholds at ``L`` are the identifier's specification with its log terms shifted by
``L - ln(1/delta)`` (checked once against the specification built at other levels) and the
level is found by Brent's method then moved to the last double at which the rule stops;
before that, and above the identifier's level, the specification is built at every level
tried. A check that cannot move the p-value (most of them) costs one test of the rule at the
current level: one compiled call (:func:`baiuv.simulation.rules.stops_builtin` on the
states of :func:`baiuv.simulation.rules.states_at_level`, the same thresholds and
comparisons as the rule's), with the specification at that level kept from the check before.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping

import numpy as np

from baiuv.registry import THRESHOLD_FAMILIES
from baiuv.simulation import rules
from baiuv.thresholds import kernels as _k
from baiuv.thresholds.concentration import riemann_zeta
from baiuv.thresholds.families import (
    DEFAULT_TABLE_SIZE,
    ThresholdParams,
    make_threshold,
    student_log_ratio,
)

__all__ = ["PValueTracker", "is_delta_correct"]

#: Smallest level tested (``ln(1/delta)``): a rule that does not stop there has ``p = 1``.
L_FLOOR = 1e-12
#: Largest level tested: beyond it the p-value is reported as ``exp(-L_CAP)``-small (0.0).
L_CAP = 1e6


def is_delta_correct(family: str) -> bool:
    """Whether the threshold family ``family`` is δ-correct (the registry's
    ``ThresholdFamily.delta_correct``)."""
    return bool(THRESHOLD_FAMILIES[family].delta_correct)


class PValueTracker:
    """The running p-value of one identifier (see the module docstring).

    Parameters
    ----------
    family : str
        Threshold family of the identifier.
    K : int
        Number of arms.
    log_inv_delta : float
        The identifier's ``ln(1/delta)`` (fixes ``eta0``, ``eta1`` when they are ``None``).
    threshold_params : mapping
        The identifier's ``threshold_params``.
    """

    def __init__(self, family: str, K: int, log_inv_delta: float, threshold_params: Mapping):
        fam = THRESHOLD_FAMILIES[family]
        self.family = family
        self.valid = bool(fam.delta_correct)
        self._K = int(K)
        p = ThresholdParams.from_mapping(threshold_params)
        e0, e1 = p.etas(log_inv_delta=log_inv_delta)
        self._params = dataclasses.replace(p, eta0=e0, eta1=e1)
        self._kernel = fam.threshold_kernel()  # a registered family's own kernel, or None
        self._student = family in ("student", "ev-student")
        self._stateful = bool(fam.stateful)
        self._own = fam.kernel is not None
        self._L_nom = float(log_inv_delta)
        self._nominal = None  # the specification at the identifier's level (built on use)
        self._shift_ok: bool | None = None
        self._zeta_term: float | None = None  # ln(4(K-1) zeta(s)) of the Student families
        self._scratch: np.ndarray | None = None  # the KL/BoB states rebuilt at a level
        self._last_spec: tuple | None = None  # (L, the specification built at L)
        self.level = 0.0  # L_p = ln(1/p); 0: p = 1
        self.recommendation: int | None = None
        self.time: int | None = None

    @property
    def p_value(self) -> float:
        """``exp(-L_p)`` (``1.0`` before any check could stop; ``0.0`` once it underflows)."""
        return math.exp(-self.level)

    # ------------------------------------------------------------------ specifications
    def _spec(self, L: float):
        """The specification at ``ln(1/delta) = L``; the last one built is kept (the checks
        between two moves of the p-value all test the same level)."""
        if self._last_spec is None or self._last_spec[0] != L:
            spec = make_threshold(
                self.family, self._K, params=self._params, log_inv_delta=L, n_table=3
            )
            self._last_spec = (L, spec)
        return self._last_spec[1]

    def _shifted(self, L: float) -> np.ndarray:
        """The identifier's ``fparams`` with every log term moved to ``ln(1/delta) = L``
        (the initial counts left at the identifier's)."""
        fp = self._nominal.fparams.copy()
        d = L - self._L_nom
        fp[_k.P_LOGINVDELTA] += d
        fp[_k.P_LSTUD] -= d
        fp[_k.P_LBOX] += d
        fp[_k.P_LPRE] += d
        fp[_k.P_LMAIN] += d
        return fp

    def _fast_ready(self) -> bool:
        """Whether :meth:`_shifted` reproduces the specification built at other levels (a
        built-in family whose log terms are affine in ``ln(1/delta)``)."""
        if self._shift_ok is None:
            self._nominal = self._spec(self._L_nom)
            ok = not self._own and not self._student and self.family != "heuristic"
            skip = [_k.P_DELTA, _k.P_NMIN, _k.P_NMIN_KL]
            for L in (0.5 * self._L_nom, self._L_nom + 1.0, 2.0 * self._L_nom + 3.0):
                if not ok:
                    break
                a, b = np.delete(self._shifted(L), skip), np.delete(self._spec(L).fparams, skip)
                ok = bool(np.allclose(a, b, rtol=1e-12, atol=1e-12, equal_nan=True))
            self._shift_ok = ok
        return self._shift_ok

    # ------------------------------------------------------------------ thresholds at L
    def thresholds_at(self, L: float, t: int, counts, best: int, states, fp=None) -> np.ndarray:
        """``c_{best, a}(N_t, e^{-L})`` for every arm ``a`` (``nan`` at ``best``), from the
        specification built at ``L`` (or the parameters ``fp`` given)."""
        if fp is None:
            spec = self._spec(L)
            fp, code, table = spec.fparams, spec.code, spec.table
        else:
            code, table = self._nominal.code, self._nominal.table
        if self._stateful:
            states = self._states_at(states, fp)
        out = np.full(self._K, np.nan)
        if self._student:
            for a in range(self._K):
                if a != best:
                    na, nb = int(counts[best]), int(counts[a])
                    out[a] = self._student_threshold(L, fp, na, nb)
        elif self._own:
            rules.check_thresholds(
                self._kernel, (code, fp, table), (t, counts, best, states), -1, out
            )
        else:  # the identifier's compiled loop over the challengers
            rules.check_thresholds_builtin((code, fp, table), (t, counts, best, states), -1, out)
        return out

    def _states_at(self, states, fp) -> np.ndarray:
        """The per-arm KL/BoB states as a rule at the level of ``fp`` would hold them: the
        recorded level, count, mean and variance, ``ln(gamma R)`` recomputed."""
        out = np.array(states, dtype=np.float64, copy=True)
        for st in out:
            if st[_k.S_LEVEL] < 0:
                continue
            st[_k.S_TAG] = fp[_k.P_LPRE]
            st[_k.S_LOGGR] = _k.log_gamma_R(
                int(st[_k.S_LEVEL]),
                st[_k.S_MEAN],
                st[_k.S_VAR],
                fp[_k.P_LPRE],
                fp[_k.P_S],
                fp[_k.P_ETA0],
                fp[_k.P_ETA1],
                fp[_k.P_GAMMA],
            )
        return out

    def _student_threshold(self, L: float, fp, na: int, nb: int) -> float:
        """The (EV-)Student threshold of the pair, as the rule computes it: the exact
        ``y_n`` below the identifier's table size, the upper bound beyond."""
        if na < fp[_k.P_NMIN] or nb < fp[_k.P_NMIN]:
            return math.inf
        vals = []
        for n in (na, nb):
            if n < DEFAULT_TABLE_SIZE:
                try:
                    y = float(student_log_ratio(n, K=self._K, s=self._params.s, log_inv_delta=L))
                except ValueError:  # tail probability below what scipy evaluates
                    return math.inf
            else:
                y = _k.student_y_bound(float(n), fp[_k.P_LSTUD], fp[_k.P_S])
            vals.append(n * y if self.family == "student" else n * math.expm1(y))
        return max(vals)

    def stops_at(self, L: float, t: int, counts, Z, best: int, states, fp=None) -> bool:
        """Whether the rule at level ``ln(1/delta) = L`` stops at this check."""
        if not self._student and not self._own:  # one compiled call, the same thresholds
            if fp is None:
                spec = self._spec(L)
                fp, code, table = spec.fparams, spec.code, spec.table
            else:
                code, table = self._nominal.code, self._nominal.table
            if self._stateful:
                if self._scratch is None:
                    self._scratch = np.empty_like(states)
                rules.states_at_level(states, fp, self._scratch)
                states = self._scratch
            return bool(rules.stops_builtin(code, fp, table, t, counts, best, states, Z))
        thr = self.thresholds_at(L, t, counts, best, states, fp)
        return all(Z[a] > thr[a] for a in range(self._K) if a != best)

    # ------------------------------------------------------------------ levels
    def _closed_form(self, t: int, counts, Z, best: int) -> float | None:
        """``min_a L_a(t)`` in closed form (heuristic; Student families below the table
        size), ``None`` where there is none."""
        others = [a for a in range(self._K) if a != best]
        if self.family == "heuristic":
            return min(Z[a] for a in others) - math.log1p(math.log(t))
        if not self._student or max(counts) >= DEFAULT_TABLE_SIZE:
            return None
        # scipy is slow to import: loaded when a p-value is asked for
        from scipy.special import stdtr

        s = self._params.s
        if self._zeta_term is None:
            self._zeta_term = math.log(4.0 * (self._K - 1) * riemann_zeta(s))
        qs, ns = [], []
        for a in others:
            if not Z[a] > 0.0:
                return -math.inf
            for n in (int(counts[best]), int(counts[a])):
                ns.append(n)
                if self.family == "student":  # n ln(1 + q^2/(n-1)) < Z
                    qs.append(math.sqrt((n - 1) * math.expm1(min(Z[a] / n, 700.0))))
                else:  # n q^2/(n-1) < Z
                    qs.append(math.sqrt(Z[a] * (n - 1) / n))
        n_arr, q_arr = np.array(ns, dtype=np.float64), np.array(qs)
        with np.errstate(divide="ignore"):
            log_sf = np.log(stdtr(n_arr - 1.0, -q_arr))  # the Student tail at q
        far = ~(log_sf > -700.0)
        if far.any():  # far tail: scipy's log survival function
            # scipy is slow to import: loaded when a p-value is asked for
            from scipy import stats

            log_sf[far] = stats.t.logsf(q_arr[far], n_arr[far] - 1.0)
        return float(np.min(-log_sf - self._zeta_term - s * np.log(n_arr)))

    def level_at(
        self, t: int, counts, Z, best: int, states, floor: float = L_FLOOR, stopped=None
    ) -> float:
        """``ln(1/delta_t) = min_a L_a(t)`` at this check, or ``floor`` when the rule does not
        stop at level ``floor`` (then ``delta_t >= exp(-floor)``). ``stopped``: whether the
        rule at the identifier's level stopped at this check, if known."""
        closed = self._closed_form(t, counts, Z, best)
        if closed is not None:
            return closed if closed > floor else floor
        fast = self._fast_ready() and self._past_initial_counts(counts, best)
        if fast:
            if not self.stops_at(floor, t, counts, Z, best, states, self._shifted(floor)):
                return floor
            if stopped is None:
                nominal = self._nominal.fparams
                stopped = self.stops_at(self._L_nom, t, counts, Z, best, states, nominal)
            if not stopped:  # below the identifier's level: Brent's method, shifted thresholds
                return self._brent(floor, self._L_nom, t, counts, Z, best, states)
        if not self.stops_at(floor, t, counts, Z, best, states):
            return floor
        return self._bisect(floor, t, counts, Z, best, states)

    def _past_initial_counts(self, counts, best: int) -> bool:
        fp = self._nominal.fparams
        m = min(min(int(counts[best]), int(counts[a])) for a in range(self._K) if a != best)
        return m >= fp[_k.P_NMIN] and m >= fp[_k.P_NMIN_KL]

    def _bisect(self, lo: float, t, counts, Z, best, states) -> float:
        """The last level at which the rule stops, above ``lo`` (where it stops): doubling
        then bisection, the specification built at every level tried."""
        hi = max(2.0 * lo, 1.0)
        while self.stops_at(hi, t, counts, Z, best, states):
            lo, hi = hi, 2.0 * hi
            if lo >= L_CAP:
                return math.inf
        while True:
            mid = 0.5 * (lo + hi)
            if mid <= lo or mid >= hi:
                return lo
            if self.stops_at(mid, t, counts, Z, best, states):
                lo = mid
            else:
                hi = mid

    def _brent(self, lo: float, hi: float, t, counts, Z, best, states) -> float:
        """The last level in ``[lo, hi)`` at which the rule stops (it stops at ``lo``, not
        at ``hi``), on the shifted thresholds: ``min_a (Z_a - c_a(L))`` is continuous and
        non-increasing in ``L`` there; Brent's method, then the last double that stops."""
        # scipy is slow to import: loaded when a p-value is asked for
        from scipy.optimize import brentq

        def margin(L: float) -> float:
            thr = self.thresholds_at(L, t, counts, best, states, self._shifted(L))
            return min(Z[a] - thr[a] for a in range(self._K) if a != best)

        def stops(L: float) -> bool:
            return margin(L) > 0.0

        g_hi = margin(hi)
        while not math.isfinite(g_hi):  # an infinite threshold: bisect to a finite end
            mid = 0.5 * (lo + hi)
            if mid <= lo or mid >= hi:
                return lo
            g = margin(mid)
            if g > 0.0:
                lo = mid
            else:
                hi, g_hi = mid, g
        g_lo = margin(lo)
        if g_lo > 0.0 and g_hi < 0.0:
            x = brentq(margin, lo, hi, xtol=1e-300, rtol=4.0 * np.finfo(float).eps, maxiter=200)
            # the last double that stops, within a few ulps of Brent's root
            for _ in range(64):
                if stops(x):
                    up = math.nextafter(x, math.inf)
                    if up >= hi or not stops(up):
                        return x
                    lo, x = up, up
                else:
                    hi, x = x, math.nextafter(x, -math.inf)
                    if x <= lo:
                        return lo
        while True:  # margin exactly 0 at an end, or Brent's root far from the last double
            mid = 0.5 * (lo + hi)
            if mid <= lo or mid >= hi:
                return lo
            if stops(mid):
                lo = mid
            else:
                hi = mid

    def update(self, t: int, counts, Z, best: int, states, stopped=None) -> bool:
        """Take the check at ``t`` into account (``Z`` the statistics against ``best``;
        ``stopped``: whether the identifier's rule stopped there, if known); ``True`` when
        the p-value decreased."""
        floor = max(self.level, L_FLOOR)
        try:
            L = self.level_at(t, counts, Z, best, states, floor, stopped)
        except (ValueError, ArithmeticError):  # a level the family cannot evaluate: the
            return False  # check is left out, which only makes the p-value larger
        if L <= self.level or L == floor:
            return False
        self.level = L
        self.recommendation = int(best)
        self.time = int(t)
        return True
