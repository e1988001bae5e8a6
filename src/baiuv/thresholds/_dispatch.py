"""The numba dispatchers of the built-in threshold families, one branch per family under its
registry code. Written by :mod:`baiuv.thresholds.generate_dispatch` from the registry's
table: do not edit (``python -m baiuv.thresholds.generate_dispatch`` rewrites it).
"""

from __future__ import annotations

import math

from numba import njit

from baiuv.thresholds.builtin import bob, box, ev_heuristic_student, heuristic, kl, student


@njit(cache=True)
def pair_threshold_kernel(code, fparams, table, t, n_a, n_b, state_a, state_b):
    """Threshold ``c_{a,b}(N_t, delta)`` of the built-in family ``code`` for one pair of arms
    (``+inf`` before its initial times): the ``value`` of the family's module
    (:mod:`baiuv.thresholds.builtin`); ``ValueError`` for another code."""
    if code == 0:  # heuristic
        return heuristic.value(code, fparams, table, t, n_a, n_b, state_a, state_b)
    if code == 1:  # student
        return student.value(code, fparams, table, t, n_a, n_b, state_a, state_b)
    if code == 2:  # box
        return box.value(code, fparams, table, t, n_a, n_b, state_a, state_b)
    if code == 3:  # kl
        return kl.value(code, fparams, table, t, n_a, n_b, state_a, state_b)
    if code == 4:  # bob
        return bob.value(code, fparams, table, t, n_a, n_b, state_a, state_b)
    if code == 5:  # ev-student
        return student.value(code, fparams, table, t, n_a, n_b, state_a, state_b)
    if code == 6:  # ev-box
        return box.value(code, fparams, table, t, n_a, n_b, state_a, state_b)
    if code == 7:  # ev-bob
        return bob.value(code, fparams, table, t, n_a, n_b, state_a, state_b)
    if code == 8:  # ev-heuristic-student
        return ev_heuristic_student.value(code, fparams, table, t, n_a, n_b, state_a, state_b)
    raise ValueError("unknown threshold code")


@njit(cache=True)
def family_upper_bound(code, fparams, table, n_a, n_b, state_a, state_b):
    """The ``upper_bound`` of the family's module, ``(inf, -1, -1)`` for a family without
    one (:func:`baiuv.thresholds.kernels.pair_upper_bound`)."""
    if code == 1:  # student
        return student.upper_bound(code, fparams, table, n_a, n_b, state_a, state_b)
    if code == 2:  # box
        return box.upper_bound(code, fparams, table, n_a, n_b, state_a, state_b)
    if code == 3:  # kl
        return kl.upper_bound(code, fparams, table, n_a, n_b, state_a, state_b)
    if code == 4:  # bob
        return bob.upper_bound(code, fparams, table, n_a, n_b, state_a, state_b)
    if code == 5:  # ev-student
        return student.upper_bound(code, fparams, table, n_a, n_b, state_a, state_b)
    if code == 6:  # ev-box
        return box.upper_bound(code, fparams, table, n_a, n_b, state_a, state_b)
    if code == 7:  # ev-bob
        return bob.upper_bound(code, fparams, table, n_a, n_b, state_a, state_b)
    if code == 8:  # ev-heuristic-student
        return ev_heuristic_student.upper_bound(code, fparams, table, n_a, n_b, state_a, state_b)
    return math.inf, -1.0, -1.0


@njit(cache=True)
def family_update_state(code, fparams, state, n, mean, var):
    """The ``update_state`` of a stateful family's module
    (:func:`baiuv.thresholds.kernels.update_state`)."""
    if code == 3:  # kl
        kl.update_state(code, fparams, state, n, mean, var)
        return
    if code == 4:  # bob
        bob.update_state(code, fparams, state, n, mean, var)
        return
    if code == 7:  # ev-bob
        bob.update_state(code, fparams, state, n, mean, var)
        return
    return
