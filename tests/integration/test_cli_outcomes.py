"""``baiuv identify``: what it tells the user is true (decisions D261, D262, D263).

The guarantee line comes from the threshold family's record, huge values are refused
naming the row, a decision reached is never lost to a malformed row after it, the exit
status says what happened (0 identified, 3 not identified, 2 bad input), labels and
indices are not mixed, and every refusal is one line in the user's terms."""

import gzip
import json
import subprocess

import numpy as np
import pytest
from test_cli import CMD, run  # the command in this process, as test_cli runs it

from baiuv import cli


def write_csv(path, rows):
    path.write_text("arm,value\n" + "".join(f"{a},{v!r}\n" for a, v in rows))
    return path


def decisive(n=400, seed=0):
    """Round-robin rows of two arms that make arm 0 clearly best (the rule stops well
    before 400 rows)."""
    g = np.random.default_rng(seed)
    return [(i % 2, float((2.0, 0.0)[i % 2] + g.standard_normal())) for i in range(n)]


def error_line(p) -> str:
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1, p.stderr
    return lines[0]


# ----------------------------------------------------------------------- guarantees
@pytest.mark.parametrize(
    "args,expected",
    [
        (["--threshold", "bob"], "(delta-correct (Corollary 7 of the paper): "),
        (["--threshold", "box"], "(delta-correct (Lemma 5 of the paper): "),
        (["--threshold", "heuristic"], "(no guarantee: the heuristic threshold"),
        (
            ["--sampling", "ev-tci", "--threshold", "ev-heuristic-student"],
            "(no guarantee: the ev-heuristic-student threshold",
        ),
    ],
)
def test_the_stop_line_states_the_records_guarantee(args, expected):
    p = run(["--simulate", "easy", "--quiet", "--delta", "0.1", *args])
    assert p.returncode == 0, p.stderr
    (line,) = [x for x in p.stdout.splitlines() if x.startswith("stopped:")]
    assert expected in line
    assert ("delta-correct (" in line) == ("no guarantee" not in line)
    assert "lem:" not in line and "cor:" not in line


# ----------------------------------------------------------------------- exit status
def test_exit_status_says_what_happened(tmp_path):
    assert run([str(write_csv(tmp_path / "a.csv", decisive()))]).returncode == 0
    short = run([str(write_csv(tmp_path / "b.csv", decisive(6))), "--quiet"])
    assert short.returncode == 3 and "the data ran out" in short.stdout
    budget = run(["--simulate", "standard", "--quiet", "--max-samples", "20"])
    assert budget.returncode == 3 and "max-samples budget reached" in budget.stdout
    bad = run([str(tmp_path / "missing.csv")])
    assert bad.returncode == 2 and bad.stdout == ""


def test_help_documents_the_exit_statuses():
    p = subprocess.run(CMD + ["--help"], capture_output=True, text=True, timeout=600)
    text = " ".join(p.stdout.split())
    assert "Exit status: 0 the best arm was identified" in text
    assert "3 not identified" in text and "2 invalid input" in text


# ----------------------------------------------------------------------- lost decision
@pytest.mark.parametrize("n_arms", [[], ["--n-arms", "2"]])
def test_a_malformed_row_after_the_stop_keeps_the_decision(tmp_path, n_arms):
    rows = decisive()
    path = write_csv(tmp_path / "d.csv", rows)
    stop = run([str(path), "--json", *n_arms])
    assert stop.returncode == 0
    line = json.loads(stop.stdout)["stopped_at_line"]
    with path.open("a") as f:
        f.write("0,oops\n1,0.25\nx,y,z\n")
    p = run([str(path), *n_arms])
    assert p.returncode == 0, p.stderr
    assert "recommended arm: 0" in p.stdout and f"{len(rows) - line + 4} (2 malformed)" in (
        p.stdout
    )
    err = p.stderr.splitlines()
    n = len(rows) + 2
    assert err == [
        f"line {n}: value 'oops' is not a number (after the stopping row: not used)",
        f"line {n + 2}: expected 2 fields 'arm,value', got 3 (after the stopping row: not used)",
    ]


def test_a_malformed_row_before_the_stop_is_still_an_error(tmp_path):
    rows = decisive()
    text = "arm,value\n" + "\n".join(f"{a},{v!r}" for a, v in rows[:10]) + "\n0,oops\n"
    path = tmp_path / "e.csv"
    path.write_text(text + "\n".join(f"{a},{v!r}" for a, v in rows[10:]) + "\n")
    p = run([str(path)])
    assert p.returncode == 2 and p.stdout == ""
    assert error_line(p) == "baiuv identify: error: line 12: value 'oops' is not a number"


# ----------------------------------------------------------------------- huge values
@pytest.mark.parametrize("big", ["1e308", "1.7e308"])
@pytest.mark.parametrize("n_arms", [[], ["--n-arms", "2"]])
def test_huge_values_are_refused_naming_the_line(tmp_path, big, n_arms):
    rows = "".join(f"{i % 2},{'' if i // 2 % 2 == 0 else '-'}{big}\n" for i in range(2000))
    path = tmp_path / "h.csv"
    path.write_text("arm,value\n0,1.5\n" + rows)
    p = run([str(path), *n_arms])
    assert p.returncode == 2 and p.stdout == ""
    msg = error_line(p)
    assert msg.startswith(f"baiuv identify: error: line 3: value {float(big)!r} is too large")
    assert "at most 1e+50" in msg and "overflow" in msg
    skip = run([str(path), "--skip-bad", "--quiet", "--json", *n_arms])
    assert skip.returncode == 3 and json.loads(skip.stdout)["rows_skipped"] == 2000


# ----------------------------------------------------------------------- labels
def test_labels_and_indices_are_not_mixed(tmp_path):
    path = tmp_path / "m.csv"
    path.write_text("arm,value\ncontrol,1.0\n1,0.5\ntreatment,0.2\n")
    p = run([str(path), "--arms", "control,treatment"])
    assert p.returncode == 2
    assert error_line(p) == (
        "baiuv identify: error: line 3: arm '1' is an arm index: with --arms every row "
        "names its arm by one of the labels control, treatment (labels and indices are not "
        "mixed; without --arms, arms are indices 0, 1, 2, ...)"
    )
    numeric = tmp_path / "n.csv"  # numeric labels are labels, never indices
    numeric.write_text("arm,value\n10,1.0\n20,0.5\n0,0.3\n")
    p = run([str(numeric), "--arms", "10,20"])
    assert p.returncode == 2 and "line 4: arm '0' is an arm index" in p.stderr


def test_labels_name_the_recommended_arm(tmp_path):
    rows = [(("control", "treatment")[a], v) for a, v in decisive()]
    path = tmp_path / "l.csv"
    path.write_text("arm,value\n" + "".join(f"{a},{v!r}\n" for a, v in rows))
    p = run([str(path), "--arms", "control,treatment"])
    assert p.returncode == 0 and "recommended arm: control (arm 0)" in p.stdout
    s = json.loads(run([str(path), "--arms", "control,treatment", "--json"]).stdout)
    assert s["recommendation_label"] == "control"


def test_json_has_numbers_or_null_never_strings_for_numbers(tmp_path):
    path = write_csv(tmp_path / "j.csv", decisive(12))  # runs out: infinite thresholds
    p = run([str(path), "--json", "--quiet"])
    assert p.returncode == 3
    assert "inf" not in p.stdout.replace("Infinity", "")
    s = json.loads(p.stdout)
    for key in ("glr", "thresholds", "margin", "means", "variances"):
        assert all(v is None or isinstance(v, float) for v in s[key]), key
    assert s["glr"][s["empirical_best"]] is None


# ----------------------------------------------------------------------- messages
@pytest.mark.parametrize(
    "content,args,expected",
    [
        (None, [], "nothing to identify from: give a CSV file of 'arm,value' rows"),
        (
            "arm,value\n0,1.0\n0,2.0\n0,1.5\n",
            [],
            "the data hold observations of arm 0 only: at least 2 arms are needed",
        ),
        ("arm,value\n0,1\n1,2\n", ["--seed", "-1"], "--seed must be a non-negative integer"),
        (
            "arm,value\n0,1.0\n-1,2.0\n",
            [],
            "line 3: arm -1 is negative: arms are indices 0, 1, 2, ...",
        ),
        (
            "arm,value\n0,1.0\n1,1e400\n",
            [],
            "line 3: value must be finite, got inf (written as inf, or a number beyond the range of a double, about ±1.8e308, such as 1e400)",
        ),
        ("arm,value\n0,1.0\n1,2.0\n7,1.0\n", ["--n-arms", "2"], "line 4: arm 7 does not exist"),
    ],
)
def test_messages_in_the_users_terms(tmp_path, content, args, expected):
    if content is not None:
        path = tmp_path / "x.csv"
        path.write_text(content)
        args = [str(path), *args]
    p = run(args)
    assert p.returncode == 2, p.stdout
    msg = error_line(p)
    assert expected in msg
    for jargon in ("n_arms", "[0,", "rng must", "SeedSequence", "not both"):
        assert jargon not in msg


def test_a_gzip_file_is_named_as_such(tmp_path):
    path = tmp_path / "data.csv.gz"
    with gzip.open(path, "wt") as f:
        f.write("arm,value\n" + "".join(f"{a},{v!r}\n" for a, v in decisive(50)))
    for args in ([str(path)], [str(path), "--n-arms", "2"]):
        p = run(args)
        assert p.returncode == 2
        msg = error_line(p)
        assert "gzip-compressed: decompress it first" in msg and "UTF-8" not in msg
    stdin = subprocess.run(
        CMD + ["-", "--n-arms", "2"], input=path.read_bytes(), capture_output=True, timeout=600
    )
    assert stdin.returncode == 2 and b"gzip-compressed" in stdin.stderr


def test_a_huge_field_is_explained(tmp_path):
    path = tmp_path / "big.csv"
    path.write_text('arm,value\n0,1.0\n1,"' + "9" * 300_000 + '"\n')
    p = run([str(path), "--n-arms", "2"])
    assert p.returncode == 2
    msg = error_line(p)
    assert "line 3: a field is longer than 131,072 characters" in msg
    assert "field limit" not in msg


def test_a_reader_that_goes_away_is_not_an_error(tmp_path):
    """``baiuv identify ... | head -1``: the closed pipe gives no traceback; the status
    is the outcome's."""
    path = write_csv(tmp_path / "p.csv", decisive())
    proc = subprocess.Popen(
        CMD + [str(path), "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    proc.stdout.close()  # the reader has gone before the summary is written
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=600) == 0
    assert "Traceback" not in err and "BrokenPipe" not in err


def test_warmup_subcommand(monkeypatch, capsys):
    from baiuv import warmup

    monkeypatch.setattr(warmup, "kernels_ready", lambda: True)
    assert cli.main(["warmup"]) == 0
    assert "already in the cache" in capsys.readouterr().out
