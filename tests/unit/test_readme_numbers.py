"""Numbers in the README's findings come from the tables they cite: every measured number
of a finding (a decimal, a percentage, a ratio "×", a number in scientific notation) is,
at the precision the README prints it, a number of the report the findings block names or
of a table the finding links."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"

#: a number, an optional range "a–b", an optional unit (% or ×)
_NUMBER = re.compile(
    r"(?<![\w.(/])(\d+(?:\.\d+)?(?:e-?\d+)?)(?:\s?[–-]\s?(\d+(?:\.\d+)?))?(\s?%|×)?(?![\w/])"
)
_TABLE_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:e[-+]?\d+)?")


def findings(text: str) -> tuple[str, list[str]]:
    """The findings block's head (up to the first bullet) and its bullets."""
    block = text.split("<!-- findings:start -->", 1)[1].split("<!-- findings:end -->", 1)[0]
    head, *bullets = re.split(r"\n- ", block)
    return head, bullets


def cited(text: str) -> list[Path]:
    """The Markdown files a text links (relative to the repository)."""
    return [ROOT / p for p in re.findall(r"\]\(([^)#]+\.md)\)", text)]


def measured(text: str) -> list[tuple[float, int, str]]:
    """``(value, decimals, unit)`` of each measured number of ``text``: a decimal, a
    percentage, a ratio or a number in scientific notation (integers are counts and
    settings, not checked); ``decimals`` is the printed precision (significant digits
    for scientific notation, as a negative number)."""
    text = re.sub(r"`[^`]*`", "", text)  # code: names and paths, not measurements
    out = []
    for m in _NUMBER.finditer(text):
        unit = (m.group(3) or "").strip()
        for g in (m.group(1), m.group(2)):
            if g is None or ("." not in g and "e" not in g and not unit):
                continue
            if "e" in g:
                digits = len(g.split("e")[0].replace(".", ""))
                out.append((float(g), -digits, unit))
            else:
                out.append((float(g), len(g.split(".")[1]) if "." in g else 0, unit))
    return out


def matches(value: float, decimals: int, unit: str, table_values: list[float]) -> bool:
    """Some table value prints as ``value`` at the README's precision (percentages against
    fractions and percentages)."""
    for v in table_values:
        cands = [v * 100, v] if unit == "%" else [v]
        for c in cands:
            if decimals < 0:  # significant digits
                if c != 0 and float(f"{abs(c):.{-decimals - 1}e}") == value:
                    return True
            elif abs(round(abs(c), decimals) - value) < 1e-9:
                return True
    return False


def table_values(paths: list[Path]) -> list[float]:
    return [float(x) for p in paths for x in _TABLE_NUMBER.findall(p.read_text())]


def _unmatched(text: str) -> list[str]:
    head, bullets = findings(text)
    bad = []
    for b in bullets:
        values = table_values(cited(head) + cited(b))
        for value, decimals, unit in measured(b):
            if not matches(value, decimals, unit, values):
                bad.append(f"{value:g}{unit} in: {b[:80]}…")
    return bad


def test_every_number_of_the_findings_is_in_a_table_it_cites():
    text = README.read_text()
    _, bullets = findings(text)
    assert len(bullets) >= 4
    for p in cited(text.split("<!-- findings:end -->")[0]):
        assert p.is_file(), p
    assert _unmatched(text) == []


def test_a_number_not_in_the_tables_is_found(tmp_path):
    report = tmp_path / "r.md"
    report.write_text("| x | 0.069 | 1.19 | 3.32e-06 |\n")
    good = (
        f"<!-- findings:start -->\nfrom [the report]({report})\n\n"
        "- EV-TCI 6.9 %, cost 1.19×, gap 3.3e-6 (n0 = 2)\n<!-- findings:end -->"
    )
    assert _unmatched(good) == []
    for wrong in ("7.0 %", "1.3×", "3.4e-6"):
        old = {"7": "6.9 %", "1": "1.19×", "3": "3.3e-6"}[wrong[0]]
        assert len(_unmatched(good.replace(old, wrong))) == 1, wrong


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2.0–3.8 %", [(2.0, 1, "%"), (3.8, 1, "%")]),
        ("n0 = 10 at 1.19× of n0 = 2", [(1.19, 2, "×")]),
        ("ln(1/(2.4δ))", []),
        ("`0.5`", []),
    ],
)
def test_measured_numbers(text, expected):
    assert measured(text) == expected
