"""Deferred imports: the package's one mechanism for importing a module on first use.

``import baiuv`` runs in every pipeline job and every Snakemake parse; importing scipy,
Pyomo, the threshold kernels and the simulation engine eagerly cost seconds each time
(decision D105: ``import baiuv`` is cheap, names are imported on first use).

* :func:`deferred_attributes`: a package lists its public names and the module defining
  each one (PEP 562); the defining module is imported the first time the name is looked up.
* :class:`DeferredModule`: a module object stand-in whose first attribute access imports
  the module (Pyomo in :mod:`baiuv.thresholds.bob`, needed only by the Ipopt backends; the
  numba kernels in :mod:`baiuv.simulation.engine`, :mod:`baiuv.model.characteristic` and
  :mod:`baiuv.experiments.thresholds`, needed only by the functions that call them, decision
  D227).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

from baiuv._extras import import_module, missing_extra


def deferred_attributes(
    package: str, names: Mapping[str, str], namespace: dict[str, Any]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package``.

    ``names`` maps a public name to the module that defines it (absolute, or relative to
    ``package`` when it starts with a dot). A name mapped to ``"."+name`` whose module *is*
    the submodule ``package.name`` (e.g. ``"kernels": ".kernels"``) resolves to the
    submodule itself. Resolved values are stored in ``namespace`` (the package's globals),
    so each name is imported once.
    """

    def __getattr__(name: str) -> Any:
        target = names.get(name)
        if target is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        try:
            module = importlib.import_module(target, package)
        except ModuleNotFoundError as exc:  # a package of an extra: name it
            err = missing_extra(exc.name, f"{package}.{name}")
            if err is None:
                raise
            raise err from None
        value = module if module.__name__ == f"{package}.{name}" else getattr(module, name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(names))

    return __getattr__, __dir__


class DeferredModule:
    """Import module ``name`` on first attribute access (``purpose`` names what needs it
    in the message of a missing optional dependency, :mod:`baiuv._extras`).

    Each attribute is looked up in the module once and kept on the stand-in, as a
    ``from name import attr`` would bind it: later accesses are plain attribute reads (tens
    of nanoseconds, against about half a microsecond through ``__getattr__``), so a
    stand-in can serve a call made once per simulated run. Meant for modules whose
    attributes are not rebound after import.
    """

    def __init__(self, name: str, purpose: str | None = None):
        self._name = name
        self._purpose = purpose or f"baiuv ({name})"
        self._mod = None

    def __getattr__(self, attr):
        if self._mod is None:
            self._mod = import_module(self._name, self._purpose)
        value = getattr(self._mod, attr)
        setattr(self, attr, value)
        return value
