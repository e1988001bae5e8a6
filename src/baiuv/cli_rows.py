"""The rows of ``baiuv identify FILE``: ``arm,value`` CSV rows read one at a time
(:func:`read_rows`, the format's reference and its messages) or in blocks of arrays
(:func:`row_blocks`, the compiled parser :func:`baiuv.simulation.replay.parse_rows` with
:func:`read_rows`' own code for the rare rows it does not convert), and
:class:`InputError`, the command's invalid input (exit status 2). The replay that feeds
them to the identifier: :mod:`baiuv.cli_replay`; the command: :mod:`baiuv.cli`.
"""

from __future__ import annotations

import csv
from collections.abc import Callable, Iterator, Sequence

import numpy as np

from baiuv.simulation import replay

#: Without ``--n-arms`` an arm index must be below this cap and at most the number of
#: distinct arms in the data (an index far beyond the arms seen is a typo, and the arrays of
#: the identifier grow with the index), decision D122.
MAX_ARMS_WITHOUT_N_ARMS = 1000


class InputError(ValueError):
    """Invalid command line input (reported with exit status 2)."""


#: The first bytes of a gzip file.
GZIP_MAGIC = b"\x1f\x8b"


def _csv_problem(exc: csv.Error, lineno: int) -> InputError:
    """A CSV reader's error in the user's terms."""
    if "field larger than field limit" in str(exc):
        return InputError(
            f"line {lineno}: a field is longer than {csv.field_size_limit():,} characters; "
            "each row must be a short 'arm,value' pair (is this the right file?)"
        )
    return InputError(f"line {lineno}: not a readable 'arm,value' row ({exc})")


def _decoded_lines(stream, first: int = 1) -> Iterator[str]:
    """Lines of ``stream`` (numbered from ``first``) as text; bytes are decoded as UTF-8 (a
    byte-order mark on line 1 is dropped) and a line that is not valid UTF-8 raises
    :class:`InputError` naming it."""
    for lineno, line in enumerate(stream, start=first):
        if lineno == 1 and isinstance(line, bytes) and line.startswith(GZIP_MAGIC):
            raise InputError(
                "line 1: the input is gzip-compressed: decompress it first, e.g. "
                "'gunzip -c FILE.gz | baiuv identify - --n-arms K'"
            )
        if isinstance(line, bytes):
            try:
                line = line.decode("utf-8-sig" if lineno == 1 else "utf-8")
            except UnicodeDecodeError as exc:
                raise InputError(
                    f"line {lineno}: not UTF-8 text (byte {exc.object[exc.start]:#04x} at "
                    f"column {exc.start + 1}); save the file as UTF-8"
                ) from None
        yield line


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def read_rows(
    stream, labels: Sequence[str] | None, n_arms: int | None = None
) -> Iterator[tuple[int, int, float]]:
    """Yield ``(line number, arm, value)`` from ``arm,value`` CSV rows, one at a time.

    ``stream`` yields text or bytes lines (bytes must be UTF-8). The first row is a header
    when neither its arm nor its value field can be read (e.g. ``arm,value``); a first row
    with a numeric value and an unknown arm is an error like any other row. Blank lines and
    lines starting with ``#`` are skipped. Without ``n_arms``, arm indices must be below
    :data:`MAX_ARMS_WITHOUT_N_ARMS` (with it, the identifier checks the range). Raises
    :class:`InputError` naming the line on a malformed row (wrong number of fields, unknown
    arm, non-numeric value, bad encoding). This is the row format of ``baiuv identify``;
    the command itself reads blocks of rows (:func:`row_blocks`), with the same result.
    """
    index = {lab: i for i, lab in enumerate(labels)} if labels else None
    reader = csv.reader(_decoded_lines(stream))
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise _csv_problem(exc, reader.line_num) from None
        parsed = _row_fields(row, reader.line_num, labels, index, n_arms)
        if parsed is not None:
            yield reader.line_num, parsed[0], parsed[1]


def _row_fields(
    row: list[str],
    lineno: int,
    labels: Sequence[str] | None,
    index: dict[str, int] | None,
    n_arms: int | None,
) -> tuple[int, float] | None:
    """``(arm, value)`` of one CSV row, ``None`` for a blank, comment or header row;
    :class:`InputError` naming the line for a malformed row."""
    if not row or not "".join(row).strip() or row[0].lstrip().startswith("#"):
        return None
    if len(row) != 2:
        raise InputError(f"line {lineno}: expected 2 fields 'arm,value', got {len(row)}")
    a_s, v_s = row[0].strip(), row[1].strip()
    if index is not None:  # labels only (decision D263)
        if a_s not in index:
            if lineno == 1 and not _is_number(v_s):
                return None  # header
            what = "an arm index" if _is_number(a_s) else "not one of the labels"
            raise InputError(
                f"line {lineno}: arm {a_s!r} is {what}: with --arms every row names its "
                f"arm by one of the labels {', '.join(labels)} (labels and indices are not "
                "mixed; without --arms, arms are indices 0, 1, 2, ...)"
            )
        arm = index[a_s]
    else:
        try:
            arm = int(a_s)
        except ValueError:
            if lineno == 1 and not _is_number(v_s):
                return None  # header
            raise InputError(
                f"line {lineno}: unknown arm {a_s!r} (arms are indices 0, 1, 2, ...; give "
                "labels with --arms)"
            ) from None
        if arm < 0:
            raise InputError(
                f"line {lineno}: arm {arm} is negative: arms are indices 0, 1, 2, ... (or "
                "labels given with --arms)"
            )
        if n_arms is None and arm >= MAX_ARMS_WITHOUT_N_ARMS:
            raise InputError(
                f"line {lineno}: arm index {arm} is too large: without --n-arms, arm "
                f"indices must be below {MAX_ARMS_WITHOUT_N_ARMS} (give --n-arms if you "
                "really have more arms)"
            )
    try:
        value = float(v_s)
    except ValueError:
        if lineno == 1 and index is None and not _is_number(a_s):
            return None  # header
        raise InputError(f"line {lineno}: value {v_s!r} is not a number") from None
    return arm, value


def _line_fields(
    raw: bytes,
    lineno: int,
    labels: Sequence[str] | None,
    index: dict[str, int] | None,
    n_arms: int | None,
) -> tuple[int, float] | None:
    """:func:`_row_fields` of one line given as bytes (decoded and split as
    :func:`read_rows` does)."""
    (text,) = _decoded_lines([raw], lineno)
    try:
        row = next(csv.reader([text]), [])
    except csv.Error as exc:
        raise _csv_problem(exc, lineno) from None
    return _row_fields(row, lineno, labels, index, n_arms)


#: Bytes read from the input at a time (``baiuv identify FILE``): about 65 000 rows.
CHUNK_BYTES = 1 << 20

Block = tuple[np.ndarray, np.ndarray, np.ndarray]


def row_blocks(
    stream,
    labels: Sequence[str] | None,
    n_arms: int | None,
    on_bad: Callable[[str], None] | None = None,
) -> Iterator[Block]:
    """The rows of :func:`read_rows`, in blocks ``(arms, values, lines)`` of arrays.

    ``stream`` is a binary stream (``read1`` is used when it has one, so rows arriving on
    a pipe are processed as they come). Rows are converted by the compiled
    :func:`baiuv.simulation.replay.parse_rows`, the rare rows it does not convert by
    :func:`read_rows`' own code, so the result and the error messages are those of
    :func:`read_rows`. A malformed row: with ``on_bad``, its message is passed to it and
    the row is left out; without, the rows before it are yielded, then
    :class:`InputError` is raised. The arrays may be reused by the next block.
    """
    index = {lab: i for i, lab in enumerate(labels)} if labels else None
    tables = replay.label_table(labels)
    cap = replay.ROWS_OUT
    arm_o = np.empty(cap, np.int64)
    val_o = np.empty(cap, np.float64)
    line_o = np.empty(cap, np.int64)
    kind_o = np.empty(cap, np.uint8)
    start_o = np.empty(cap, np.int64)
    stop_o = np.empty(cap, np.int64)
    read = getattr(stream, "read1", None) or stream.read
    carry = b""
    lineno = 1
    eof = False
    while not eof:
        data = read(CHUNK_BYTES)
        if isinstance(data, str):
            data = data.encode("utf-8")
        eof = not data
        buf = carry + data if carry else data
        cut = len(buf) if eof else buf.rfind(b"\n") + 1
        if cut == 0:
            carry = buf
            continue
        arr = np.frombuffer(buf, np.uint8)
        pos = 0
        while pos < cut:
            k, pos, lineno = replay.parse_rows(
                arr, (pos, cut, lineno), tables, (arm_o, val_o, line_o, kind_o, start_o, stop_o)
            )
            kind = kind_o[:k]
            if n_arms is None:  # the index cap of read_rows: its message comes from Python
                kind[(kind != replay.ROW_PYTHON) & (arm_o[:k] >= MAX_ARMS_WITHOUT_N_ARMS)] = (
                    replay.ROW_PYTHON
                )
            for r in np.flatnonzero(kind == replay.ROW_DECIMAL).tolist():  # float() itself
                val_o[r] = float(buf[start_o[r] : stop_o[r]])
                kind[r] = replay.ROW_OK
            slow = np.flatnonzero(kind != replay.ROW_OK)
            if slow.shape[0] == 0:
                yield arm_o[:k], val_o[:k], line_o[:k]
                continue
            keep = np.ones(k, dtype=bool)
            for r in slow.tolist():
                raw = buf[start_o[r] : stop_o[r] + 1]
                try:
                    parsed = _line_fields(raw, int(line_o[r]), labels, index, n_arms)
                except InputError as exc:
                    if on_bad is None:
                        yield arm_o[:r][keep[:r]], val_o[:r][keep[:r]], line_o[:r][keep[:r]]
                        raise
                    on_bad(str(exc))
                    parsed = None
                if parsed is None:
                    keep[r] = False
                else:
                    arm_o[r], val_o[r] = parsed
            yield arm_o[:k][keep], val_o[:k][keep], line_o[:k][keep]
        carry = buf[cut:]
