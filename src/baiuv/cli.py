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

The command's parser, the simulation and the exit statuses are here; the rows of a file
are read by :mod:`baiuv.cli_rows`, replayed by :mod:`baiuv.cli_replay`, the summary is
written by :mod:`baiuv.cli_output` (``baiuv plan``: :mod:`baiuv.cli_plan`).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TextIO

import numpy as np

from baiuv import __version__, warmup
from baiuv.cli_output import json_summary, text_summary, write
from baiuv.cli_plan import PlanInputError, add_plan_parser, plan
from baiuv.cli_replay import build_identifier, print_progress, run_replay
from baiuv.cli_rows import InputError
from baiuv.model.instance import EASY, STANDARD, GaussianInstance
from baiuv.simulation.epsilon import is_epsilon_good
from baiuv.simulation.identify import SAMPLING_RULES, BestArmIdentifier

NAMED = {"standard": STANDARD, "easy": EASY}


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


def run_simulation(args, err: TextIO) -> tuple[BestArmIdentifier, dict]:
    inst = parse_instance(args.simulate)
    if args.n_arms is not None and args.n_arms != inst.K:
        raise InputError(f"--n-arms {args.n_arms} does not match the instance (K = {inst.K})")
    gen = np.random.default_rng(args.seed)
    idf = build_identifier(args, inst.K, True, gen)
    sd = np.sqrt(inst.sigma2)
    every = args.progress_every if args.progress_every is not None else 1000
    while not idf.done:
        a = idf.next_arm()
        idf.observe(a, float(inst.mu[a] + sd[a] * gen.standard_normal()))
        if every and idf.n_samples % every == 0 and not args.quiet:
            print_progress(idf, err)
    extra = {
        "source": f"simulate {inst.name or args.simulate}",
        "seed": args.seed,
        "true_best_arm": inst.best_arm,
        "correct": is_epsilon_good(inst.mu, idf.recommendation, idf.epsilon),
    }
    return idf, extra


def build_parser() -> argparse.ArgumentParser:
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
