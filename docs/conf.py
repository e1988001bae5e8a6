"""Sphinx configuration of the baiuv documentation (``docs/``, built by ``./run-tests.sh``).

Build: ``sphinx-build -W --keep-going -b html docs docs/_build/html`` (offline: no
intersphinx, no downloads). Pages written at build time from the sources they document
(the API listing from the packages' ``__all__``, the configuration reference from the
schema, the performance page from benchmark output) go to ``docs/_generated/``
(git-ignored) by the local extension ``docs/_ext/baiuv_docs.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS / "_ext"))
sys.path.insert(0, str(DOCS.parent / "src"))

project = "baiuv"
author = "Marc Jourdan, Rémy Degenne, Emilie Kaufmann (paper); baiuv maintainers (artifact)"
copyright = "2023-2026, the baiuv authors"

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
    "baiuv_docs",
]

source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
exclude_patterns = [
    "_build",
    "paper-scale/tables",  # published Markdown tables, linked from the reports
    "_generated/*.md",  # included by configuration.md and performance.md
]

myst_enable_extensions = ["colon_fence", "dollarmath"]
myst_heading_anchors = 3

# API reference: one page per public name (autosummary), numpydoc docstrings.
autosummary_generate = True
# the constants' pages are written by docs/_ext/baiuv_docs.py (value and #: comment)
autosummary_generate_overwrite = False
autodoc_default_options = {"members": False}
autodoc_typehints = "none"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
# A public name without a docstring fails the build (warnings are errors).
numpydoc_validation_checks = {"GL08"}
# __init__ is documented by its class's docstring (numpydoc convention)
numpydoc_validation_exclude = {r"\.__init__$"}

html_theme = "pydata_sphinx_theme"
html_title = "baiuv"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "secondary_sidebar_items": ["page-toc"],
}
html_static_path: list[str] = []
html_show_sourcelink = False
