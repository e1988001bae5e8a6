"""Writes :mod:`baiuv.thresholds._dispatch` from the registry's table of threshold families
(D395: a generated dispatcher module, committed, so that the one cached loop holds every
built-in family and no process recompiles).

Each built-in family (a record of :data:`baiuv.registry.THRESHOLD_FAMILIES` with a
``module``) gets a branch under its code in the three numba dispatchers: its module's
``value`` in ``pair_threshold_kernel``, its ``upper_bound`` (if it has one) in
``family_upper_bound`` and, for a stateful family, its ``update_state`` in
``family_update_state``. ``tests/unit/test_dispatch.py`` fails when the committed module
differs from :func:`render`'s text; ``python -m baiuv.thresholds.generate_dispatch``
rewrites it.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

from baiuv import registry
from baiuv.storage.io import rewrite_text

#: the generated module
TARGET = Path(__file__).with_name("_dispatch.py")

_HEAD = '''"""The numba dispatchers of the built-in threshold families, one branch per family under its
registry code. Written by :mod:`baiuv.thresholds.generate_dispatch` from the registry's
table: do not edit (``python -m baiuv.thresholds.generate_dispatch`` rewrites it).
"""

from __future__ import annotations

import math

from numba import njit

{imports}


@njit(cache=True)
def pair_threshold_kernel(code, fparams, table, t, n_a, n_b, state_a, state_b):
    """Threshold ``c_{{a,b}}(N_t, delta)`` of the built-in family ``code`` for one pair of arms
    (``+inf`` before its initial times): the ``value`` of the family's module
    (:mod:`baiuv.thresholds.builtin`); ``ValueError`` for another code."""
{value}
    raise ValueError("unknown threshold code")


@njit(cache=True)
def family_upper_bound(code, fparams, table, n_a, n_b, state_a, state_b):
    """The ``upper_bound`` of the family's module, ``(inf, -1, -1)`` for a family without
    one (:func:`baiuv.thresholds.kernels.pair_upper_bound`)."""
{upper}
    return math.inf, -1.0, -1.0


@njit(cache=True)
def family_update_state(code, fparams, state, n, mean, var):
    """The ``update_state`` of a stateful family's module
    (:func:`baiuv.thresholds.kernels.update_state`)."""
{state}
    return
'''


def _branch(code: int, name: str, call: str, value: bool = True) -> str:
    ret = f"return {call}" if value else f"{call}\n        return"
    return f"    if code == {code}:  # {name}\n        {ret}"


def render() -> str:
    """The text of :mod:`baiuv.thresholds._dispatch` for the registry's current table."""
    aliases: dict[str, str] = {}
    value, upper, state = [], [], []
    for f in registry.THRESHOLD_FAMILIES.values():
        if f.kernel is not None:
            continue
        if not f.module:
            raise ValueError(f"built-in threshold family {f.name!r} names no module")
        mod = importlib.import_module(f.module)
        if f.name not in getattr(mod, "NAMES", ()):
            raise ValueError(f"module {f.module} does not list family {f.name!r} in NAMES")
        alias = f.module.rpartition(".")[2]
        if aliases.setdefault(alias, f.module) != f.module:
            raise ValueError(f"two family modules named {alias!r}")
        value.append(
            _branch(
                f.code,
                f.name,
                f"{alias}.value(code, fparams, table, t, n_a, n_b, state_a, state_b)",
            )
        )
        if hasattr(mod, "upper_bound"):
            call = f"{alias}.upper_bound(code, fparams, table, n_a, n_b, state_a, state_b)"
            upper.append(_branch(f.code, f.name, call))
        if f.stateful:
            if not hasattr(mod, "update_state"):
                raise ValueError(f"stateful family {f.name!r}: {f.module} has no update_state")
            call = f"{alias}.update_state(code, fparams, state, n, mean, var)"
            state.append(_branch(f.code, f.name, call, value=False))
    packages: dict[str, list[str]] = {}
    for module in aliases.values():
        package, _, leaf = module.rpartition(".")
        packages.setdefault(package, []).append(leaf)
    imports = []
    for package, leaves in sorted(packages.items()):
        line = f"from {package} import {', '.join(sorted(leaves))}"
        if len(line) > 100:  # the formatter's layout
            line = f"from {package} import (\n" + "".join(f"    {m},\n" for m in sorted(leaves))
            line += ")"
        imports.append(line)
    return _HEAD.format(
        imports="\n".join(imports),
        value="\n".join(value),
        upper="\n".join(upper),
        state="\n".join(state),
    )


def main() -> int:
    """Rewrite :data:`TARGET` when it differs from :func:`render`."""
    print(f"wrote {TARGET}" if rewrite_text(render(), TARGET) else f"{TARGET.name} is up to date")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
