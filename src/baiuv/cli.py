"""Command line interface: ``baiuv identify`` (ask/tell best-arm identification).

Two sources of observations (decision D74):

* ``baiuv identify data.csv`` (or ``-`` for stdin): *replay* of observations the user
  already collected, one ``arm,value`` row each (header optional; ``arm`` is a 0-based
  index or, with ``--arms A,B,...``, a label, never both: D263). Rows are read in blocks
  (about 65 000 rows, compiled parser :func:`baiuv.simulation.replay.parse_rows`) and fed
  in order to a
  :class:`~baiuv.BestArmIdentifier` created with ``strict=False`` (the data decide which
  arm was observed, not the sampling rule) by
  :meth:`~baiuv.BestArmIdentifier.observe_many`: the stopping rule is evaluated after
  every row, the identification ends at the first row where it fires, and the remaining
  rows of a file are counted as unused (from stdin, nothing more is read). Memory does
  not grow with the number of rows. A malformed row (or a value that is not finite, an
  arm out of range) is an error naming its line, the identifier having seen only the
  rows before it; ``--skip-bad`` skips it with a warning instead. If the data run out
  first, the summary says so and names the arm the sampling rule asks for next: collect
  it, append the row, and run the command again. ``--next N`` also prints the allocation
  of the next ``N`` samples (a batch, :meth:`~baiuv.BestArmIdentifier.next_arms`).
* ``baiuv identify --simulate standard|easy|"mu1,mu2,...;s1,s2,..."``: the identifier's
  requests are answered with Gaussian draws from ``numpy.random.default_rng(--seed)``, the
  generator that also feeds its coins, so the run is the simulator's
  ``simulate_run(instance, rule, rng=numpy.random.default_rng(seed))``.

Progress goes to stderr (replay: rows read and rate about once a second when stderr is a
terminal; ``--progress-every N``: the identifier's state every ``N`` samples), the final
summary (recommended arm, samples per arm, per-arm
mean/variance, GLR statistic vs threshold of each challenger, stop reason) to stdout
(``--json`` for a machine-readable summary: numbers or ``null``). Exit status (decision
D262): 0 when the stopping rule fired, 3 when the data ran out or the budget was reached
first, 2 on invalid input; malformed rows after the stopping row are reported, not fatal.
``baiuv warmup`` compiles the kernels ahead of the first call.
"""

from __future__ import annotations

import argparse
import csv
import math
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from typing import TextIO

import numpy as np

from baiuv.cli_output import json_summary, text_summary, write
from baiuv.cli_plan import PlanInputError, add_plan_parser, plan
from baiuv.model.instance import EASY, STANDARD, GaussianInstance
from baiuv.simulation.epsilon import is_epsilon_good
from baiuv.simulation.ev_advice import plain_warnings
from baiuv.simulation.identify import (
    MAX_ABS_VALUE,
    SAMPLING_RULES,
    BestArmIdentifier,
    value_problem,
)

NAMED = {"standard": STANDARD, "easy": EASY}


#: Without ``--n-arms`` an arm index must be below this cap and at most the number of
#: distinct arms in the data (an index far beyond the arms seen is a typo, and the arrays of
#: the identifier grow with the index), decision D122.
MAX_ARMS_WITHOUT_N_ARMS = 1000
#: Largest ``--n-arms`` accepted (memory of the identifier grows linearly with it).
MAX_ARMS = 1_000_000

HELP = """\
Find the best of several options (arms) from observations, with a guarantee: the
recommended arm is wrong with probability at most --delta (for Gaussian observations
with unknown means and variances).

Replay data you collected: one 'arm,value' row per observation (an optional header
line 'arm,value'; arms are 0, 1, 2, ... or labels given with --arms). Rows are read in
order and reading stops as soon as the best arm is identified. If the data run out
first, the output names the arm to observe next: collect it, append it, run again.

Or try it on a simulated problem: --simulate standard, --simulate easy, or your own
Gaussian arms as --simulate "means;variances", e.g. --simulate "1,0.5;1,2".

Progress goes to stderr, the result to stdout. Exit status: 0 the best arm was
identified (the stopping rule fired); 3 not identified: the data ran out, or the
--max-samples budget was reached, first (the summary is printed); 2 invalid input.
Malformed rows after the stopping row are reported on stderr and do not change the result.

examples:
  baiuv identify visits.csv --arms control,treatment --delta 0.05
  tail -f live_feed.csv | baiuv identify - --n-arms 3
  baiuv identify --simulate standard --seed 1
"""


#: Exit statuses of ``baiuv identify`` (decision D262): the stopping rule fired; invalid
#: input (nothing identified); the data ran out or the --max-samples budget was reached
#: before the stopping rule fired (the summary is printed).
EXIT_IDENTIFIED = 0
EXIT_BAD_INPUT = 2
EXIT_UNDECIDED = 3


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


def parse_instance(spec: str) -> GaussianInstance:
    """``standard``, ``easy`` or ``"mu1,mu2,...;s1,s2,..."`` (means; variances)."""
    if spec in NAMED:
        return NAMED[spec]
    try:
        mu_s, s2_s = spec.split(";")
        mu = [float(v) for v in mu_s.split(",")]
        s2 = [float(v) for v in s2_s.split(",")]
    except ValueError:
        raise InputError(
            f"--simulate must be 'standard', 'easy' or 'mu1,mu2,...;s1,s2,...', got {spec!r}"
        ) from None
    try:
        return GaussianInstance(np.array(mu), np.array(s2), "custom")
    except ValueError as exc:
        raise InputError(f"--simulate: {exc}") from None


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
#: Seconds between two progress lines of a replay on a terminal.
PROGRESS_SECONDS = 1.0

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
    from baiuv.simulation import replay

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
                arr, pos, cut, lineno, *tables, arm_o, val_o, line_o, kind_o, start_o, stop_o
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


def _progress(idf: BestArmIdentifier, out: TextIO) -> None:
    s = idf.summary()
    margins = [(m, a) for a, m in enumerate(s["margin"]) if m is not None]
    if margins:
        m, a = min(margins)
        if math.isinf(m):
            tail = f"threshold of arm {a} still infinite (initial time not reached)"
        else:
            tail = f"closest challenger {a}: GLR - threshold = {m:.3g}"
    else:
        tail = "initialisation" if idf.in_initialisation else "thresholds not yet finite"
    print(
        f"[t={s['n_samples']}] empirical best {s['empirical_best']}; {tail}",
        file=out,
        flush=True,
    )


def _build(args, n_arms: int, strict: bool, rng) -> BestArmIdentifier:
    try:
        with plain_warnings(sys.stderr):  # the EV advice as one plain line (ev_advice)
            return BestArmIdentifier(
                n_arms,
                args.delta,
                args.sampling,
                args.threshold,
                n0=args.n0,
                beta=args.beta,
                max_samples=args.max_samples,
                lazy_ratio=args.lazy_ratio,
                strict=strict,
                epsilon=args.epsilon,
                rng=rng,
            )
    except ValueError as exc:
        raise InputError(str(exc)) from None


def _every(args) -> int:
    return args.progress_every if args.progress_every is not None else 1000


def run_simulation(args, err: TextIO) -> tuple[BestArmIdentifier, dict]:
    inst = parse_instance(args.simulate)
    if args.n_arms is not None and args.n_arms != inst.K:
        raise InputError(f"--n-arms {args.n_arms} does not match the instance (K = {inst.K})")
    gen = np.random.default_rng(args.seed)
    idf = _build(args, inst.K, True, gen)
    sd = np.sqrt(inst.sigma2)
    every = _every(args)
    while not idf.done:
        a = idf.next_arm()
        idf.observe(a, float(inst.mu[a] + sd[a] * gen.standard_normal()))
        if every and idf.n_samples % every == 0 and not args.quiet:
            _progress(idf, err)
    extra = {
        "source": f"simulate {inst.name or args.simulate}",
        "seed": args.seed,
        "true_best_arm": inst.best_arm,
        "correct": is_epsilon_good(inst.mu, idf.recommendation, idf.epsilon),
    }
    return idf, extra


def run_replay(args, stream, err: TextIO) -> tuple[BestArmIdentifier, dict]:
    """Replay the ``arm,value`` rows of ``stream`` (binary) in blocks
    (:func:`row_blocks`, :meth:`BestArmIdentifier.observe_many`).

    A file is read to its end: rows after the stop are counted (and checked) as unused.
    Without ``--n-arms`` a file is read twice: first for its arms (and its format), then
    for the identification. From stdin nothing is read after the stop.
    """
    labels = [s.strip() for s in args.arms.split(",")] if args.arms else None
    if labels is not None and (len(set(labels)) != len(labels) or "" in labels):
        raise InputError(f"--arms must be distinct non-empty labels, got {args.arms!r}")
    n_arms = args.n_arms
    if labels is not None:
        if n_arms is not None and n_arms != len(labels):
            raise InputError(f"--n-arms {n_arms} does not match --arms ({len(labels)} labels)")
        n_arms = len(labels)
    streaming = args.input == "-"
    if streaming and n_arms is None:
        raise InputError("reading stdin needs --n-arms (or --arms)")
    if n_arms is None:  # first pass over the file: its arms
        if not stream.seekable():
            raise InputError(f"{args.input!r} can be read only once: give --n-arms (or --arms)")
        n_arms = _arms_of_file(stream)
        stream.seek(0)
        given = None  # the second pass checks the index cap of a file without --n-arms
    else:
        given = n_arms
    idf = _build(args, n_arms, False, args.seed)
    skipped = [0]
    bad: list[str] = []  # messages of the malformed rows of the block being read
    after_stop: list[str] = []  # malformed rows after the stopping row (not used)
    feed = _Feeder(idf, args, err)
    n_rows = 0
    unused = 0
    for arms, values, lines in row_blocks(stream, labels, given, bad.append):
        n_rows += arms.shape[0]
        start = 0
        for message in bad:  # split the block at each malformed row, in line order
            cut = int(np.searchsorted(lines, _line_of(message)))
            unused += _feed_rows(feed, arms, values, lines, start, cut, skipped)
            start = cut
            if idf.done:  # after the stop: reported and counted, the decision stands
                after_stop.append(message)
                unused += 1
            elif args.skip_bad:
                skipped[0] += 1
                where, _, what = message.partition(": ")
                print(f"{where}: skipped ({what})", file=err)
            else:
                feed.close()
                raise InputError(message)
        bad.clear()
        unused += _feed_rows(feed, arms, values, lines, start, arms.shape[0], skipped)
        if idf.done and streaming:
            break
    feed.close()
    if n_rows == 0 and not streaming:
        raise InputError("the input has no 'arm,value' rows")
    for message in after_stop[:MAX_REPORTED]:
        print(f"{message} (after the stopping row: not used)", file=err)
    if len(after_stop) > MAX_REPORTED:
        print(
            f"... and {len(after_stop) - MAX_REPORTED} more malformed rows after the stopping row",
            file=err,
        )
    extra = {
        "source": f"replay {args.input}",
        "rows_used": feed.used,
        "rows_skipped": skipped[0],
        "rows_unused": None if streaming else unused,
        "rows_malformed_after_stop": len(after_stop),
        "stopped_at_line": feed.stop_line if idf.done else None,
    }
    try:
        batch = None if idf.done else idf.next_arms(args.next or 1)  # next_arm() = batch[0]
    except ValueError as exc:  # more requests than --max-samples allows
        raise InputError(f"--next: {exc}") from None
    extra["next_arm"] = None if batch is None else batch[0]
    if args.next:
        extra["next_arms"] = batch
        extra["next_allocation"] = (
            None if batch is None else np.bincount(batch, minlength=n_arms).tolist()
        )
    if labels:
        extra["arm_labels"] = labels
    return idf, extra


#: Malformed rows after the stopping row reported one by one on stderr (then counted).
MAX_REPORTED = 10


def _line_of(message: str) -> int:
    """The line number of a row's message (``"line 12: ..."``)."""
    return int(message.partition(":")[0].removeprefix("line "))


def _feed_rows(feed: _Feeder, arms, values, lines, i: int, j: int, skipped: list[int]) -> int:
    """Feed rows ``i .. j - 1`` of a block (their valid part) unless the identifier has
    stopped; returns how many of them are unused (after the stopping row)."""
    if j <= i:
        return 0
    if feed.idf.done:
        return j - i
    used = feed.block(arms[i:j], values[i:j], lines[i:j], skipped)
    return (j - i - used) if feed.idf.done else 0


def _arms_of_file(stream) -> int:
    """Number of arms of a file without ``--n-arms``: largest arm index + 1 of its valid
    rows, refusing more than one missing index below the largest (an index far beyond the
    arms seen is a typo, decision D122). Malformed rows are left to the second pass, which
    knows whether they come after the stopping row (raised here only when no row is
    valid)."""
    first_line = np.zeros(MAX_ARMS_WITHOUT_N_ARMS, dtype=np.int64)  # 0: arm not seen
    bad: list[str] = []
    for arms, _, lines in row_blocks(stream, None, None, bad.append):
        new, at = np.unique(arms, return_index=True)
        fresh = first_line[new] == 0
        first_line[new[fresh]] = lines[at[fresh]]
    seen = np.flatnonzero(first_line)
    if bad and (seen.shape[0] < 2 or int(seen[-1]) > seen.shape[0]):
        raise InputError(bad[0])  # no identification without the rows left out: say why
    if seen.shape[0] == 0:
        raise InputError("the input has no 'arm,value' rows")
    top = int(seen[-1])
    if top == 0:
        raise InputError(
            "the data hold observations of arm 0 only: at least 2 arms are needed to find "
            "the best (give --n-arms if the other arms have no data yet)"
        )
    if top > seen.shape[0]:  # more than one arm index missing below the largest one
        raise InputError(
            f"line {first_line[top]}: arm index {top} but the data contain only "
            f"{seen.shape[0]} distinct arms ({_arm_list(seen.tolist())}); give --n-arms "
            f"{top + 1} if arms without data really exist"
        )
    return top + 1


class _Feeder:
    """Feeds blocks of rows to the identifier (:meth:`BestArmIdentifier.observe_many`),
    refusing or skipping (``--skip-bad``) the rows that :meth:`~BestArmIdentifier.observe`
    would refuse (a value that is not finite, an arm outside ``[0, n_arms)``) with its
    message, and printing progress: every ``--progress-every`` samples, or, by default,
    rows and rate about once a second when stderr is a terminal."""

    def __init__(self, idf: BestArmIdentifier, args, err: TextIO) -> None:
        self.idf = idf
        self.err = err
        self.skip_bad = args.skip_bad
        self.every = 0 if args.quiet else (args.progress_every or 0)
        isatty = getattr(err, "isatty", None)
        self.live = not args.quiet and args.progress_every is None and bool(isatty and isatty())
        self.used = 0
        self.rows = 0
        self.stop_line = None
        self.t_start = time.perf_counter()
        self.t_shown = self.t_start
        self.shown = False

    def block(self, arms, values, lines, skipped: list[int]) -> int:
        """Feed one block; returns the rows of it consumed (up to the stopping row), the
        skipped rows included."""
        idf = self.idf
        K = idf.n_arms
        bad = np.flatnonzero(~(np.abs(values) <= MAX_ABS_VALUE) | (arms >= K))
        n = arms.shape[0]
        i = 0
        for j in [*bad.tolist(), n]:
            i = self._segment(arms, values, lines, i, j)
            if idf.done or j == n:
                break
            a, x = int(arms[j]), float(values[j])
            msg = (
                f"arm {a} does not exist: the arms are 0 to {K - 1} (give --n-arms if there "
                "are more)"
                if a >= K
                else value_problem(x)
            )
            if not self.skip_bad:
                raise InputError(f"line {lines[j]}: {msg}")
            skipped[0] += 1
            print(f"line {lines[j]}: skipped ({msg})", file=self.err)
            i = j + 1
        self.rows += i
        self._live()
        return i

    def _segment(self, arms, values, lines, i: int, j: int) -> int:
        """Feed rows ``i .. j - 1`` (all valid); returns the position after the last one
        consumed."""
        idf = self.idf
        while i < j and not idf.done:
            stop = j
            if self.every:
                stop = min(j, i + self.every - idf.n_samples % self.every)
            used = idf.observe_many(arms[i:stop], values[i:stop])
            self.used += used
            i += used
            if idf.done:
                self.stop_line = int(lines[i - 1])
            if self.every and idf.n_samples % self.every == 0:
                _progress(idf, self.err)
        return i

    def _live(self) -> None:
        now = time.perf_counter()
        if self.live and now - self.t_shown >= PROGRESS_SECONDS:
            self.t_shown = now
            rate = self.rows / max(now - self.t_start, 1e-9)
            best = self.idf.empirical_best
            print(
                f"\r{self.rows:,} rows read, {rate:,.0f} rows/s, {self.idf.n_samples:,} "
                f"samples, empirical best arm {best if best is not None else '-'}",
                end="",
                file=self.err,
                flush=True,
            )
            self.shown = True

    def close(self) -> None:
        if self.shown:
            print(file=self.err, flush=True)


def _arm_list(arms) -> str:
    arms = sorted(arms)
    return ", ".join(map(str, arms[:8])) + (", ..." if len(arms) > 8 else "")


def build_parser() -> argparse.ArgumentParser:
    from baiuv import __version__

    p = argparse.ArgumentParser(
        prog="baiuv",
        description="Best-arm identification with unknown variances (Jourdan, Degenne, "
        "Kaufmann, ALT 2023).",
    )
    p.add_argument("--version", action="version", version=f"baiuv {__version__}")
    sub = p.add_subparsers(dest="command", required=True)
    q = sub.add_parser(
        "identify",
        help="identify the best arm from 'arm,value' rows or a simulation",
        description=HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub.add_parser(
        "warmup",
        help="compile the numerical kernels ahead of the first identification (about a minute)",
        description="Compile the numerical kernels of 'baiuv identify' and of the library's "
        "BestArmIdentifier into numba's cache, so that the first identification starts "
        "at once (the same as 'python -m baiuv.warmup').",
    )
    q.add_argument(
        "input",
        nargs="?",
        default=None,
        help="CSV file of 'arm,value' rows, or '-' for stdin",
    )
    q.add_argument(
        "--simulate",
        metavar="INSTANCE",
        help="simulate 'standard', 'easy' or 'mu1,mu2,...;s1,s2,...' instead of reading data",
    )
    q.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    q.add_argument(
        "--delta",
        type=float,
        default=0.01,
        help="error probability: the recommended arm is wrong with probability at most "
        "this (default 0.01)",
    )
    q.add_argument(
        "--sampling",
        default="tci",
        help=f"how the next arm is chosen: {', '.join(sorted(SAMPLING_RULES))} (default tci)",
    )
    q.add_argument(
        "--threshold",
        default=None,
        help="stopping threshold: bob, box, kl, student (ev-bob, ev-box, ev-student for the "
        "ev- rules) or heuristic (faster, no guarantee); default bob or ev-bob",
    )
    q.add_argument(
        "--n-arms",
        type=int,
        default=None,
        help="number of arms (default: largest arm index + 1)",
    )
    q.add_argument(
        "--arms",
        default=None,
        help="comma-separated arm labels used in the data (then every row names its arm by "
        "label, never by index)",
    )
    q.add_argument("--n0", type=int, default=2, help="initial samples per arm (default 2)")
    q.add_argument(
        "--beta",
        type=float,
        default=0.5,
        help="tci, ev-tci: probability of sampling the leader (default 0.5)",
    )
    q.add_argument(
        "--max-samples", type=int, default=None, help="stop after this many observations"
    )
    q.add_argument(
        "--epsilon",
        type=float,
        default=0.0,
        help="stop when within EPSILON of the best arm (default 0)",
    )
    q.add_argument(
        "--lazy-ratio",
        type=float,
        default=None,
        help="check the stopping rule only when the sample count grows by this factor",
    )
    q.add_argument(
        "--progress-every",
        type=int,
        default=None,
        help="print the state every N samples to stderr (0: never; default 1000 with "
        "--simulate, else a line a second on a terminal)",
    )
    q.add_argument(
        "--next",
        type=int,
        default=None,
        metavar="N",
        help="also print the next N arms to sample when undecided",
    )
    q.add_argument("--quiet", action="store_true", help="no progress output")
    q.add_argument("--json", action="store_true", help="print the summary as JSON")
    q.add_argument(
        "--skip-bad",
        action="store_true",
        help="skip invalid rows with a warning on stderr instead of failing",
    )
    add_plan_parser(sub)
    return p


def identify(args, stdin: TextIO, out: TextIO, err: TextIO) -> int:
    if args.input is None and args.simulate is None:
        raise InputError(
            "nothing to identify from: give a CSV file of 'arm,value' rows ('-' for stdin) "
            "or --simulate INSTANCE"
        )
    if args.input is not None and args.simulate is not None:
        raise InputError("give either an input CSV ('-' for stdin) or --simulate, not both")
    if args.seed < 0:
        raise InputError(f"--seed must be a non-negative integer, got {args.seed}")
    if args.threshold is None:
        args.threshold = "ev-bob" if str(args.sampling).lower().startswith("ev-") else "bob"
    if args.next is not None and (args.next < 1 or args.simulate is not None):
        raise InputError(f"--next must be a positive integer with an input file, got {args.next}")
    if args.progress_every is not None and args.progress_every < 0:
        raise InputError(f"--progress-every must be >= 0, got {args.progress_every}")
    if args.n_arms is not None and not (2 <= args.n_arms <= MAX_ARMS):
        raise InputError(f"--n-arms must be between 2 and {MAX_ARMS}, got {args.n_arms}")
    _prepare_kernels(args, err)
    if args.simulate is not None:
        idf, extra = run_simulation(args, err)
    elif args.input == "-":
        idf, extra = run_replay(args, getattr(stdin, "buffer", stdin), err)
    else:
        try:
            with open(args.input, "rb") as f:
                idf, extra = run_replay(args, f, err)
        except OSError as exc:
            raise InputError(f"cannot read {args.input!r}: {exc.strerror}") from None
    write(out, json_summary(idf, extra) if args.json else text_summary(idf, extra))
    return EXIT_IDENTIFIED if idf.stop_reason == "glr" else EXIT_UNDECIDED


def _prepare_kernels(args, err: TextIO) -> None:
    """Compile the kernels first if the cache does not hold them, saying so (D123)."""
    from baiuv import warmup

    warmup.first_use(err, quiet=args.quiet)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``baiuv`` command."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "identify":
        try:
            return identify(args, sys.stdin, sys.stdout, sys.stderr)
        except InputError as exc:
            print(f"baiuv identify: error: {exc}", file=sys.stderr)
            return EXIT_BAD_INPUT
    if args.command == "warmup":
        from baiuv import warmup

        return warmup.main()
    if args.command == "plan":
        try:
            return plan(args, sys.stdout, sys.stderr)
        except PlanInputError as exc:
            print(f"baiuv plan: error: {exc}", file=sys.stderr)
            return EXIT_BAD_INPUT
    return 1  # pragma: no cover - argparse enforces the subcommand


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
