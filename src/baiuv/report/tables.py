"""Markdown tables from DataFrames (no extra dependency)."""

from __future__ import annotations

import math

import pandas as pd


def _fmt(v, floatfmt: str) -> str:
    if isinstance(v, float):
        if math.isnan(v):
            return "–"
        if math.isinf(v):
            return "∞" if v > 0 else "−∞"
        return format(v, floatfmt)
    return str(v)


def markdown_table(df: pd.DataFrame, floatfmt: str = ".4g") -> str:
    """Render ``df`` as a GitHub-flavoured Markdown table."""
    cols = [str(c) for c in df.columns]
    lines = ["| " + " | ".join(cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    for row in df.itertuples(index=False):
        lines.append("| " + " | ".join(_fmt(v, floatfmt) for v in row) + " |")
    return "\n".join(lines) + "\n"
