"""Start-up time of the package at two revisions of the code, measured in one run.

Extracts the tracked sources of each revision (``git archive``; ``--after worktree``: the
files of this checkout as they are on disk) into a temporary directory and times, in a
fresh process whose ``PYTHONPATH`` is that revision's ``src`` (the same interpreter and
packages for both), what a process of the package does first:

* ``import baiuv`` (the library);
* ``from baiuv import BestArmIdentifier`` (the ask/tell API);
* ``import baiuv.pipeline.cells`` (what a workflow job imports before its work);
* ``python -m baiuv --help`` (the command line's start: parser and help text);
* ``python -X importtime -c 'import baiuv.pipeline.cells'``' total import time of the
  modules, as ``-X importtime`` reports it (the sum of the self times), which leaves the
  interpreter's own start out.

The revisions alternate (A B A B ...) so that a drift of the machine's speed hits both;
for each target it prints the minimum wall time over the repeats at each revision and
their ratio ``x`` = before / after (above 1: the later revision starts faster), and the
number of modules the import loads at each revision.

Usage::

    .venv/bin/python benchmarks/bench_startup.py <commit> [--after HEAD|worktree]
        [--repeats 9]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_pipeline import copy_checkout, extract_revision

#: The timed targets: a label and the interpreter's arguments.
TARGETS = (
    ("import baiuv", ["-c", "import baiuv"]),
    ("from baiuv import BestArmIdentifier", ["-c", "from baiuv import BestArmIdentifier"]),
    ("import baiuv.pipeline.cells", ["-c", "import baiuv.pipeline.cells"]),
    ("python -m baiuv --help", ["-m", "baiuv", "--help"]),
)
#: Counts the modules each import loads (printed once per revision and target).
COUNT = "import sys; {stmt}; print(len(sys.modules))"


def env_of(src: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(src)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def check_source(src: Path) -> None:
    """Exit unless the interpreter imports ``baiuv`` from ``src``."""
    out = subprocess.run(
        [sys.executable, "-c", "import baiuv; print(baiuv.__file__)"],
        env=env_of(src),
        capture_output=True,
        text=True,
        cwd=src.parent,
    )
    if out.returncode or not out.stdout.strip().startswith(str(src)):
        sys.exit(f"baiuv is not imported from {src}: {out.stdout}{out.stderr}")


def wall(src: Path, args: list[str]) -> float:
    """Wall seconds of one fresh interpreter running ``args`` with ``src`` first."""
    t = time.perf_counter()
    subprocess.run(
        [sys.executable, *args], env=env_of(src), cwd=src.parent, check=True, capture_output=True
    )
    return time.perf_counter() - t


def import_total(src: Path, module: str) -> float:
    """Sum of the self times (seconds) of ``-X importtime`` importing ``module``."""
    res = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", f"import {module}"],
        env=env_of(src),
        cwd=src.parent,
        check=True,
        capture_output=True,
        text=True,
    )
    total = 0
    for line in res.stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            self_us = line.split(":", 1)[1].split("|")[0].strip()
            if self_us.isdigit():
                total += int(self_us)
    return total / 1e6


def modules_loaded(src: Path, args: list[str]) -> str:
    if args[0] != "-c":
        return "-"
    res = subprocess.run(
        [sys.executable, "-c", COUNT.format(stmt=args[1])],
        env=env_of(src),
        cwd=src.parent,
        check=True,
        capture_output=True,
        text=True,
    )
    return res.stdout.strip()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("before", help="the earlier revision (a commit)")
    ap.add_argument("--after", default="worktree", help="a commit, or 'worktree' (default)")
    ap.add_argument("--repeats", type=int, default=9)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-startup-") as tmp:
        revs = {}
        for key, rev in (("before", args.before), ("after", args.after)):
            dest = Path(tmp) / key
            if rev == "worktree":
                copy_checkout(dest)
                revs[key] = ("worktree", dest / "src")
            else:
                revs[key] = (extract_revision(rev, dest, "src")[:10], dest / "src")
            check_source(revs[key][1])
        for _, src in revs.values():  # bytecode written once, before any timing
            wall(src, ["-c", "import baiuv.pipeline.cells, baiuv.cli"])
        rows = [*TARGETS, ("-X importtime: import baiuv.pipeline.cells", None)]
        best = {(label, key): float("inf") for label, _ in rows for key in revs}
        for _ in range(args.repeats):
            for label, cmd in rows:
                for key, (_, src) in revs.items():
                    if cmd is None:
                        t = import_total(src, "baiuv.pipeline.cells")
                    else:
                        t = wall(src, cmd)
                    best[label, key] = min(best[label, key], t)
        (ba, _), (af, _) = revs["before"], revs["after"]
        print(f"start-up, minimum over {args.repeats} repeats; before = {ba}, after = {af}")
        print(f"{'target':48s} {'before ms':>10s} {'after ms':>10s} {'x':>6s} {'modules':>11s}")
        for label, cmd in rows:
            b, a = best[label, "before"], best[label, "after"]
            mods = "/".join(modules_loaded(src, cmd) for _, src in revs.values()) if cmd else "-"
            print(f"{label:48s} {b * 1e3:10.1f} {a * 1e3:10.1f} {b / a:6.2f} {mods:>11s}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
