"""The Student-calibrated heuristic ``ev-heuristic-student`` of the EV-GLR statistic,
beyond the paper (not δ-correct; :mod:`baiuv.studies.ev_remedies`): the heuristic's
Gaussian level recalibrated for the studentised EV-GLR gap."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..layout import LB_FLOOR, P_LOGINVDELTA, P_NMIN, upper_window
from .student import student_y_bound

NAMES = ("ev-heuristic-student",)


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
    """Student-calibrated heuristic threshold of the EV-GLR statistic.

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


@njit(cache=True)
def value(code, fparams, table, t, n_a, n_b, state_a, state_b) -> float:
    """:func:`ev_heuristic_student` at the pair's counts (``+inf`` below 2 samples)."""
    nmin = fparams[P_NMIN]
    if n_a < nmin or n_b < nmin:
        return math.inf
    return ev_heuristic_student(n_a, n_b, fparams[P_LOGINVDELTA])


@njit(cache=True)
def upper_bound(code, fparams, table, n_a, n_b, state_a, state_b):
    """Non-increasing in the smaller count and non-decreasing in the sum of the counts:
    its value at the smaller count and the windows' largest sum (D348)."""
    hi_a = upper_window(n_a)
    hi_b = upper_window(n_b)
    v = _ev_heuristic_student_at(min(n_a, n_b), hi_a + hi_b, fparams[P_LOGINVDELTA])
    return v, float(hi_a), float(hi_b)


@njit(cache=True)
def lower_bound_floor(n_sum: int, fparams: np.ndarray) -> float:
    """``ln(1 + ln(N_a + N_b)) + ln(1/delta)`` at ``n_sum = N_a + N_b``: a lower bound of
    the Student-calibrated heuristic (:func:`ev_heuristic_student`; its ``Z^EV`` level
    ``(m/2)(e^y - 1) >= (m/2) q^2/(m - 1) >= q^2/2 >= c``, the Student quantile ``q``
    being at least the Gaussian one, ``sqrt(2c)``), non-decreasing in the counts (D254:
    the floor bound of this family)."""
    return math.log1p(math.log(float(n_sum))) + fparams[P_LOGINVDELTA]


def initial_count(name: str, K: int, lid: float, params) -> int:
    """Finite once both arms have 2 samples."""
    return 2


def constants(name: str, fp: np.ndarray, K: int, lid: float, params, n_table: int):
    """No constants beyond ``ln(1/delta)``; no table."""
    return np.empty(0)


def lower_bound(name: str, fp: np.ndarray, table: np.ndarray):
    """Decreasing in the smaller count: its floor :func:`lower_bound_floor` instead
    (``LB_FLOOR``; D254)."""
    return LB_FLOOR, math.inf
