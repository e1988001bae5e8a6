"""``baiuv identify`` (subprocess + temporary files), decision D74."""

import json
import subprocess
import sys

import numpy as np
import pytest

from baiuv import EASY, BestArmIdentifier
from baiuv.simulation import RunSettings, simulate_run

CMD = [sys.executable, "-m", "baiuv.cli", "identify"]


def run(args, stdin=None):
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
    p = run(["--simulate", "easy", "--seed", "4", "--threshold", "box", "--json", "--quiet"])
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
    assert p.returncode == 0, p.stderr
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
    assert "recommended arm: 1" in p.stdout and "1 = treatment" in p.stdout
    assert "not read (stream)" in p.stdout


@pytest.mark.parametrize(
    "content,args,match",
    [
        ("0,1.0\n1,nan\n", [], "line 2: value must be finite"),
        ("0,1.0\n1,inf\n", [], "line 2: value must be finite"),
        ("0,1.0\n3,0.5\n", ["--n-arms", "2"], r"line 2: arm must be in \[0, 2\)"),
        ("0,1.0\n-1,0.5\n", [], r"line 2: arm must be in"),
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
    assert p.returncode == 0, p.stderr
    s = json.loads(p.stdout)
    assert s["rows_skipped"] == 1 and s["counts"] == [1, 1]
    assert "line 2: skipped" in p.stderr


@pytest.mark.parametrize(
    "args,match",
    [
        ([], "either an input CSV"),
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


def test_entry_point_declared():
    import tomllib
    from pathlib import Path

    cfg = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())
    assert cfg["project"]["scripts"]["baiuv"] == "baiuv.cli:main"
