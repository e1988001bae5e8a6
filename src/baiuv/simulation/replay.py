"""Compiled loops of batched replay: observations already collected, fed in one call.

* :func:`ingest` feeds rows of observations to the identifier's run state with the two
  steps of the simulator's loop (:func:`~baiuv.simulation.rules.run_state.observe_sample`,
  :func:`~baiuv.simulation.rules.run_state.check_step`; D350: one run state, one step,
  three callers): :meth:`~baiuv.BestArmIdentifier.observe` is one row of it and
  :meth:`~baiuv.BestArmIdentifier.observe_many` many, so both stop at the same row with
  the same state.
* :func:`shape_update` is the per-arm shape statistics of the identifier's data warnings
  (moments and the first distinct values) over the rows consumed.
* :func:`parse_rows` reads ``arm,value`` text rows from a byte buffer for
  ``baiuv identify FILE`` (:mod:`baiuv.cli`): rows whose fields are plain ASCII decimal
  numbers (or labels) are converted here, exactly as Python's ``int``/``float`` would
  convert them; every other row is flagged for the command's Python parser, which keeps
  its error messages.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from baiuv.model.glr_kernels import glr_stats_into
from baiuv.simulation.rules.run_state import (
    NOT_CHECKED,
    borrowed_rule,
    borrowed_state,
    check_step,
    observe_sample,
    owned_state,
)
from baiuv.simulation.rules.stopping import check_thresholds
from baiuv.thresholds.kernels import S_INPUTS, depends_on_t_only, pair_threshold_kernel

__all__ = [
    "ROWS_OUT",
    "ROW_DECIMAL",
    "ROW_OK",
    "ROW_PYTHON",
    "STATUS_BUDGET",
    "STATUS_GLR",
    "STATUS_INIT_DONE",
    "STATUS_RAN_OUT",
    "ShapeStats",
    "ingest",
    "ingest_loop",
    "ingest_with",
    "label_table",
    "parse_rows",
    "shape_update",
]

#: :func:`ingest` consumed every row without stopping.
STATUS_RAN_OUT = 0
#: The GLR stopping rule fired at the last consumed row.
STATUS_GLR = 1
#: The budget ``max_samples`` was reached at the last consumed row.
STATUS_BUDGET = 2
#: The last consumed row completed the initialisation (every arm has ``n0`` observations):
#: the caller builds the sampling rules' workspace and evaluates the stopping rule once,
#: as :meth:`~baiuv.BestArmIdentifier.observe` does, then calls again with the next rows.
STATUS_INIT_DONE = 3


@njit(cache=True)
def ingest(rows, run, stop, io, out):
    """:func:`ingest_loop` with the built-in families' kernel
    :func:`~baiuv.thresholds.kernels.pair_threshold_kernel`, kept in numba's cache."""
    return ingest_loop(pair_threshold_kernel, rows, run, stop, io, out)


@njit
def ingest_with(threshold, rows, run, stop, io, out):
    """:func:`ingest_loop` with a family's own threshold kernel (compiled once per process
    and kernel)."""
    return ingest_loop(threshold, rows, run, stop, io, out)


@njit(inline="always")
def ingest_loop(threshold, rows, run, stop, io, out):
    """Observe ``(arms[i], values[i])`` for ``i = start, start + 1, ...`` until a stop:
    the rows and the two steps of the run state
    (:func:`~baiuv.simulation.rules.run_state.observe_sample`,
    :func:`~baiuv.simulation.rules.run_state.check_step`), the simulator's loop without its
    draws (D350: one run state, one step, three callers).

    ``rows = (arms, values, start)``; ``run`` is the identifier's
    :class:`~baiuv.simulation.rules.run_state.RunState`, ``stop`` its
    :class:`~baiuv.simulation.rules.run_state.StopRule`, ``threshold`` the family's kernel
    (with the signature of :func:`~baiuv.thresholds.kernels.pair_threshold_kernel`);
    ``io = (n0, max_samples, best, forced, checks, last_check_t, check_first)`` the
    identifier's scalars (the recommended arm, the forced arm, the number of checks, the
    time of the last) and ``check_first``: check the stopping rule at the current time
    before the first row (the check that ends the initialisation, after the caller has
    built the sampling rule's workspace). ``out = (Z, thr)`` receives the statistic of
    every challenger after the last row (``inf`` at the empirical best arm) and the
    thresholds the last check compared with (:func:`~baiuv.simulation.rules.check_thresholds`),
    when a check ran.

    Until every arm has ``n0`` observations the rows only update the statistics (the
    budget may end the run: unrequested arms); the row that completes the initialisation
    returns :data:`STATUS_INIT_DONE`. After it, each row is checked (on the lazy grid if
    any), exactly as :meth:`~baiuv.BestArmIdentifier.observe` of that row checks it.

    Returns ``(run, (end, status, best, forced, checks, last_check_t))``: the new state,
    rows ``start .. end - 1`` consumed, ``status`` one of the ``STATUS_*`` codes and the
    identifier's scalars after row ``end - 1``.
    """
    arms, values, start = rows
    n0, max_samples, best, forced, checks, last_check_t, check_first = io
    Z, thr = out
    owner = run
    run = borrowed_state(run)  # no reference counting per row (D247)
    stop = borrowed_rule(stop)
    counts = run.counts
    states = run.states
    K = counts.shape[0]
    n_under = 0  # arms below n0 observations (initialisation while > 0)
    for a in range(K):
        if counts[a] < n0:
            n_under += 1
    t_only = depends_on_t_only(stop.fparams)
    thr_t = -1  # >= 0: thr is to hold the thresholds of the check at time thr_t
    thr_best = -1
    thr_fail = -1
    # the counts and states of that check (a family that reads them): thr is written once,
    # at the end, as at that check
    thr_counts = owner.counts.copy()
    thr_states = owner.states.copy()
    n = arms.shape[0]
    status = STATUS_RAN_OUT
    end = n
    i = start
    checked_any = check_first
    while check_first or i < n:
        if not check_first:
            arm = arms[i]
            was_init = n_under > 0
            run, count = observe_sample(run, stop, arm, values[i])
            i += 1
            if count == n0:
                n_under -= 1
            if n_under > 0:  # still initialising: the budget may stop (unrequested arms)
                if run.t >= max_samples:
                    best = -1
                    for a in range(K):
                        if counts[a] > 0 and (best < 0 or run.means[a] > run.means[best]):
                            best = a
                    scalars = (i, STATUS_BUDGET, best, forced, checks, last_check_t)
                    return owned_state(run, owner), scalars
                continue
            if was_init:
                scalars = (i, STATUS_INIT_DONE, best, forced, checks, last_check_t)
                return owned_state(run, owner), scalars
        check_first = False
        checked_any = True
        run, forced, verdict = check_step(threshold, run, stop, True)
        t = run.t
        if verdict != NOT_CHECKED:
            checks += 1
            last_check_t = t
        if verdict >= -1:  # checked, the guard forcing no arm
            thr_t, thr_best, thr_fail = t, run.best, verdict  # thr written at the end
            if not t_only:
                for a in range(K):
                    thr_counts[a] = counts[a]
                if stop.stateful:  # the inputs; the memo recomputes (D418: keyed on its inputs)
                    for a in range(K):
                        for j in range(S_INPUTS):
                            thr_states[a, j] = states[a, j]
            if verdict == -1:
                status = STATUS_GLR
                end = i
                break
        if t >= max_samples:
            status = STATUS_BUDGET
            end = i
            break
    if checked_any:  # the statistics of the last row, exactly
        best = glr_stats_into(owner.counts, owner.means, owner.variances, stop.plug_in, Z)
    if thr_t >= 0:  # the thresholds of the last check, as glr_stop_check compared with
        family = (stop.code, stop.fparams, stop.table)
        check_thresholds(
            threshold, family, (thr_t, thr_counts, thr_best, thr_states), thr_fail, thr
        )
    return owned_state(run, owner), (end, status, best, forced, checks, last_check_t)


#: The per-arm arrays of :func:`shape_update`, one row per arm: the moments ``n, mean, m2,
#: m3`` and the tracked distinct values ``keys[s, :n_keys[s]]`` with their counts
#: ``kcounts``, ``overflow[s]`` set once a value could not be tracked.
ShapeStats = namedtuple(
    "ShapeStats", ("n", "mean", "m2", "m3", "keys", "kcounts", "n_keys", "overflow")
)


@njit(cache=True)
def shape_update(slot, values, shape):
    """Shape statistics of the identifier's data warnings over ``values``, updated in the
    arrays of ``shape`` (a :class:`ShapeStats`).

    ``slot[i]`` is the row of the per-arm arrays that ``values[i]`` belongs to. For each
    value, in order: the one-pass update of the first three central moments (Pebay, 2008;
    the same arithmetic as the identifier's per-observation update) and the count of the
    value among the arm's tracked distinct values (``keys[s, :n_keys[s]]``, in order of
    first appearance; a new value is tracked while fewer than ``keys.shape[1]`` are, else
    ``overflow[s]`` is set). Values compare with ``==``, as keys of a Python dict (found
    through a hash table of twice the capacity, keyed by the bits of ``x + 0.0``, so
    that ``-0.0`` and ``0.0`` meet).
    """
    n, mean, m2, m3 = shape.n, shape.mean, shape.m2, shape.m3
    keys, kcounts, n_keys, overflow = shape.keys, shape.kcounts, shape.n_keys, shape.overflow
    cap = keys.shape[1]
    P = keys.shape[0]
    size = 2 * cap  # a power of two
    table = np.full((P, size), -1, dtype=np.int64)  # position in keys[s], or -1
    scratch = np.empty(1)
    bits = scratch.view(np.uint64)
    for s in range(P):
        for j in range(n_keys[s]):
            h = _slot_of(keys[s, j], scratch, bits, size)
            while table[s, h] >= 0:
                h = (h + 1) & (size - 1)
            table[s, h] = j
    for i in range(values.shape[0]):
        s = slot[i]
        x = values[i]
        n1 = n[s]
        nn = n1 + 1
        d = x - mean[s]
        dn = d / nn
        t1 = d * dn * n1
        m3[s] += t1 * dn * (nn - 2) - 3.0 * dn * m2[s]
        m2[s] += t1
        mean[s] += dn
        n[s] = nn
        h = _slot_of(x, scratch, bits, size)
        while table[s, h] >= 0 and not (keys[s, table[s, h]] == x):
            h = (h + 1) & (size - 1)
        j = table[s, h]
        if j >= 0:
            kcounts[s, j] += 1
        elif n_keys[s] < cap:
            j = n_keys[s]
            keys[s, j] = x
            kcounts[s, j] = 1
            table[s, h] = j
            n_keys[s] = j + 1
        else:
            overflow[s] = True


@njit(cache=True, inline="always")
def _slot_of(x, scratch, bits, size):
    """Hash slot of the float ``x`` (``-0.0`` as ``0.0``) in a table of ``size`` slots."""
    scratch[0] = x + 0.0
    return int((bits[0] * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(40)) & (size - 1)


# --------------------------------------------------------------------------- text rows
#: :func:`parse_rows`: the row was converted (``arm``, ``value`` filled).
ROW_OK = 0
#: :func:`parse_rows`: the row needs the Python parser (``start``/``stop`` give its bytes).
ROW_PYTHON = 1
#: :func:`parse_rows`: the arm is converted, the value is a plain decimal for ``float()``
#: (``start``/``stop`` give the value's bytes).
ROW_DECIMAL = 2
#: Number of rows :func:`parse_rows` emits per call at most (the block size of replay).
ROWS_OUT = 65536

_NL = 10
_CR = 13
_SPACE = 32
_TAB = 9
_COMMA = 44
_HASH = 35
# 10**k for k = 0..22: exactly representable, so one multiplication or division by them
# is correctly rounded (Clinger's fast path)
_POW10 = np.array([10.0**k for k in range(23)])
_MAX_EXACT = 2**53


@njit(cache=True, inline="always")
def _is_blank(c):
    return c == _SPACE or c == _TAB


@njit(cache=True)
def _parse_uint(buf, lo, hi):
    """Decimal ASCII digits ``buf[lo:hi]`` (1 to 18 of them) as an int, else ``-1``."""
    if hi <= lo or hi - lo > 18:
        return -1
    v = 0
    for k in range(lo, hi):
        c = buf[k]
        if c < 48 or c > 57:
            return -1
        v = v * 10 + (c - 48)
    return v


@njit(cache=True)
def _parse_float(buf, lo, hi):
    """``(code, value)`` for the field ``buf[lo:hi]``.

    ``code`` 1: a plain decimal ``[+-]digits[.digits][(e|E)[+-]digits]`` with at most 15
    significant digits and a decimal exponent within 22 of them, converted here as
    ``float()`` converts it (one correctly rounded multiplication or division of two exact
    doubles, Clinger 1990); 2: a plain decimal outside that range (more digits, a larger
    exponent), left to ``float()``; 0: anything else (the caller's Python parser).
    """
    k = lo
    neg = False
    if k < hi and (buf[k] == 43 or buf[k] == 45):  # + -
        neg = buf[k] == 45
        k += 1
    sig = 0
    n_sig = 0  # significant digits (leading zeros not counted)
    n_dig = 0
    exp10 = 0
    while k < hi and 48 <= buf[k] <= 57:
        d = buf[k] - 48
        if n_sig > 0 or d != 0:
            n_sig += 1
            if n_sig <= 15:
                sig = sig * 10 + d
        n_dig += 1
        k += 1
    if k < hi and buf[k] == 46:  # .
        k += 1
        while k < hi and 48 <= buf[k] <= 57:
            d = buf[k] - 48
            if n_sig > 0 or d != 0:
                n_sig += 1
                if n_sig <= 15:
                    sig = sig * 10 + d
            exp10 -= 1
            n_dig += 1
            k += 1
    if n_dig == 0:
        return 0, 0.0
    n_e = 0
    if k < hi and (buf[k] == 101 or buf[k] == 69):  # e E
        k += 1
        eneg = False
        if k < hi and (buf[k] == 43 or buf[k] == 45):
            eneg = buf[k] == 45
            k += 1
        e = 0
        while k < hi and 48 <= buf[k] <= 57:
            if n_e < 5:
                e = e * 10 + (buf[k] - 48)
            n_e += 1
            k += 1
        if n_e == 0:
            return 0, 0.0
        exp10 += -e if eneg else e
    if k != hi:
        return 0, 0.0
    if n_sig > 15 or n_e > 4:
        return 2, 0.0
    if sig == 0:
        v = 0.0
    elif exp10 == 0:
        v = float(sig)
    elif 0 < exp10 <= 22:
        v = float(sig) * _POW10[exp10]
    elif -22 <= exp10 < 0:
        v = float(sig) / _POW10[-exp10]
    else:
        return 2, 0.0
    return 1, -v if neg else v


@njit(cache=True)
def _label_index(buf, lo, hi, lab_bytes, lab_start, lab_order):
    """Index of the label equal to ``buf[lo:hi]`` (labels sorted by bytes:
    ``lab_order[j]`` is the index of the ``j``-th, stored at
    ``lab_bytes[lab_start[j]:lab_start[j + 1]]``), else ``-1``. Binary search."""
    left = 0
    right = lab_order.shape[0] - 1
    n = hi - lo
    while left <= right:
        mid = (left + right) // 2
        s = lab_start[mid]
        m = lab_start[mid + 1] - s
        cmp = 0
        for k in range(min(n, m)):
            c1 = buf[lo + k]
            c2 = lab_bytes[s + k]
            if c1 != c2:
                cmp = -1 if c1 < c2 else 1
                break
        if cmp == 0 and n != m:
            cmp = -1 if n < m else 1
        if cmp == 0:
            return lab_order[mid]
        if cmp < 0:
            right = mid - 1
        else:
            left = mid + 1
    return -1


@njit(cache=True)
def parse_rows(buf, span, labels, out):
    """Parse the complete lines of ``buf[pos:end]`` (``end`` is just after a newline, or
    the end of the data; ``span = (pos, end, lineno)``) into at most ``arm_out.shape[0]``
    rows of ``out = (arm_out, val_out, line_out, kind_out, start_out, stop_out)``, with the
    arms' ``labels = (lab_bytes, lab_start, lab_order)`` (:func:`label_table`).

    ``lineno`` is the line number of the line at ``pos``. Blank lines (spaces, tabs) and
    ASCII lines whose first non-blank character is ``#`` are skipped. A line is converted
    here (kind :data:`ROW_OK`) when it is ``arm,value`` with optional spaces or tabs
    around the fields (and an optional carriage return at the end), every byte ASCII, the
    value a plain decimal number that :func:`_parse_float` converts and the arm a label
    (exact bytes) when there are labels, else 1 to 18 decimal digits; such a line whose value is a plain decimal
    that only ``float()`` converts exactly is kind :data:`ROW_DECIMAL`; line 1 (a possible
    header or byte-order mark) and every other line are kind :data:`ROW_PYTHON`. Returns ``(n_rows, pos, lineno)``:
    rows emitted and where the next call starts.
    """
    pos, end, lineno = span
    lab_bytes, lab_start, lab_order = labels
    arm_out, val_out, line_out, kind_out, start_out, stop_out = out
    cap = arm_out.shape[0]
    n = 0
    with_labels = lab_order.shape[0] > 0
    while pos < end and n < cap:
        lo = pos
        nl = lo
        while nl < end and buf[nl] != _NL:
            nl += 1
        hi = nl
        pos = nl + 1 if nl < end else end
        line = lineno
        lineno += 1
        if hi > lo and buf[hi - 1] == _CR:
            hi -= 1
        # one pass: ASCII check, the comma, blank-only lines
        comma = -1
        n_comma = 0
        ascii_ok = True
        first = -1
        for k in range(lo, hi):
            c = buf[k]
            if c >= 128 or (c < 32 and c != _TAB):
                ascii_ok = False
            elif c == _COMMA:
                n_comma += 1
                comma = k
            if first < 0 and not _is_blank(c):
                first = k
        if first < 0 and ascii_ok:
            continue  # blank line
        if ascii_ok and buf[first] == _HASH and line != 1:
            continue  # comment
        ok = ascii_ok and n_comma == 1 and line != 1
        kind = ROW_PYTHON
        arm = -1
        val = 0.0
        if ok:
            a_lo = lo
            while a_lo < comma and _is_blank(buf[a_lo]):
                a_lo += 1
            a_hi = comma
            while a_hi > a_lo and _is_blank(buf[a_hi - 1]):
                a_hi -= 1
            v_lo = comma + 1
            while v_lo < hi and _is_blank(buf[v_lo]):
                v_lo += 1
            v_hi = hi
            while v_hi > v_lo and _is_blank(buf[v_hi - 1]):
                v_hi -= 1
            if with_labels:  # labels only: an index is left to Python, which refuses it
                arm = _label_index(buf, a_lo, a_hi, lab_bytes, lab_start, lab_order)
            else:
                arm = _parse_uint(buf, a_lo, a_hi)
            code, val = _parse_float(buf, v_lo, v_hi)
            ok = code == 1 and arm >= 0
            if code == 2 and arm >= 0:
                kind = ROW_DECIMAL
                lo, nl = v_lo, v_hi  # the value's bytes
        arm_out[n] = arm
        val_out[n] = val
        line_out[n] = line
        kind_out[n] = ROW_OK if ok else kind
        start_out[n] = lo
        stop_out[n] = nl
        n += 1
    return n, pos, lineno


def label_table(labels) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(lab_bytes, lab_start, lab_order)`` of :func:`parse_rows` for ``labels`` (UTF-8;
    empty arrays for no labels)."""
    if not labels:
        return np.zeros(0, np.uint8), np.zeros(1, np.int64), np.zeros(0, np.int64)
    encoded = [lab.encode("utf-8") for lab in labels]
    order = sorted(range(len(encoded)), key=lambda i: encoded[i])
    starts = np.zeros(len(encoded) + 1, np.int64)
    for j, i in enumerate(order):
        starts[j + 1] = starts[j] + len(encoded[i])
    data = np.frombuffer(b"".join(encoded[i] for i in order), np.uint8).copy()
    return data, starts, np.array(order, np.int64)
