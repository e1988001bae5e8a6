"""Markdown tables from DataFrames, rendered by :mod:`tabulate`.

A leaf of the package: the experiments write their tables with it, the report pages
(:mod:`baiuv.report.tables`) show them as HTML.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # a type only: the report pages' jobs do not load pandas
    import pandas as pd

__all__ = ["format_cell", "markdown_table"]


def format_cell(v, floatfmt: str = ".4g") -> str:
    """Text of one table cell: floats with ``floatfmt`` (``–`` for NaN, ``∞`` for
    infinities), everything else by ``str``."""
    if isinstance(v, float):
        if math.isnan(v):
            return "–"
        if math.isinf(v):
            return "∞" if v > 0 else "−∞"
        return format(v, floatfmt)
    return str(v)


def _separator(colwidths, colaligns) -> str:
    return "|" + "|".join("---" for _ in colwidths) + "|"


def markdown_table(df: pd.DataFrame, floatfmt: str = ".4g") -> str:
    """Render ``df`` as a GitHub-flavoured Markdown table (a ``|`` inside a cell or a
    column name, as in ``|exact − Ipopt|``, is escaped so it does not split the cell).

    Cells are formatted by :func:`format_cell` and written as they are (no padding, no
    number parsing), one row per line.
    """
    # tabulate is a pipeline extra (D245): loaded on first use
    from tabulate import DataRow, TableFormat, tabulate

    def cell(text: str) -> str:
        return text.replace("|", "\\|")

    row = DataRow("| ", " | ", " |")
    fmt = TableFormat(
        lineabove=None,
        linebelowheader=_separator,
        linebetweenrows=None,
        linebelow=None,
        headerrow=row,
        datarow=row,
        padding=0,
        with_header_hide=None,
    )
    headers = [cell(str(c)) for c in df.columns]
    rows = [[cell(format_cell(v, floatfmt)) for v in r] for r in df.itertuples(index=False)]
    text = tabulate(
        rows,
        headers=headers,
        tablefmt=fmt,
        stralign=None,
        numalign=None,
        disable_numparse=True,
        preserve_whitespace=True,
    )
    return text + "\n"
