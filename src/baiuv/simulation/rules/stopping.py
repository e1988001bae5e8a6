"""The GLR stopping rule (Section ``ssec:GLR_stopping_rule``, eqs. ``def_stopping_rule_glrt``
/ ``def_stopping_rule_evglrt``) and the lazy stopping rule's grid (decision D70)."""

from __future__ import annotations

import math

from numba import njit

from baiuv.thresholds.kernels import pair_threshold_kernel


@njit(cache=True)
def glr_stop_check(
    thr_code, thr_fparams, thr_table, t, counts, best, Z, states, thr_out, all_pairs
):
    """GLR stopping rule: ``True`` when ``Z_a(t) > c_{hat a_t, a}(N_t, delta)`` for every
    ``a != hat a_t`` (eqs. ``def_stopping_rule_glrt`` / ``def_stopping_rule_evglrt``), the
    thresholds coming from ``baiuv.thresholds.kernels.pair_threshold_kernel``.

    The thresholds are written to ``thr_out`` (``nan`` for ``hat a_t`` and, unless
    ``all_pairs``, for the pairs after the first failing one: the simulator stops computing
    at the first challenger that is not beaten).
    """
    return stop_check_with(
        pair_threshold_kernel,
        thr_code,
        thr_fparams,
        thr_table,
        t,
        counts,
        best,
        Z,
        states,
        thr_out,
        all_pairs,
    )


@njit(inline="always")
def stop_check_with(
    threshold, thr_code, thr_fparams, thr_table, t, counts, best, Z, states, thr_out, all_pairs
):
    """:func:`glr_stop_check` with the thresholds of the kernel ``threshold`` (the signature
    of ``pair_threshold_kernel``): a threshold family registered with its own kernel. Not
    cached (it receives a compiled function): compiled once per process for that kernel."""
    K = counts.shape[0]
    for a in range(K):
        thr_out[a] = math.nan
    stop = True
    for a in range(K):
        if a == best:
            continue
        c = threshold(
            thr_code,
            thr_fparams,
            thr_table,
            float(t),
            counts[best],
            counts[a],
            states[best],
            states[a],
        )
        thr_out[a] = c
        if not (Z[a] > c):
            stop = False
            if not all_pairs:
                break
    return stop


@njit(cache=True)
def lazy_check_time(t0, ratio, k):
    """``k``-th time of the geometric grid of the lazy stopping rule, ``ceil(t0 ratio^k)``
    (end of Section ``ssec:simulations_stopping_thresholds``; decision D70)."""
    return int(math.ceil(t0 * ratio**k))


@njit(cache=True)
def lazy_next_index(t, t0, ratio, k):
    """Smallest ``k' >= k`` whose grid time ``ceil(t0 ratio^k')`` is ``> t``."""
    while lazy_check_time(t0, ratio, k) <= t:
        k += 1
    return k
