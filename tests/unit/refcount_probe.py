"""How many reference-count updates a compiled function's own body makes, the probe of the
tests of borrowed views (decision D247)."""

from __future__ import annotations

import re


def refops(dispatcher) -> int:
    """The ``NRT_incref`` and ``NRT_decref`` calls in the LLVM body of the first compiled
    signature of the numba function ``dispatcher`` (its own body: inlined callees count,
    called ones do not)."""
    ir = dispatcher.inspect_llvm(dispatcher.signatures[0])
    name = dispatcher.py_func.__name__
    head = re.search(r"define [^\n]*" + name + r"[^\n]*\{", ir)
    body = ir[head.end() :]
    body = body[: body.find("\n}\n")]
    return body.count("@NRT_incref") + body.count("@NRT_decref")
