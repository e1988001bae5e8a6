"""Shard files of the experiments' run tables, shared by the workflow adapters.

A cell's runs are simulated by :func:`baiuv.simulation.engine.run_cell`;
:func:`write_shard` writes a shard table with its parameters and logs a one-line summary
(used by the ``*_shard.py`` adapters); :func:`read_shards` and :func:`concat_runs` read
them back and concatenate them, refusing a run simulated twice (the ``*_aggregate.py``
adapters).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping, Sequence

import pandas as pd

from baiuv.pipeline.io import read_table, write_table

__all__ = [
    "concat_runs",
    "read_shards",
    "shard_summary",
    "write_shard",
]


def shard_summary(df: pd.DataFrame) -> str:
    """``"<runs> runs, mean tau <m>, errors <e>, truncated <n>, <s> s"`` of a shard table."""
    mean = df["stopping_time"].mean() if len(df) else float("nan")
    errors = int((~df["correct"].astype(bool)).sum())
    truncated = int(df["truncated"].sum()) if "truncated" in df else 0
    return (
        f"{len(df)} runs, mean tau {mean:.1f}, errors {errors}, truncated {truncated}, "
        f"{df['wall_time'].sum():.1f} s"
    )


def write_shard(
    df: pd.DataFrame,
    path: str | os.PathLike,
    params: Mapping,
    log: logging.Logger,
    label: str,
) -> None:
    """Write a shard table with its ``params`` (:func:`baiuv.pipeline.io.write_table`) and log
    ``"<label>: <shard_summary>"``."""
    write_table(df, path, params)
    log.info("%s: %s", label, shard_summary(df))


def read_shards(paths: Sequence[str | os.PathLike]) -> tuple[list[pd.DataFrame], list[dict]]:
    """Tables and stored parameters of shard files (:func:`baiuv.pipeline.io.read_table`)."""
    frames, metas = [], []
    for path in paths:
        df, meta = read_table(path)
        frames.append(df)
        metas.append(meta)
    return frames, metas


def concat_runs(
    frames: Sequence[pd.DataFrame],
    keys: Sequence[str],
    *,
    sort_by: Sequence[str] | None = None,
    what: str = "shards",
) -> pd.DataFrame:
    """Concatenate the non-empty shard tables; ``ValueError`` if two rows share ``keys``
    (a run simulated twice). With ``sort_by``, rows are sorted by these columns (stable)
    and re-indexed."""
    out = pd.concat([f for f in frames if len(f)], ignore_index=True)
    dup = out.duplicated(list(keys))
    if dup.any():
        raise ValueError(f"{int(dup.sum())} duplicated runs in the {what}")
    if sort_by is not None:
        out = out.sort_values(list(sort_by), kind="stable").reset_index(drop=True)
    return out
