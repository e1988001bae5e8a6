"""Command line interface: ``baiuv identify`` (ask/tell best-arm identification).

Two sources of observations (decision D74):

* ``baiuv identify data.csv`` (or ``-`` for stdin): *replay* of observations the user
  already collected, one ``arm,value`` row each (header optional; ``arm`` is a 0-based
  index or, with ``--arms A,B,...``, a label). Rows are fed in order to a
  :class:`~baiuv.BestArmIdentifier` created with ``strict=False`` (the data decide which
  arm was observed, not the sampling rule); the stopping rule is evaluated after every row
  and reading stops at the first row where it fires; the remaining rows are reported as
  unused. If the data run out first, the summary says so and names the arm the sampling
  rule asks for next: collect it, append the row, and run the command again.
* ``baiuv identify --simulate standard|easy|"mu1,mu2,...;s1,s2,..."``: the identifier's
  requests are answered with Gaussian draws from ``numpy.random.default_rng(--seed)``, the
  generator that also feeds its coins, so the run is the simulator's
  ``simulate_run(instance, rule, rng=numpy.random.default_rng(seed))``.

Progress goes to stderr, the final summary (recommended arm, samples per arm, per-arm
mean/variance, GLR statistic vs threshold of each challenger, stop reason) to stdout
(``--json`` for a machine-readable summary). Exit status 2 on invalid input.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import sys
from collections.abc import Iterator, Sequence
from typing import TextIO

import numpy as np

from baiuv.model.instance import EASY, STANDARD, GaussianInstance
from baiuv.simulation.ev_advice import plain_warnings
from baiuv.simulation.identify import SAMPLING_RULES, BestArmIdentifier

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

Progress goes to stderr, the result to stdout. Exit status 2 on invalid input.

examples:
  baiuv identify visits.csv --arms control,treatment --delta 0.05
  tail -f live_feed.csv | baiuv identify - --n-arms 3
  baiuv identify --simulate standard --seed 1
"""


class InputError(ValueError):
    """Invalid command line input (reported with exit status 2)."""


def _decoded_lines(stream) -> Iterator[str]:
    """Lines of ``stream`` as text; bytes are decoded as UTF-8 (a byte-order mark on the
    first line is dropped) and a line that is not valid UTF-8 raises :class:`InputError`
    naming it."""
    for lineno, line in enumerate(stream, start=1):
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
    :data:`MAX_ARMS_WITHOUT_N_ARMS` (with it, the identifier checks the range). Raises :class:`InputError` naming the line
    on a malformed row (wrong number of fields, unknown arm, non-numeric value, bad
    encoding)."""
    index = {lab: i for i, lab in enumerate(labels)} if labels else None
    reader = csv.reader(_decoded_lines(stream))
    for row in reader:
        lineno = reader.line_num
        if not row or not "".join(row).strip() or row[0].lstrip().startswith("#"):
            continue
        if len(row) != 2:
            raise InputError(f"line {lineno}: expected 2 fields 'arm,value', got {len(row)}")
        a_s, v_s = row[0].strip(), row[1].strip()
        if index is not None and a_s in index:
            arm = index[a_s]
        else:
            try:
                arm = int(a_s)
            except ValueError:
                if lineno == 1 and not _is_number(v_s):
                    continue  # header
                known = (
                    f" (labels: {', '.join(labels)})"
                    if labels
                    else " (arms are 0, 1, 2, ...; give labels with --arms)"
                )
                raise InputError(f"line {lineno}: unknown arm {a_s!r}{known}") from None
            if arm < 0:
                raise InputError(f"line {lineno}: arm must be in [0, n_arms), got {arm}")
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
                continue  # header
            raise InputError(f"line {lineno}: value {v_s!r} is not a number") from None
        yield lineno, arm, value


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
        "correct": idf.recommendation == inst.best_arm,
    }
    return idf, extra


def run_replay(args, stream: TextIO, err: TextIO) -> tuple[BestArmIdentifier, dict]:
    labels = [s.strip() for s in args.arms.split(",")] if args.arms else None
    if labels is not None and (len(set(labels)) != len(labels) or "" in labels):
        raise InputError(f"--arms must be distinct non-empty labels, got {args.arms!r}")
    n_arms = args.n_arms
    if labels is not None:
        if n_arms is not None and n_arms != len(labels):
            raise InputError(f"--n-arms {n_arms} does not match --arms ({len(labels)} labels)")
        n_arms = len(labels)
    rows: Iterator[tuple[int, int, float]]
    streaming = args.input == "-"
    if streaming:  # rows are processed as they arrive; nothing is read after the stop
        if n_arms is None:
            raise InputError("reading stdin needs --n-arms (or --arms)")
        rows = read_rows(stream, labels, n_arms)
    else:  # a file is parsed completely first (format errors anywhere are reported)
        buffered = list(read_rows(stream, labels, n_arms))
        if not buffered:
            raise InputError("the input has no 'arm,value' rows")
        if n_arms is None:
            seen = {a for _, a, _ in buffered}
            top = max(seen)
            if top > len(seen):  # more than one arm index missing below the largest one
                line = next(n for n, a, _ in buffered if a == top)
                raise InputError(
                    f"line {line}: arm index {top} but the data contain only {len(seen)} "
                    f"distinct arms ({_arm_list(seen)}); give --n-arms {top + 1} if arms "
                    "without data really exist"
                )
            n_arms = top + 1
        rows = iter(buffered)
    idf = _build(args, n_arms, False, args.seed)
    every = _every(args)
    used = 0
    skipped = 0
    last_line = 0
    for lineno, arm, value in rows:
        last_line = lineno
        try:
            idf.observe(arm, value)
        except ValueError as exc:
            if args.skip_bad:
                skipped += 1
                print(f"line {lineno}: skipped ({exc})", file=err)
                continue
            raise InputError(f"line {lineno}: {exc}") from None
        used += 1
        if every and idf.n_samples % every == 0 and not args.quiet:
            _progress(idf, err)
        if idf.done:
            break
    unused = None if streaming else (sum(1 for _ in rows) if idf.done else 0)
    extra = {
        "source": f"replay {args.input}",
        "rows_used": used,
        "rows_skipped": skipped,
        "rows_unused": unused,
        "stopped_at_line": last_line if idf.done else None,
        "next_arm": None if idf.done else idf.next_arm(),
    }
    if labels:
        extra["arm_labels"] = labels
    return idf, extra


def _arm_list(arms) -> str:
    arms = sorted(arms)
    return ", ".join(map(str, arms[:8])) + (", ..." if len(arms) > 8 else "")


def _text_summary(idf: BestArmIdentifier, extra: dict) -> str:
    lines = [f"source: {extra['source']}", idf.format_summary()]
    labels = extra.get("arm_labels")
    if labels:
        lines.append("arms: " + ", ".join(f"{i} = {lab}" for i, lab in enumerate(labels)))
    if "rows_used" in extra:
        unused = extra["rows_unused"]
        after = ""
        if idf.done:
            after = ", unused after the stop: " + (
                "not read (stream)" if unused is None else str(unused)
            )
        lines.append(
            f"rows used: {extra['rows_used']}"
            + after
            + (f", skipped: {extra['rows_skipped']}" if extra["rows_skipped"] else "")
        )
        if not idf.done:
            nxt = extra["next_arm"]
            name = f" ({labels[nxt]})" if labels else ""
            lines.append(
                f"the data ran out before the stopping rule fired; next arm to sample: {nxt}{name}"
            )
    if "true_best_arm" in extra:
        lines.append(
            f"true best arm: {extra['true_best_arm']} "
            f"({'correct' if extra['correct'] else 'WRONG'})"
        )
    if idf.stop_reason == "glr":
        lines.append(
            f"stopped: every challenger's GLR statistic exceeds its {idf.threshold} threshold"
            + (
                ""
                if idf.threshold == "heuristic"
                else f" (delta-correct: this procedure errs with probability <= {idf.delta:g} "
                "for Gaussian observations)"
            )
        )
    elif idf.stop_reason == "budget":
        lines.append("stopped: max-samples budget reached (no confidence guarantee)")
    return "\n".join(lines)


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
    q.add_argument(
        "input",
        nargs="?",
        default=None,
        help="CSV file of 'arm,value' rows, or '-' for stdin (replay mode)",
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
        help="number of arms (default: from the data, largest arm index + 1)",
    )
    q.add_argument("--arms", default=None, help="comma-separated arm labels used in the data")
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
        "--lazy-ratio",
        type=float,
        default=None,
        help="check the stopping rule only when the sample count grows by this factor",
    )
    q.add_argument(
        "--progress-every",
        type=int,
        default=None,
        help="print progress every N samples to stderr (default 1000; 0: never)",
    )
    q.add_argument("--quiet", action="store_true", help="no progress output")
    q.add_argument("--json", action="store_true", help="print the summary as JSON")
    q.add_argument(
        "--skip-bad",
        action="store_true",
        help="skip invalid rows (with a warning) instead of failing",
    )
    return p


def identify(args, stdin: TextIO, out: TextIO, err: TextIO) -> int:
    if (args.input is None) == (args.simulate is None):
        raise InputError("give either an input CSV ('-' for stdin) or --simulate, not both")
    if args.threshold is None:
        args.threshold = "ev-bob" if str(args.sampling).lower().startswith("ev-") else "bob"
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
    if args.json:
        s = idf.summary()
        s.update(extra)
        print(json.dumps(_json_safe(s), indent=2), file=out)
    else:
        print(_text_summary(idf, extra), file=out)
    return 0


def _prepare_kernels(args, err: TextIO) -> None:
    """Compile the kernels first if the cache does not hold them, saying so (D123)."""
    from baiuv import warmup

    if warmup.kernels_ready():
        return
    if not args.quiet:
        print(
            "baiuv: compiling the numerical kernels for first use (up to a minute, done once)...",
            file=err,
            flush=True,
        )
    warmup.warm_up()


def _json_safe(obj):
    if isinstance(obj, float) and not math.isfinite(obj):
        return None if math.isnan(obj) else ("inf" if obj > 0 else "-inf")
    if isinstance(obj, dict):
        return {k: _json_safe(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_json_safe(v) for v in obj]
    return obj


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``baiuv`` command."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "identify":
        try:
            return identify(args, sys.stdin, sys.stdout, sys.stderr)
        except InputError as exc:
            print(f"baiuv identify: error: {exc}", file=sys.stderr)
            return 2
    return 1  # pragma: no cover - argparse enforces the subcommand


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
