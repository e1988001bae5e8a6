"""Borrowed views (decision D247): the same memory as the array they come from, and no
reference counting left where an inlined kernel binds them (where it binds the arrays
themselves, numba's pruning leaves an atomic update per array and call)."""

import numpy as np
from numba import njit
from refcount_probe import refops

from baiuv.simulation.rules.borrow import borrowed


@njit
def _far(x):
    """A callee that is not inlined: its error status is checked after the call."""
    s = 0.0
    for i in range(int(x) % 7):
        s += np.log1p(x + i) * np.sqrt(x + i) / (1.0 + x)
    return s


@njit(inline="always")
def _kernel(a, m, n, thr):
    """The shape of the GLR kernels: a loop over arms, calls, an early return."""
    for i in range(n):
        if a[i] > 5.0:
            continue
        m[i, 2] = _far(a[i]) + _far(m[i, 0]) + m[i][1]
        if m[i, 2] > thr:
            return i
    return -1


@njit
def _loop_owned(a, m, n):
    s = 0
    for i in range(n):
        s += _kernel(a, m, n, 1.0 * i)
    return s


@njit
def _loop_borrowed(a, m, n):
    s = 0
    ab = borrowed(a)
    mb = borrowed(m)
    for i in range(n):
        s += _kernel(ab, mb, n, 1.0 * i)
    return s


def test_borrowed_views_share_the_memory_and_leave_no_reference_counting():
    a = np.linspace(0.5, 6.0, 6)
    m1 = np.arange(18.0).reshape(6, 3)
    m2 = m1.copy()
    assert _loop_owned(a, m1, 6) == _loop_borrowed(a, m2, 6)
    assert np.array_equal(m1, m2)  # the kernel wrote through the borrowed view
    assert refops(_loop_owned) > 0  # the cause: updates numba's pruning leaves
    assert refops(_loop_borrowed) == 0


def test_borrowed_view_keeps_type_shape_and_strides():
    @njit
    def view(x):
        b = borrowed(x)
        b[0, 1] = -1.0
        return b.shape, b.strides, b[1, 0]

    x = np.arange(6.0).reshape(2, 3)
    shape, strides, v = view(x)
    assert shape == x.shape and strides == x.strides and v == 3.0 and x[0, 1] == -1.0
