"""Compile the kernels of ``baiuv identify`` ahead of its first call (decision D123).

numba compiles the identifier's kernels (sampling rules, GLR statistics, every threshold
family) on first use, which takes from about half a minute to a minute; afterwards they
are loaded from numba's on-disk cache (directory keyed by the source hash, decision D19)
in about a second. :func:`warm_up` runs a short identification that calls every kernel
the identifier uses (each is compiled once for all rules and families: the rule and the
family are run-time codes) and then writes a marker file into that cache directory;
:func:`kernels_ready` checks the marker, so ``baiuv identify`` can say when it still has to
compile. ``scripts/setup-venv.sh`` runs ``python -m baiuv.warmup`` (also ``baiuv warmup``) as its
last step; otherwise the first identifier of a process compiles them, saying so once on
stderr (:func:`first_use`).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from baiuv.storage import numba_setup

MARKER = "identify-kernels-ready"


def marker_path() -> Path | None:
    """The marker file in numba's cache directory (``None`` when there is no usable one)."""
    return Path(numba_setup.CACHE_DIR) / MARKER if numba_setup.CACHE_DIR else None


def kernels_ready() -> bool:
    """Whether :func:`warm_up` completed for the current sources (no numba import)."""
    p = marker_path()
    return p is not None and p.exists()


#: The line that announces a first compile (library and command, once per process).
NOTICE = (
    "baiuv: compiling the numerical kernels for first use (up to a minute, done once; "
    "'baiuv warmup' or 'python -m baiuv.warmup' compiles them ahead)..."
)

_first_use_checked = False


def first_use(err=None, quiet: bool = False) -> bool:
    """Compile the identifier's kernels if numba's cache does not hold them, announcing it
    with :data:`NOTICE` on ``err`` (default ``sys.stderr``) unless ``quiet``; checked once
    per process (the first :class:`baiuv.BestArmIdentifier` and ``baiuv identify`` call
    it). Returns whether it compiled."""
    global _first_use_checked
    if _first_use_checked:
        return False
    _first_use_checked = True
    if kernels_ready():
        return False
    if not quiet:
        print(NOTICE, file=sys.stderr if err is None else err, flush=True)
    warm_up()
    return True


def warm_up() -> None:
    """Compile (or load) every kernel of :class:`baiuv.BestArmIdentifier`, then mark the
    cache directory as ready."""
    global _first_use_checked
    _first_use_checked = True  # the identifiers made here say nothing
    # numba and the kernels load only to compile them (a ready cache imports none)
    import numpy as np

    # numba and the kernels load only to compile them (a ready cache imports none)
    from baiuv.simulation.identify import BestArmIdentifier

    g = np.random.default_rng(0)
    for lazy in (None, 1.5):
        idf = BestArmIdentifier(2, 0.1, "tci", "bob", max_samples=40, lazy_ratio=lazy, rng=0)
        while not idf.done:
            arm = idf.next_arm()
            idf.observe(arm, (0.0, 1.0)[arm] + float(g.standard_normal()))
        idf.summary()
    _warm_up_replay()
    p = marker_path()
    if p is not None:
        try:
            p.write_text("kernels of baiuv identify compiled\n")
        except OSError:  # pragma: no cover - read-only cache: the notice stays
            pass


def _warm_up_replay() -> None:
    """Compile (or load) the kernels of replay: the batched ingestion
    (:meth:`~baiuv.BestArmIdentifier.observe_many`) and the row parser of ``baiuv identify
    FILE``, with the argument types the command passes."""
    # numba and the kernels load only to compile them (a ready cache imports none)
    import numpy as np

    # numba and the kernels load only to compile them (a ready cache imports none)
    from baiuv.simulation import replay
    from baiuv.simulation.identify import BestArmIdentifier

    idf = BestArmIdentifier(2, 0.1, "tci", "bob", max_samples=40, strict=False, rng=0)
    idf.observe_many(np.arange(40) % 2, np.arange(40) % 7 * 0.5)
    buf = np.frombuffer(b"arm,value\n0,1.5\n1,-2e-3\n", np.uint8)  # read-only, as read
    out = [np.empty(4, dt) for dt in (np.int64, np.float64, np.int64, np.uint8, np.int64, np.int64)]
    for labels in (None, ["a", "b"]):
        replay.parse_rows(buf, (0, buf.shape[0], 1), replay.label_table(labels), tuple(out))


#: Runs that compile every simulation kernel the experiments call: the GLR loop
#: (``run_glr``; the rule, the threshold family and the lazy ratio are run-time values of one
#: compiled loop, so one rule with a stateful family and one EV rule cover them) and the
#: elimination loop of FHN1/FHN2 (``run_fhn``).
SIMULATION_WARMUP = (("TCI", "kl", 1.5), ("EV-TCI", "heuristic", None), ("FHN1", "heuristic", None))
#: The stopping levels of a run that compiles the loop of several levels (``run_glr_levels``).
LEVELS_WARMUP = ({"threshold": "kl"}, {"threshold": "heuristic", "lazy_ratio": 1.5})


def _loop_callee_types():
    """numba argument types of the GLR loop's two large callees, as the loop passes them:
    ``pair_threshold_kernel`` and ``update_state`` (threshold kernels) and ``select_arm``
    (every sampling rule's step, the oracle, the FWS game)."""
    # numba and the kernels load only to compile them (a ready cache imports none)
    import numpy as np
    from numba import typeof, types

    from baiuv.simulation.rules import RuleWork
    from baiuv.simulation.rules.run_state import RunState

    a1 = typeof(np.zeros(1))
    table = np.zeros(1)
    table.setflags(write=False)
    a1_ro = typeof(table)
    gen = typeof(np.random.default_rng(0))
    i64, f64 = types.int64, types.float64
    x, m, z = np.zeros(1), np.zeros((1, 1)), np.zeros((1, 1), dtype=np.uint8)
    run = RunState(np.zeros(1, dtype=np.int64), x, x, x, m, m, z, 0, 0, 0, 0.0, 0.0, 0, 0)
    work = RuleWork(False, x, m, x, x, m, z, 0.0)
    return {
        "pair_threshold_kernel": (i64, a1, a1_ro, f64, i64, i64, a1, a1),
        "update_state": (i64, a1, a1, i64, f64, f64),
        "select_arm": (i64, typeof(run), typeof(work), gen),
    }


#: The parts of :func:`compile_simulation_kernels`: the GLR loop's callees in two halves of
#: about equal cost, which can compile in parallel, then the loops.
KERNEL_PARTS = ("thresholds", "rules", "loops")


def compile_simulation_kernels(part: str = "loops") -> list[str]:
    """Compile (or load from numba's cache) the simulation kernels.

    ``part`` is ``"thresholds"`` (the threshold kernels the GLR loop calls, with the loop's
    argument types), ``"rules"`` (``select_arm``: every sampling rule's step, the TaS
    oracle, the FWS game) or ``"loops"`` (``run_glr``, ``run_glr_levels`` and ``run_fhn``, by
    a few short runs, compiling whatever the cache does not hold yet). The pipeline runs
    the first two in parallel, then the loops, before any shard, so that the shard
    processes load the compiled loops (about half a second) instead of each compiling
    them (about half a minute of CPU; decision D211). Returns the signatures compiled,
    for the log.
    """
    # numba and the kernels load only to compile them (a ready cache imports none)
    from baiuv.model.instance import STANDARD
    from baiuv.simulation import rules
    from baiuv.simulation.engine import RunSettings, simulate_levels, warm_up
    from baiuv.thresholds import kernels

    if part not in KERNEL_PARTS:
        raise ValueError(f"part must be one of {', '.join(KERNEL_PARTS)}; got {part!r}")
    sigs = _loop_callee_types()
    if part == "thresholds":
        kernels.pair_threshold_kernel.compile(sigs["pair_threshold_kernel"])
        kernels.update_state.compile(sigs["update_state"])
        return [str(f.signatures[0]) for f in (kernels.pair_threshold_kernel, kernels.update_state)]
    if part == "rules":
        rules.select_arm.compile(sigs["select_arm"])
        return [f"select_arm{rules.select_arm.signatures[0]}"]
    for algorithm, threshold, lazy in SIMULATION_WARMUP:
        warm_up(STANDARD, algorithm, RunSettings(threshold=threshold, lazy_ratio=lazy), seed=0)
    simulate_levels(STANDARD, "TCI", LEVELS_WARMUP, settings=RunSettings(max_samples=50))
    loops = (rules.run_glr, rules.run_glr_levels, rules.run_fhn)
    return [f"{f.__name__}{sig}" for f in loops for sig in f.signatures]


def main() -> int:
    """``python -m baiuv.warmup`` and ``baiuv warmup``: compile the kernels unless they are
    ready."""
    from baiuv import warmup  # this module as imported (``python -m`` runs a copy)

    if warmup.kernels_ready():
        print("==> baiuv identify: compiled kernels already in the cache")
        return 0
    print("==> compiling the kernels of 'baiuv identify' (once; about a minute)", flush=True)
    t0 = time.perf_counter()
    warmup.warm_up()
    print(f"    done in {time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
