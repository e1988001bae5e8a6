"""The Python examples of ``docs/library.md`` and the README run, and the values their
comments show are what the code returns.

A line ``expression  # ... -> 336.37`` must evaluate to that number at the precision
written; a line ``print(...)  # -> 1 glr 8211`` must print exactly the text after the
arrow. Every other statement of a block just runs."""

from __future__ import annotations

import ast
import contextlib
import io
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PAGES = [REPO / "docs" / "library.md", REPO / "README.md"]
BLOCK = re.compile(r"```python\n(.*?)```", re.S)
ARROW = re.compile(r"#.*->\s*(.+?)\s*$")


def _blocks() -> list[str]:
    return [b for page in PAGES for b in BLOCK.findall(page.read_text())]


def _checks(block: str) -> list[tuple[int, str, str]]:
    """``(line number, kind, expected)`` of the commented results (``-> ...``) of a block:
    ``"print"`` for a ``print`` (its expected output), ``"value"`` otherwise (a number)."""
    out = []
    for i, line in enumerate(block.splitlines(), 1):
        m = ARROW.search(line)
        if m:
            kind = "print" if line.lstrip().startswith("print(") else "value"
            out.append((i, kind, m.group(1)))
    return out


def _run(block: str) -> tuple[dict[int, object], dict[int, str]]:
    """Run ``block`` statement by statement; the value of each expression statement and the
    output of each statement, by the line it starts on."""
    namespace: dict = {}
    values, printed = {}, {}
    for node in ast.parse(block).body:
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            if isinstance(node, ast.Expr):
                code = compile(ast.Expression(node.value), "<docs>", "eval")
                values[node.lineno] = eval(code, namespace)
            else:
                exec(compile(ast.Module([node], []), "<docs>", "exec"), namespace)
        printed[node.lineno] = buf.getvalue()
    return values, printed


def test_the_page_has_checked_examples():
    checks = [c for b in _blocks() for c in _checks(b)]
    assert {kind for _, kind, _ in checks} == {"value", "print"}


def test_a_wrong_comment_is_found():
    block = "x = 2.0\nx * 3  # -> 6.5\n"
    values, _ = _run(block)
    ((line, kind, expected),) = _checks(block)
    assert kind == "value" and round(values[line], 1) != float(expected)


@pytest.mark.parametrize("index", range(len(_blocks())))
def test_library_examples_show_what_the_code_returns(index):
    block = _blocks()[index]
    values, printed = _run(block)
    for line, kind, expected in _checks(block):
        if kind == "value":
            decimals = len(expected.partition(".")[2])
            assert round(float(values[line]), decimals) == float(expected), (line, values[line])
        else:
            assert printed[line].strip() == expected, (line, printed[line])
