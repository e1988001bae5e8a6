"""Reading ``arm,value`` rows: the compiled parser against numpy's C parser (prints a table;
not a test).

The replay of ``baiuv identify FILE`` reads its rows with :func:`baiuv.cli_rows.row_blocks`,
whose fast path is the compiled :func:`baiuv.simulation.replay.parse_rows`. The
alternative is numpy's own C parser (:func:`numpy.loadtxt`, rewritten in C in numpy 1.23)
on the same 1 MiB chunks, which would still need the Python fallback for the rows it
refuses (to give the same line-numbered messages). Both read the same file, in the same
process, alternating, three times each; the table gives the best rate of each and their
ratio. A numpy reader is worth its simplicity only if the compiled one is not at least 2x
faster (D322: the hand-written parser is kept on this measured ratio).

Usage: ``python benchmarks/bench_csv.py [--rows 4e6]`` (``nice -n 10`` on a shared machine).
"""

from __future__ import annotations

import argparse
import io
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_replay import write_rows  # noqa: E402

from baiuv.cli_rows import CHUNK_BYTES, row_blocks  # noqa: E402


def read_compiled(path: Path) -> tuple[int, float]:
    """Rows and sum of values read by the replay's reader."""
    n, s = 0, 0.0
    with open(path, "rb") as f:
        for arms, values, _ in row_blocks(f, None, None):
            n += arms.shape[0]
            s += float(values.sum())
    return n, s


def read_numpy(path: Path) -> tuple[int, float]:
    """Rows and sum of values read by :func:`numpy.loadtxt` on the same chunks (the header
    line skipped; no fallback needed on this clean file)."""
    n, s = 0, 0.0
    carry = b""
    with open(path, "rb") as f:
        f.readline()  # header
        while True:
            data = f.read(CHUNK_BYTES)
            buf = carry + data
            cut = len(buf) if not data else buf.rfind(b"\n") + 1
            carry = buf[cut:]
            if cut:
                table = np.loadtxt(
                    io.BytesIO(buf[:cut]),
                    delimiter=",",
                    comments="#",
                    dtype=np.float64,
                    ndmin=2,
                )
                arms = table[:, 0].astype(np.int64)
                n += arms.shape[0]
                s += float(table[:, 1].sum())
            if not data:
                return n, s


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=float, default=4e6)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    rows = int(args.rows)
    with tempfile.TemporaryDirectory() as tmp:
        path = write_rows(Path(tmp) / "rows.csv", rows)
        read_compiled(path)  # load the compiled parser once
        best = {"compiled (parse_rows)": np.inf, "numpy.loadtxt": np.inf}
        sums = {}
        for _ in range(args.repeat):
            for name, fn in (
                ("compiled (parse_rows)", read_compiled),
                ("numpy.loadtxt", read_numpy),
            ):
                t0 = time.perf_counter()
                n, s = fn(path)
                best[name] = min(best[name], time.perf_counter() - t0)
                assert n == rows, (name, n)
                sums[name] = s
    a, b = sums.values()
    assert abs(a - b) <= 1e-9 * max(1.0, abs(a)), sums
    print(f"{rows:,} rows, best of {args.repeat}")
    print(f"{'reader':<24}{'s':>8}{'M rows/s':>10}")
    for name, sec in best.items():
        print(f"{name:<24}{sec:>8.2f}{rows / sec / 1e6:>10.2f}")
    ratio = best["numpy.loadtxt"] / best["compiled (parse_rows)"]
    print(f"compiled parser speed-up over numpy.loadtxt: {ratio:.1f}x")


if __name__ == "__main__":
    main()
