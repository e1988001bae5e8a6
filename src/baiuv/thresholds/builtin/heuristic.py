"""The heuristic threshold ``ln((1 + ln t)/delta)`` (Section ssec:experiments), usable
with both stopping rules; not δ-correct, depends on ``t`` alone."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..layout import LB_NONE, P_LOGINVDELTA

NAMES = ("heuristic",)


@njit(cache=True)
def value(code, fparams, table, t, n_a, n_b, state_a, state_b) -> float:
    """``ln(1 + ln t) + ln(1/delta)`` (``+inf`` before ``t = 1``)."""
    if t < 1.0:
        return math.inf
    return math.log1p(math.log(t)) + fparams[P_LOGINVDELTA]


def initial_count(name: str, K: int, lid: float, params) -> int:
    """Finite from the first sample."""
    return 1


def constants(name: str, fp: np.ndarray, K: int, lid: float, params, n_table: int):
    """No constants beyond ``ln(1/delta)``; no table."""
    return np.empty(0)


def lower_bound(name: str, fp: np.ndarray, table: np.ndarray):
    """None: the simulator bounds the heuristic between exact evaluations in ``t`` (D192)."""
    return LB_NONE, math.inf
