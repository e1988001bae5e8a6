"""Borrowed views: an array that reads and writes the memory of an array alive in the
caller, without holding a reference to it (decision D247).

numba counts the references of every array a compiled function binds: a kernel called
from the GLR loop with the loop's arrays increments and decrements (atomically) the
count of each of them at every call, whether numba inlines it or not, because numba's
pruning of these updates (llvmlite's ``RefPrune`` pass) gives up in a function of a
kernel's shape: a path of more than 15 blocks from the increment to its decrement, or a
function exit (a return, an error raised by a callee) in between. A borrowed view has no
owner (a null ``meminfo``): after inlining, its updates are updates of a constant null
pointer, which the pass removes. A borrowed view is valid while the array it was made
from is alive; the GLR loop makes them from its own arrays, alive until it returns, and
passes them to inlined kernels only.
"""

from __future__ import annotations

from numba import njit
from numba.core import cgutils
from numba.core.types import Array
from numba.extending import intrinsic
from numba.np.arrayobj import make_array, populate_array


@intrinsic
def borrowed(typingctx, arr):
    """A view of ``arr`` (same type, data, shape and strides) that holds no reference to
    it: valid while ``arr`` is alive; for the arguments of inlined kernels only."""
    if not isinstance(arr, Array):
        return None

    def codegen(context, builder, sig, args):
        src = make_array(sig.args[0])(context, builder, value=args[0])
        out = make_array(sig.return_type)(context, builder)
        populate_array(
            out,
            data=src.data,
            shape=src.shape,
            strides=src.strides,
            itemsize=src.itemsize,
            meminfo=cgutils.get_null_value(src.meminfo.type),
        )
        return out._getvalue()

    return arr(arr), codegen


@njit(inline="always")
def alive(arrays):
    """A use of ``arrays`` (a tuple): numba frees an array after the last use of the last
    variable that refers to it, and a borrowed view does not refer to it, so a function
    that made views of its own arrays calls this after their last use."""
    return len(arrays)
