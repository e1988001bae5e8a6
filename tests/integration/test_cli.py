"""``baiuv identify`` (temporary files, standard streams, exit codes), decision D74.

Most cases call the command's entry point (:func:`baiuv.cli.main`, what the ``baiuv``
console script runs) in this process with its standard streams replaced (:func:`run`);
the end-to-end cases (a simulation, a clean standard error, ``--help``) start a real
process (:func:`run_process`)."""

import contextlib
import io
import json
import subprocess
import sys
from unittest import mock

import numpy as np
import pytest

from baiuv import EASY, BestArmIdentifier, cli, cli_replay, cli_rows
from baiuv.simulation import RunSettings, simulate_run

CMD = [sys.executable, "-m", "baiuv.cli", "identify"]


def run(args, stdin=None) -> subprocess.CompletedProcess:
    """``baiuv identify ARGS`` in this process: exit code (argparse's ``SystemExit``
    included), standard output and standard error."""
    out, err = io.StringIO(), io.StringIO()
    inp = io.TextIOWrapper(io.BytesIO((stdin or "").encode()), encoding="utf-8")
    with (
        mock.patch.object(sys, "stdin", inp),
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
    ):
        try:
            code = cli.main(["identify", *args])
        except SystemExit as exc:
            code = exc.code
    return subprocess.CompletedProcess(args, code, out.getvalue(), err.getvalue())


def run_process(args, stdin=None) -> subprocess.CompletedProcess:
    """``baiuv identify ARGS`` in a new Python process."""
    return subprocess.run(
        CMD + list(args), input=stdin, capture_output=True, text=True, timeout=600
    )


def write_csv(path, rows, header=True):
    lines = (["arm,value"] if header else []) + [f"{a},{v!r}" for a, v in rows]
    path.write_text("\n".join(lines) + "\n")
    return path


def stream(mu, sd, n, seed):
    """Round-robin data that make arm 0 clearly best."""
    g = np.random.default_rng(seed)
    K = len(mu)
    return [(i % K, float(mu[i % K] + sd[i % K] * g.standard_normal())) for i in range(n)]


def test_simulate_reproduces_the_simulator():
    p = run_process(
        ["--simulate", "easy", "--seed", "4", "--threshold", "box", "--json", "--quiet"]
    )
    assert p.returncode == 0, p.stderr
    s = json.loads(p.stdout)
    r = simulate_run(
        EASY, "TCI", settings=RunSettings(threshold="box"), rng=np.random.default_rng(4)
    )
    assert s["n_samples"] == r["stopping_time"]
    assert s["counts"] == r["counts"]
    assert s["recommendation"] == r["recommendation"] and s["correct"]
    assert s["stop_reason"] == "glr" and s["threshold"] == "box"


def test_simulate_custom_instance_text_output():
    p = run(["--simulate", "1,0;1,1", "--sampling", "ev-tci", "--delta", "0.1", "--seed", "1"])
    assert p.returncode == 0, p.stderr
    assert "threshold ev-bob" in p.stdout  # default threshold of the ev- rules
    assert "recommended arm: 0" in p.stdout and "true best arm: 0 (correct)" in p.stdout


def test_replay_stops_and_reports_unused_rows(tmp_path):
    rows = stream([1.0, 0.0], [1.0, 1.0], 3000, 0)
    f = write_csv(tmp_path / "ab.csv", rows)
    p = run([str(f), "--threshold", "box", "--json", "--quiet"])
    assert p.returncode == 0, p.stderr
    s = json.loads(p.stdout)
    assert s["done"] and s["stop_reason"] == "glr" and s["recommendation"] == 0
    used = s["rows_used"]
    assert used == s["n_samples"] and used + s["rows_unused"] == len(rows)
    assert s["stopped_at_line"] == used + 1  # header on line 1
    # independent replay with the Python API: same stopping row and statistics
    idf = BestArmIdentifier(2, 0.01, "tci", "box", strict=False, rng=0)
    k = 0
    for a, v in rows:
        k += 1
        if idf.observe(a, v):
            break
    assert k == used and idf.summary()["counts"] == s["counts"]
    np.testing.assert_allclose(idf.means, s["means"], rtol=1e-12)


def test_replay_runs_out_of_data_and_names_the_next_arm(tmp_path):
    f = write_csv(tmp_path / "short.csv", stream([1.0, 0.0, 0.5], [1, 1, 1], 12, 1), header=False)
    p = run([str(f)])
    assert p.returncode == 3, p.stderr  # not identified: the data ran out
    assert "status: running" in p.stdout
    assert "next arm to sample:" in p.stdout
    idf = BestArmIdentifier(3, 0.01, "tci", "bob", strict=False, rng=0)  # --seed 0
    for a, v in stream([1.0, 0.0, 0.5], [1, 1, 1], 12, 1):
        idf.observe(a, v)
    assert f"next arm to sample: {idf.next_arm()}" in p.stdout


def test_stdin_with_labels():
    rows = stream([0.0, 0.6], [1.0, 1.0], 5000, 2)
    text = "variant,value\n" + "".join(f"{['control', 'treatment'][a]},{v!r}\n" for a, v in rows)
    p = run(["-", "--arms", "control,treatment", "--threshold", "bob", "--delta", "0.05"], text)
    assert p.returncode == 0, p.stderr
    assert "recommended arm: treatment (arm 1)" in p.stdout and "1 = treatment" in p.stdout
    assert "not read (stream)" in p.stdout


@pytest.mark.parametrize(
    "content,args,match",
    [
        ("0,1.0\n1,nan\n", [], r"line 2: value must be finite, got nan \(not a number\)"),
        ("0,1.0\n1,inf\n", [], "line 2: value must be finite, got inf"),
        ("0,1.0\n3,0.5\n", ["--n-arms", "2"], r"line 2: arm 3 does not exist: the arms are 0 to 1"),
        ("0,1.0\n-1,0.5\n", [], r"line 2: arm -1 is negative"),
        ("0,1.0\nx,0.5\n", [], "line 2: unknown arm 'x'"),
        ("0,1.0\n1,abc\n", [], "line 2: value 'abc' is not a number"),
        ("0,1.0,3\n", [], "line 1: expected 2 fields"),
        ("arm,value\n", [], "no 'arm,value' rows"),
    ],
)
def test_bad_rows_exit_2_with_line_number(tmp_path, content, args, match):
    f = tmp_path / "bad.csv"
    f.write_text(content)
    p = run([str(f), *args])
    assert p.returncode == 2
    assert "baiuv identify: error:" in p.stderr
    assert __import__("re").search(match, p.stderr), p.stderr


def test_skip_bad_rows(tmp_path):
    f = tmp_path / "skip.csv"
    f.write_text("0,1.0\n1,nan\n1,0.0\n")
    p = run([str(f), "--n-arms", "2", "--skip-bad", "--json"])
    assert p.returncode == 3, p.stderr
    s = json.loads(p.stdout)
    assert s["rows_skipped"] == 1 and s["counts"] == [1, 1]
    assert "line 2: skipped" in p.stderr


@pytest.mark.parametrize(
    "args,match",
    [
        ([], "nothing to identify from"),
        (["x.csv", "--simulate", "easy"], "either an input CSV"),
        (["--simulate", "medium"], "--simulate must be"),
        (["--simulate", "1,1;1,1"], "unique best arm"),
        (["--simulate", "easy", "--sampling", "fhn2"], "sampling must be one of"),
        (["--simulate", "easy", "--threshold", "ev-box"], "GLR version"),
        (["--simulate", "easy", "--delta", "2"], "delta"),
        (["--simulate", "easy", "--n-arms", "3"], "does not match"),
        (["-"], "needs --n-arms"),
        (["/nonexistent/file.csv"], "cannot read"),
    ],
)
def test_bad_arguments(args, match):
    p = run(args, stdin="")
    assert p.returncode == 2
    assert match in p.stderr, p.stderr


@pytest.mark.parametrize(
    "content,args,match",
    [
        (b"0,1.0\n99999999999,2.0\n", [], r"line 2: arm index 99999999999 is too large"),
        (b"0,1.0\n1000,2.0\n", [], r"line 2: .*below 1000 \(give --n-arms"),
        (b"0,1\n1,2\n5,3\n", [], r"line 3: arm index 5 but .* 3 distinct arms .*--n-arms 6"),
        (b"arm,value\n0,1.5\n1,\xff2.0\n", [], r"line 3: not UTF-8 text \(byte 0xff"),
        (b"\xe9,1.0\n", [], r"line 1: not UTF-8"),
        (
            b"contrl,1.5\ncontrol,2\n",
            ["--arms", "control,b"],
            r"line 1: arm 'contrl' is not one of the labels",
        ),
        (b"control,1.5\n1,2\n", [], r"line 1: unknown arm 'control' .*--arms"),
    ],
)
def test_bad_input_files_exit_2_with_one_clear_line(tmp_path, content, args, match):
    f = tmp_path / "bad.csv"
    f.write_bytes(content)
    p = run([str(f), *args, "--quiet"])
    assert p.returncode == 2, p.stderr
    assert len(p.stderr.strip().splitlines()) == 1, p.stderr
    assert __import__("re").search(match, p.stderr), p.stderr


def test_gap_in_arm_indices_accepted_with_n_arms_and_bom_header(tmp_path):
    f = tmp_path / "gap.csv"
    f.write_bytes("\ufeffarm,value\n0,1\n1,2\n5,3\n".encode())
    p = run([str(f), "--n-arms", "6", "--json", "--quiet"])
    assert p.returncode == 3, p.stderr  # read, not identified
    assert json.loads(p.stdout)["counts"] == [1, 1, 0, 0, 0, 1]
    f.write_bytes(b"0,1\n2,2\n")  # one arm without data below the largest index: fine
    assert run([str(f), "--quiet"]).returncode == 3


@pytest.mark.parametrize("n", ["99999999999", "1", "1000001"])
def test_n_arms_out_of_range(n):
    p = run(["-", "--n-arms", n], stdin="0,1\n")
    assert p.returncode == 2 and "--n-arms must be between 2 and 1000000" in p.stderr


def test_constant_data_warn_in_plain_words_and_stderr_stays_clean(tmp_path):
    """Constant arms: no crash, no stop, a warning in the summary, nothing but progress on
    stderr (no numpy warning), no 'after the stop' line since the rule did not stop."""
    f = tmp_path / "const.csv"
    f.write_text("".join(f"{i % 2},{5 if i % 2 else 3}\n" for i in range(300)))
    p = run_process([str(f), "--progress-every", "50"])
    assert p.returncode == 3, p.stderr
    assert "warning: the data do not look Gaussian" in p.stdout
    assert "all 150 observations are equal" in p.stdout
    assert "after the stop" not in p.stdout and "status: running" in p.stdout
    assert "Warning" not in p.stderr and "warning" not in p.stderr.lower(), p.stderr
    lines = [ln for ln in p.stderr.splitlines() if not ln.startswith("baiuv: compiling")]
    assert all(ln.startswith("[t=") for ln in lines), p.stderr


def test_help_is_short_and_plain():
    p = subprocess.run(CMD + ["--help"], capture_output=True, text=True, timeout=600)
    assert p.returncode == 0
    assert "error probability" in p.stdout and "confidence level" not in p.stdout
    for markup in ("``", ":func:", ":class:", "decision", "D74"):
        assert markup not in p.stdout
    assert len(p.stdout.splitlines()) < 70


def test_first_use_notice(monkeypatch, capsys):
    """One line on stderr when the compiled kernels are not in the cache yet."""
    from baiuv import cli, warmup

    calls = []
    monkeypatch.setattr(warmup, "warm_up", lambda: calls.append(1))
    for ready in (False, True):
        monkeypatch.setattr(warmup, "kernels_ready", lambda r=ready: r)
        monkeypatch.setattr(warmup, "_first_use_checked", False)  # a new process
        assert cli.main(["identify", "--simulate", "easy", "--quiet", "--delta", "0.2"]) == 0
        monkeypatch.setattr(warmup, "_first_use_checked", False)
        assert cli.main(["identify", "--simulate", "easy", "--delta", "0.2"]) == 0
        err = capsys.readouterr().err
        assert err.count("compiling the numerical kernels") == (0 if ready else 1)
    assert calls == [1, 1]


def test_entry_point_declared():
    import tomllib
    from pathlib import Path

    cfg = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())
    assert cfg["project"]["scripts"]["baiuv"] == "baiuv.cli:main"


# --------------------------------------------------------------------------- block replay
def messy_lines(seed: int, n: int, labels=None) -> list[str]:
    """Lines of every shape the row format allows: plain and scientific numbers, more
    than 15 significant digits, signs, signed zeros, spaces and tabs, CRLF, blank and
    comment lines, quoted fields, underscores, non-ASCII spaces, labels."""
    g = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        arm = int(g.integers(0, 3))
        a = labels[arm] if labels else str(arm)  # labels and indices are not mixed
        x = g.standard_normal() * 10.0 ** int(g.integers(-30, 30))
        v = str(
            g.choice(
                [
                    repr(x), f"{x:.4f}", f"{x:.17g}", f"{x:e}", f"{x:.3E}", "-0", "0.0", "-0.000",
                    "1.", ".5", "+2.5", "1_000.5", "1e22", "9007199254740993", "123456789012345.6",
                    "1e-22", "4.9e-324", "1e400", "-1e400", "nan", "inf", "7",
                ]
            )
        )  # fmt: skip
        pad = g.choice(["", " ", "\t", "  "])
        line = f"{pad}{a}{pad},{pad}{v}{pad}"
        r = g.random()
        if r < 0.03:
            line = ""
        elif r < 0.06:
            line = "# comment, with, commas"
        elif r < 0.08:
            line = f'"{a}","{v}"'
        elif r < 0.09:
            line = f"\u00a0{a},{v}"
        out.append(line + ("\r\n" if g.random() < 0.2 else "\n"))
    return out


def blocks_as_rows(data: bytes, labels, n_arms):
    rows = []
    for arms, values, lines in cli_rows.row_blocks(io.BytesIO(data), labels, n_arms):
        rows += list(zip(lines.tolist(), arms.tolist(), values.tolist(), strict=True))
    return rows


def same_rows(fast, slow):
    assert len(fast) == len(slow)
    for (l1, a1, v1), (l2, a2, v2) in zip(fast, slow, strict=True):
        assert (l1, a1) == (l2, a2)
        assert v1 == v2 or (v1 != v1 and v2 != v2), (l1, v1, v2)
        assert np.signbit(v1) == np.signbit(v2), (l1, v1, v2)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("chunk,rows_out", [(1 << 20, 65536), (7, 3)])
def test_block_reader_gives_the_rows_of_the_line_reader(monkeypatch, seed, chunk, rows_out):
    """The compiled block reader against the CSV line reader (``read_rows``): same line
    numbers, arms and values bit for bit, at any chunk and block size."""
    from baiuv.simulation import replay

    monkeypatch.setattr(cli_rows, "CHUNK_BYTES", chunk)
    monkeypatch.setattr(replay, "ROWS_OUT", rows_out)
    labels = ["ctrl", "treat", "b"] if seed % 2 else None
    head = ["arm,value\n", "\ufeffarm,value\n", "0,1.5\n"][seed % 3]
    if labels and head == "0,1.5\n":  # rows name their arms by label only
        head = "ctrl,1.5\n"
    data = (head + "".join(messy_lines(seed, 400, labels))).encode()
    slow = list(read_rows_bytes(data, labels, 3))
    same_rows(blocks_as_rows(data, labels, 3), slow)
    assert len(slow) > 300


def read_rows_bytes(data: bytes, labels, n_arms):
    return cli_rows.read_rows(io.BytesIO(data), labels, n_arms)


@pytest.mark.parametrize(
    "bad",
    ["0,1,2", "x,1", "0,abc", "-1,0.5", "2000,1", "\xff,1", '0,"1\r2"', "0,1\r2,3", "5"],
)
def test_block_reader_errors_name_the_line_after_the_rows_before(bad):
    """A malformed row: the rows before it, then the line reader's error."""
    good = "".join(f"{i % 2},{i}.25\n" for i in range(20))
    data = good.encode() + bad.encode("latin-1") + b"\n" + good.encode()
    with pytest.raises(cli_rows.InputError) as slow:
        list(read_rows_bytes(data, None, None))
    rows = []
    with pytest.raises(cli_rows.InputError) as fast:
        for arms, _, _ in cli_rows.row_blocks(io.BytesIO(data), None, None):
            rows += arms.tolist()
    assert str(fast.value) == str(slow.value) and str(fast.value).startswith("line 21:")
    assert len(rows) == 20


def test_replay_in_small_chunks_is_the_same(tmp_path, monkeypatch):
    rows = stream([1.0, 0.0, 0.4], [1.0, 1.0, 2.0], 4000, 5)
    f = write_csv(tmp_path / "abc.csv", rows)
    args = [str(f), "--threshold", "box", "--json", "--quiet"]
    ref = json.loads(run(args).stdout)
    from baiuv.simulation import replay

    monkeypatch.setattr(cli_rows, "CHUNK_BYTES", 100)
    monkeypatch.setattr(replay, "ROWS_OUT", 7)
    small = json.loads(run(args).stdout)
    assert ref == small and ref["done"] and ref["rows_unused"] > 0
    idf = BestArmIdentifier(3, 0.01, "tci", "box", strict=False, rng=0)
    used = next(i for i, (a, v) in enumerate(rows, 1) if idf.observe(a, v))
    assert ref["rows_used"] == used and ref["stopped_at_line"] == used + 1


def test_skip_bad_skips_malformed_rows_and_bad_values(tmp_path):
    f = tmp_path / "skip.csv"
    f.write_text("arm,value\n0,1.0\n1,abc\n1,0.5\n0,1,2\n2,0.0\n1,inf\n0,2.0\n")
    p = run([str(f), "--n-arms", "2", "--skip-bad", "--json", "--quiet"])
    assert p.returncode == 3, p.stderr  # the data ran out
    s = json.loads(p.stdout)
    assert s["rows_skipped"] == 4 and s["counts"] == [2, 1] and s["rows_used"] == 3
    for line in ("line 3: skipped (value 'abc'", "line 5: skipped (expected 2 fields",
                 "line 6: skipped (arm 2 does not exist: the arms are 0 to 1",
                 "line 7: skipped (value must be finite, got inf (written as inf"):  # fmt: skip
        assert line in p.stderr, p.stderr
    p = run([str(f), "--n-arms", "2", "--quiet"])
    assert p.returncode == 2 and "line 3: value 'abc' is not a number" in p.stderr


def test_stdin_stops_reading_and_a_bad_row_after_the_stop_is_not_read():
    rows = stream([2.0, 0.0], [1.0, 1.0], 3000, 3)
    text = "".join(f"{a},{v!r}\n" for a, v in rows) + "0,oops\n"
    p = run(["-", "--n-arms", "2", "--threshold", "box", "--json", "--quiet"], text)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["rows_unused"] is None


def test_live_progress_on_a_terminal(tmp_path, monkeypatch):
    """Rows read and rate on stderr when it is a terminal (and nothing when it is not)."""

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    monkeypatch.setattr(cli_replay, "PROGRESS_SECONDS", 0.0)
    f = write_csv(tmp_path / "p.csv", stream([0.0, 0.0], [1.0, 1.0], 200_000, 0))
    args = cli.build_parser().parse_args(["identify", str(f), "--delta", "1e-9"])
    err = Terminal()
    assert cli.identify(args, sys.stdin, io.StringIO(), err) == 3  # equal arms: undecided
    assert "200,000 rows read" in err.getvalue() and "rows/s" in err.getvalue()
    args = cli.build_parser().parse_args(["identify", str(f), "--delta", "1e-9"])
    plain = io.StringIO()
    assert cli.identify(args, sys.stdin, io.StringIO(), plain) == 3
    assert "rows read" not in plain.getvalue()


def test_python_m_baiuv_and_version():
    from baiuv import __version__

    p = subprocess.run(
        [sys.executable, "-m", "baiuv", "--version"], capture_output=True, text=True, timeout=600
    )
    assert p.returncode == 0 and p.stdout.strip() == f"baiuv {__version__}"
