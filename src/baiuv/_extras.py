"""Optional dependencies: a clear message naming the extra when one is missing.

``pip install baiuv`` installs what the identifier, the ``baiuv`` command, the
characteristic times and the thresholds need (numpy, scipy, numba). The Snakemake pipeline
(tables, figures, the Ipopt backends of the BoB threshold, the configuration schema, SLURM)
needs the extra ``pipeline``: ``pip install 'baiuv[pipeline]'``. Where a part of the
package needs one of its packages and it is not installed, :class:`MissingExtraError` says
so instead of a bare ``No module named ...``.
"""

from __future__ import annotations

import importlib
import importlib.util
from types import ModuleType

#: Import name -> distribution name of every package of the extra ``pipeline``.
PIPELINE_PACKAGES = {
    "pandas": "pandas",
    "pyarrow": "pyarrow",
    "pyomo": "pyomo",
    "cyipopt": "cyipopt-wheels",
    "matplotlib": "matplotlib",
    "seaborn": "seaborn",
    "yaml": "PyYAML",
    "jsonschema": "jsonschema",
    "markdown_it": "markdown-it-py",
    "tabulate": "tabulate",
    "snakemake": "snakemake",
}


class MissingExtraError(ModuleNotFoundError):
    """A package of an optional extra of baiuv is not installed."""


def missing_extra(name: str | None, what: str) -> MissingExtraError | None:
    """The error to raise when module ``name`` failed to import for ``what`` (``None``
    when ``name`` is not a package of an extra)."""
    top = (name or "").split(".")[0]
    if top not in PIPELINE_PACKAGES:
        return None
    return MissingExtraError(
        f"{what} needs {PIPELINE_PACKAGES[top]}, which is not installed: it comes with the "
        "optional dependencies of the pipeline, pip install 'baiuv[pipeline]'",
        name=name,
    )


def import_module(name: str, what: str) -> ModuleType:
    """``importlib.import_module(name)``, raising :class:`MissingExtraError` (naming the
    extra) when a package of an extra is missing."""
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        err = missing_extra(exc.name, what)
        if err is None:
            raise
        raise err from None


def require(package: str, *modules: str) -> None:
    """Raise :class:`MissingExtraError` at the import of ``package`` when one of
    ``modules`` (packages of the extra ``pipeline``) is not installed (found without being
    imported)."""
    for name in modules:
        try:
            found = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):  # a finder that refuses it, a broken install
            found = False
        if not found:
            raise missing_extra(name, package) or ModuleNotFoundError(name=name)
