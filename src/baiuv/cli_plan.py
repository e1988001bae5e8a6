"""``baiuv plan``: how many samples identifying the best arm takes, before collecting them.

The subcommand of :mod:`baiuv.cli` around :func:`baiuv.simulation.plan.plan_experiment`:
the lower bound of Lemma 2, the optimal allocation and a simulation of the chosen rule and
threshold, printed for a person or as JSON (``--json``: numbers, strings, booleans, lists
and ``null`` only). A progress bar goes to stderr when stderr is a terminal.
"""

from __future__ import annotations

import argparse
import json
import math
from typing import TextIO

from baiuv.simulation.identify import SAMPLING_RULES
from baiuv.simulation.plan import plan_experiment

__all__ = ["add_plan_parser", "plan"]

HELP = """\
Plan an experiment before collecting data: how many observations does identifying the
best of several Gaussian arms take, with error probability at most --delta?

Prints the lower bound of Lemma 2 of the paper (no delta-correct method can need fewer
samples on average), the optimal proportions of samples per arm, and the stopping time
and error rate of --runs simulated experiments with the chosen sampling rule and
threshold.

With --epsilon E > 0 the rule stops once its recommendation is within E of the best
(an error is a recommendation more than E below the best; the best may be tied). tci and
ev-tci then take their challenger with E, so a tie of the best arms stops; the other
rules ignore E and stop on a tie through their forced exploration, more slowly.

With --batch B > 1 the simulated experiments assign B samples at once and learn their
outcomes only once the whole batch is sampled; the plan then also gives the samples drawn
(whole batches).

examples:
  baiuv plan --means 0.12,0.10 --sd 0.3,0.3 --delta 0.05
  baiuv plan --means 0.12,0.12,0.1 --sd 0.3,0.3,0.3 --delta 0.05 --epsilon 0.02
  baiuv plan --means 1,0.85,0.8,0.7,0.65 --sd 1,0.77,0.71,0.63,0.59 --delta 0.01 --json
  baiuv plan --means 0.12,0.10 --sd 0.3,0.3 --delta 0.05 --batch 500
"""


class PlanInputError(ValueError):
    """Invalid input of ``baiuv plan`` (exit status 2)."""


def _numbers(text: str, option: str) -> list[float]:
    parts = [p.strip() for p in str(text).split(",")]
    try:
        vals = [float(p) for p in parts]
    except ValueError:
        raise PlanInputError(
            f"{option} must be comma-separated numbers, e.g. {option} 1,0.5; got {text!r}"
        ) from None
    bad = [p for p, v in zip(parts, vals, strict=True) if not math.isfinite(v)]
    if bad:
        raise PlanInputError(f"{option} must be finite numbers, got {bad[0]!r}")
    return vals


def add_plan_parser(sub) -> argparse.ArgumentParser:
    """Add the ``plan`` subcommand to the subparsers ``sub`` of ``baiuv``."""
    q = sub.add_parser(
        "plan",
        help="how many samples identifying the best arm takes (bound, allocation, simulation)",
        description=HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    q.add_argument("--means", required=True, help="comma-separated means of the arms")
    q.add_argument("--sd", required=True, help="comma-separated standard deviations (> 0)")
    q.add_argument(
        "--delta", type=float, default=0.01, help="error probability in (0, 1) (default 0.01)"
    )
    q.add_argument(
        "--sampling",
        default="tci",
        help=f"sampling rule: {', '.join(sorted(SAMPLING_RULES))} (default tci)",
    )
    q.add_argument(
        "--threshold",
        default=None,
        help="stopping threshold: bob, box, kl, student (ev-bob, ev-box, ev-student for the "
        "ev- rules) or heuristic (no guarantee); default bob or ev-bob",
    )
    q.add_argument(
        "--runs", type=int, default=100, help="simulated experiments (default 100; 0: none)"
    )
    q.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    q.add_argument(
        "--max-samples",
        type=int,
        default=None,
        help="budget of a simulated experiment (default 10000000)",
    )
    q.add_argument(
        "--epsilon",
        type=float,
        default=0.0,
        help="indifference zone: stop once the recommended arm is within EPSILON of the best "
        "(default 0: the best arm itself)",
    )
    q.add_argument(
        "--batch",
        type=int,
        default=1,
        help="samples assigned at once, each batch answered when all of it is sampled "
        "(default 1: one at a time)",
    )
    q.add_argument("--json", action="store_true", help="print the plan as JSON")
    q.add_argument("--quiet", action="store_true", help="no progress bar")
    return q


class _Bar:
    """A one-line progress bar on a terminal (``\\r``-rewritten), nothing elsewhere."""

    def __init__(self, err: TextIO, enabled: bool) -> None:
        self.err = err
        self.enabled = enabled and hasattr(err, "isatty") and err.isatty()
        self.shown = False

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled:
            return
        width = 30
        full = width * done // total
        bar = "#" * full + "." * (width - full)
        print(f"\rsimulating [{bar}] {done}/{total}", end="", file=self.err, flush=True)
        self.shown = True

    def close(self) -> None:
        if self.shown:
            print(file=self.err, flush=True)


def _fmt(v) -> str:
    return "-" if v is None else f"{v:.0f}"


def format_plan(p: dict) -> str:
    """The plan of :func:`baiuv.simulation.plan.plan_experiment` as text."""
    K = p["K"]
    eps = p.get("epsilon", 0.0)
    best = "tied" if p["best_arm"] is None else p["best_arm"]
    lines = [f"{K} arms, best arm {best}, δ = {p['delta']:g}" + (f", ε = {eps:g}" if eps else "")]
    if p["T_star"] is not None:
        tag = " (exact identification)" if eps else ""
        lines.append(f"characteristic time T⋆(μ, σ²){tag}: {p['T_star']:.4g}")
    if p["lower_bound"] is not None:
        lines.append(
            f"lower bound (Lemma 2, T⋆ ln(1/(2.4δ))): {p['lower_bound']:.4g} samples on "
            "average for any δ-correct method"
        )
    else:  # epsilon > 0 (D294: Lemma 2 bounds exact identification only)
        lines.append(
            "no lower bound: Lemma 2 bounds the methods that identify the best arm itself, "
            "not those that stop within ε of it"
        )
    w = p["optimal_allocation"]
    lines.append(f"{'arm':>4} {'mean':>10} {'sd':>10}" + (f" {'optimal share':>14}" if w else ""))
    top = max(p["means"])
    for a in range(K):
        tag = "*" if p["means"][a] == top else " "
        share = f" {w[a]:>14.4f}" if w else ""
        lines.append(f"{a:>3}{tag} {p['means'][a]:>10.4g} {p['sd'][a]:>10.4g}{share}")
    if not p["runs"]:
        return "\n".join(lines)
    guarantee = "δ-correct" if p["delta_correct"] else "not δ-correct"
    lines += [
        f"simulated: {p['runs']} runs of {p['sampling']} with the {p['threshold']} threshold "
        f"({guarantee}), seed {p['seed']}",
        f"stopping time: mean {_fmt(p['stopping_time_mean'])}, median "
        f"{_fmt(p['stopping_time_median'])}, 90th percentile {_fmt(p['stopping_time_p90'])}",
        *(
            [
                f"in batches of {p['batch']} (each answered once all of it is sampled): "
                f"{_fmt(p['samples_drawn_mean'])} samples drawn on average"
            ]
            if p.get("batch", 1) > 1
            else []
        ),
        f"errors{f' (more than ε = {eps:g} below the best)' if eps else ''}: "
        f"{p['errors']}/{p['runs']} (rate {p['error_rate']:.3g}, 95% Wilson interval "
        f"[{p['error_rate_low']:.3g}, {p['error_rate_high']:.3g}])",
    ]
    if p["truncated"]:
        lines.append(
            f"{p['truncated']} runs reached max-samples {p['max_samples']} before stopping: "
            "the stopping times above are then lower bounds"
        )
    return "\n".join(lines)


def plan(args, out: TextIO, err: TextIO) -> int:
    """Run ``baiuv plan`` (``PlanInputError`` on invalid input)."""
    means = _numbers(args.means, "--means")
    sd = _numbers(args.sd, "--sd")
    if args.runs is not None and args.runs < 0:
        raise PlanInputError(f"--runs must be >= 0, got {args.runs}")
    bar = _Bar(err, not args.quiet)
    try:
        result = plan_experiment(
            means,
            sd,
            args.delta,
            sampling=args.sampling,
            threshold=args.threshold,
            runs=args.runs,
            seed=args.seed,
            max_samples=args.max_samples,
            epsilon=args.epsilon,
            batch=args.batch,
            progress=bar,
        )
    except ValueError as exc:
        raise PlanInputError(str(exc)) from None
    finally:
        bar.close()
    if args.json:
        print(json.dumps(result, indent=2, allow_nan=False), file=out)
    else:
        print(format_plan(result), file=out)
    return 0
