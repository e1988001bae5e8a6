"""The replay of ``baiuv identify FILE`` (or ``-``): the rows of :mod:`baiuv.cli_rows`
fed in blocks to a :class:`~baiuv.BestArmIdentifier` made with ``strict=False``
(:meth:`~baiuv.BestArmIdentifier.observe_many`), malformed rows refused or skipped
(``--skip-bad``), progress on stderr, and the summary's fields of the replay (rows used,
skipped, unused, the stopping line, the next arms); also the identifier of a command line
(:func:`build_identifier`) and the progress line (:func:`print_progress`), which the
simulation of :mod:`baiuv.cli` shares.
"""

from __future__ import annotations

import math
import sys
import time
from typing import TextIO

import numpy as np

from baiuv.cli_rows import MAX_ARMS_WITHOUT_N_ARMS, InputError, row_blocks
from baiuv.simulation.ev_advice import plain_warnings
from baiuv.simulation.identify import MAX_ABS_VALUE, BestArmIdentifier, value_problem

#: Seconds between two progress lines of a replay on a terminal.
PROGRESS_SECONDS = 1.0


def print_progress(idf: BestArmIdentifier, out: TextIO) -> None:
    """One line of the identifier's state on ``out`` (its closest challenger's margin)."""
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


def build_identifier(args, n_arms: int, strict: bool, rng) -> BestArmIdentifier:
    """The identifier of the command line ``args`` on ``n_arms`` arms; its refusal of a
    setting as :class:`~baiuv.cli_rows.InputError`."""
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
    idf = build_identifier(args, n_arms, False, args.seed)
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
                print_progress(idf, self.err)
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
