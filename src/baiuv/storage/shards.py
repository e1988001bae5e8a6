"""Shard files of the experiments' run tables, shared by the workflow adapters.

A cell's runs are simulated by :func:`baiuv.simulation.engine.run_cell`;
:func:`write_shard` writes a shard table with its parameters and logs a one-line summary
(used by :mod:`baiuv.pipeline.cells`); :func:`read_shards` and :func:`concat_runs` read
them back and concatenate them, refusing a run simulated twice (the ``*_aggregate.py``
adapters). Each consumer states what it expects of every shard (experiment, instance,
algorithm, parameters, seed, shard number: the ``expect`` parameter of the aggregate rules)
and :func:`read_shards` refuses a shard whose recorded parameters differ
(:func:`check_provenance`), so a valid shard of another cell copied over a shard is never
counted.

Timings apart from results (decision D131): the run tables carry the wall-clock time of each
run (:data:`TIMING_COLUMNS`), which differs between two runs of the same configuration. A
shard is therefore written as two files: the result file (every other column, identical on
every machine and executor) and a timing file under ``results/timings/`` holding the run's
key columns (:data:`RUN_KEY_COLUMNS`) and its wall time. :func:`aggregate_timings`
concatenates the timing files of an aggregate the same way.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from baiuv.storage.io import CorruptResultError, jsonable, read_table, write_table

if TYPE_CHECKING:  # imported where tables are built: see baiuv.storage.io
    import pandas as pd

__all__ = [
    "RUN_KEY_COLUMNS",
    "TIMING_COLUMNS",
    "aggregate_timings",
    "check_provenance",
    "concat_runs",
    "read_shards",
    "shard_summary",
    "split_timings",
    "write_shard",
]

#: Columns of the run tables that measure time: they go to timing files, never to result
#: files.
TIMING_COLUMNS = ("wall_time",)

#: Columns that identify a run in the experiments' run tables; those present in a table are
#: repeated in its timing file, so that a wall time can be joined back to its run.
RUN_KEY_COLUMNS = (
    "experiment",
    "instance",
    "instance_index",
    "algorithm",
    "threshold",
    "delta",
    "log_inv_delta",  # the level itself: delta underflows to 0.0 beyond ln(1/delta) ~ 745
    "n0",
    "run",
)


def shard_summary(df: pd.DataFrame) -> str:
    """``"<runs> runs, mean tau <m>, errors <e>, truncated <n>, <s> s"`` of a shard table."""
    mean = df["stopping_time"].mean() if len(df) else float("nan")
    errors = int((~df["correct"].astype(bool)).sum())
    truncated = int(df["truncated"].sum()) if "truncated" in df else 0
    return (
        f"{len(df)} runs, mean tau {mean:.1f}, errors {errors}, truncated {truncated}, "
        f"{df['wall_time'].sum():.1f} s"
    )


def split_timings(df: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``(results, timings)`` of a run table: ``results`` without :data:`TIMING_COLUMNS`,
    ``timings`` with the run's key columns (:data:`RUN_KEY_COLUMNS` present in ``df``) and
    the timing columns. ``ValueError`` if ``df`` has no timing column or no key column."""
    timing = [c for c in df.columns if c in TIMING_COLUMNS]
    keys = [c for c in RUN_KEY_COLUMNS if c in df.columns]
    if not timing:
        raise ValueError(f"df has none of the timing columns {list(TIMING_COLUMNS)}")
    if not keys:
        raise ValueError(f"df has none of the run key columns {list(RUN_KEY_COLUMNS)}")
    return df.drop(columns=timing), df[keys + timing].reset_index(drop=True)


def write_shard(
    df: pd.DataFrame,
    path: str | os.PathLike,
    params: Mapping,
    log: logging.Logger,
    label: str,
    timings_path: str | os.PathLike,
) -> None:
    """Write a shard table: its results to ``path`` and its timings to ``timings_path``
    (:func:`split_timings`; both with ``params``, :func:`baiuv.storage.io.write_table`),
    then log ``"<label>: <shard_summary>"``."""
    results, timings = split_timings(df)
    write_table(timings, timings_path, params)
    write_table(results, path, params)
    log.info("%s: %s", label, shard_summary(df))


_MISSING = object()


def check_provenance(path: str | os.PathLike, meta: Mapping, expected: Mapping) -> None:
    """Raise :class:`~baiuv.storage.io.CorruptResultError` naming ``path`` and the field
    unless every ``expected`` field equals the one recorded in ``meta`` (the shard's stored
    parameters). Keys are dotted paths into ``meta`` (``"instance.name"``); values are
    compared as stored (JSON: tuples as lists, arrays as lists)."""
    for key, want in expected.items():
        got = meta
        for part in key.split("."):
            got = got.get(part, _MISSING) if isinstance(got, Mapping) else _MISSING
        want = jsonable(want)
        if got is _MISSING or got != want:
            shown = "missing" if got is _MISSING else repr(got)
            raise CorruptResultError(
                path, f"not the expected shard: {key} is {shown}, expected {want!r}"
            )


def read_shards(
    paths: Sequence[str | os.PathLike], expected: Sequence[Mapping] | None = None
) -> tuple[list[pd.DataFrame], list[dict]]:
    """Tables and stored parameters of shard files (:func:`baiuv.storage.io.read_table`,
    which checks each file's content digest). With ``expected`` (one mapping per path),
    each file's parameters are checked against it (:func:`check_provenance`)."""
    if expected is not None and len(expected) != len(paths):
        raise ValueError(f"{len(expected)} expectations for {len(paths)} files")
    frames, metas = [], []
    for i, path in enumerate(paths):
        df, meta = read_table(path)
        if expected is not None:
            check_provenance(path, meta, expected[i])
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
    # pandas loads where a run table is built (D223)
    import pandas as pd

    out = pd.concat([f for f in frames if len(f)], ignore_index=True)
    dup = out.duplicated(list(keys))
    if dup.any():
        raise ValueError(f"{int(dup.sum())} duplicated runs in the {what}")
    if sort_by is not None:
        out = out.sort_values(list(sort_by), kind="stable").reset_index(drop=True)
    return out


def aggregate_timings(
    paths: Sequence[str | os.PathLike],
    out: str | os.PathLike,
    params: Mapping | None = None,
) -> pd.DataFrame:
    """Concatenate the timing files of shards (written by :func:`write_shard`) into ``out``,
    sorted by the run key columns; ``ValueError`` if a run appears twice. Returns the table.
    """
    frames, _ = read_shards(paths)
    if not any(len(f) for f in frames):
        raise ValueError("paths must contain at least one non-empty timing file")
    keys = [c for c in RUN_KEY_COLUMNS if c in frames[0].columns]
    df = concat_runs(frames, keys, sort_by=keys, what="timing files")
    write_table(df, out, params)
    return df
