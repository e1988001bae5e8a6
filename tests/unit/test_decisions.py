"""The decision records (``docs/decisions/paper.md``: where the paper leaves a choice open;
``docs/decisions/architecture.md``: architecture choices) and their citations.

Every ``Dnn`` cited in the sources, tests, workflow, configurations, benchmarks and
documentation names a record (a ``## Dnn: title`` section, or a superseded record folded
into its successor, named there by a ``- Replaces Dnn`` line); numbers are unique across
the two files; the reproduction report reads the paper's records with its own parser."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

from baiuv.report.reproduction import decisions

REPO = Path(__file__).resolve().parents[2]
FILES = {
    "paper": REPO / "docs/decisions/paper.md",
    "architecture": REPO / "docs/decisions/architecture.md",
}
CITING = ["src/**/*.py", "tests/**/*.py", "workflow/**/*", "Snakefile", "config/*.yaml"]
CITING += ["benchmarks/*.py", "scripts/*", "README.md", "docs/**/*.md"]
#: A citation ``Dnn``, not part of a range ``D1–D9`` (the files' numbering notes) or a path.
CITE = re.compile(r"(?<![\w/.\-–])D(\d{1,3})\b(?!–)")


def _records(path: Path) -> list[int]:
    return [int(n) for n in re.findall(r"(?m)^## D(\d+):", path.read_text())]


def _known() -> set[int]:
    known = set()
    for path in FILES.values():
        known |= set(_records(path))
        known |= {int(n) for n in re.findall(r"(?m)^- Replaces D(\d+)\b", path.read_text())}
    return known


def test_record_numbers_are_unique_across_the_files():
    numbers = [n for path in FILES.values() for n in _records(path)]
    assert len(numbers) == len(set(numbers)) and len(numbers) > 100


def test_each_record_states_each_field_once():
    """A record states its current choice once: no field (``- Context:``, ``- Decision:``,
    ``- Test:`` ...) appears twice in one ``## Dnn`` section, as it does when an older
    version is left above a newer one or a record is pasted under another's header."""
    field = re.compile(r"^- (Context|Ambiguity|Choice|Decision|Consequence|Cost|Source|Test):")
    repeated = []
    for path in FILES.values():
        for block in re.split(r"(?m)^(?=## D\d+:)", path.read_text()):
            if not block.startswith("## D"):
                continue
            names = [m.group(1) for line in block.splitlines() if (m := field.match(line))]
            dup = sorted({n for n in names if names.count(n) > 1})
            if dup:
                repeated.append(f"{path.name} {block.split(':')[0][3:]}: {dup}")
    assert not repeated, repeated


def test_every_cited_decision_names_a_record():
    known = _known()
    missing = {}
    for pattern in CITING:
        for path in REPO.glob(pattern):
            if not path.is_file() or "_build" in path.parts or ".venv" in path.parts:
                continue
            text = path.read_text(errors="ignore")
            for m in CITE.finditer(text):
                if int(m.group(1)) not in known:
                    missing.setdefault(str(path.relative_to(REPO)), set()).add(m.group(0))
    assert not missing, f"decisions cited without a record: {missing}"


def test_the_report_lists_the_paper_records():
    listed = decisions(FILES["paper"].read_text())
    assert [int(i[1:]) for i, _ in listed] == _records(FILES["paper"])
    assert ("D1", "complexity ratio of the standard instance") in listed


#: A parenthesised list of decision numbers: ``(D160, D191)``, ``(decisions D210, D216)``.
POINTER = re.compile(r"\(((?:decisions?\s+)?D\d{1,3}(?:\s*(?:,|;|and)\s*(?:#\s*)?D\d{1,3})*)\)")


def _prose(source: str) -> list[tuple[int, str]]:
    """``(line number, text)`` of the comments and docstrings of a Python source."""
    out = []
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            out.append((tok.start[0], tok.string))
    for node in ast.walk(ast.parse(source)):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            value = body[0].value
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                out.append((value.lineno, source.splitlines()[value.lineno - 1 : value.end_lineno]))
    return [(n, t if isinstance(t, str) else "\n".join(t)) for n, t in out]


def bare_pointers(text: str) -> list[str]:
    """The bare pointers of a comment or docstring: a parenthesised list of several decision
    numbers (one reason cannot be read for each), or one alone on its line."""
    bare = []
    for m in POINTER.finditer(text):
        start = text.rfind("\n", 0, m.start()) + 1
        end = text.find("\n", m.end())
        line = text[start : end if end >= 0 else len(text)]
        rest = line[: m.start() - start] + line[m.end() - start :]
        several = len(re.findall(r"D\d+", m.group(1))) > 1
        if several or not re.search(r"[A-Za-z]{2,}", rest.replace('"""', "")):
            bare.append(m.group(0))
    return bare


def test_a_bare_pointer_is_found():
    assert bare_pointers("# the cache (decisions D160, D191)") == ["(decisions D160, D191)"]
    assert bare_pointers('"""Long sentence\n(D105)."""') == ["(D105)"]
    assert bare_pointers("    (decision D105).") == ["(decision D105)"]
    assert bare_pointers("# typed int64, not the literal 0 (D225)") == []
    assert bare_pointers("# cached (D160: each entry computed when read)") == []


def test_decisions_cited_in_the_package_carry_their_reason():
    """Each decision cited in a comment or docstring of ``src/`` is next to the words that
    say why (``(D225)`` after its reason, ``D160: ...``), not in a bare list of numbers."""
    bare = {}
    for path in sorted(REPO.glob("src/**/*.py")):
        for line, text in _prose(path.read_text()):
            found = bare_pointers(text)
            if found:
                bare[f"{path.relative_to(REPO)}:{line}"] = found
    assert not bare, f"bare pointers to decision records: {bare}"


def test_n0_is_named_the_authors_code_setting():
    """D51: Figure 2's configurations run n0 = 2, and no text the artifact generates or
    documents calls n0 = 2 the paper's (the paper states only n0 ≥ 2)."""
    import yaml

    for name in ("config.yaml", "paper.yaml", "test.yaml"):
        cfg = yaml.safe_load((REPO / "config" / name).read_text())
        assert cfg["simulation"]["n0"] == 2, name
    stale = re.compile(r"paper's (configuration|setting|`?n0)|paper's \(heuristic")
    found = {}
    patterns = ["src/**/*.py", "workflow/**/*", "config/*.yaml", "README.md"]
    for pattern in [*patterns, "docs/decisions/*.md"]:
        for path in REPO.glob(pattern):
            if path.is_file() and stale.search(path.read_text(errors="ignore")):
                found[str(path.relative_to(REPO))] = stale.search(path.read_text()).group(0)
    assert not found, found


def test_random_instances_have_one_run_each():
    """D53: the paper-scale random set is 1000 instances with one run each; the named
    instances have 5000 runs."""
    import yaml

    exps = yaml.safe_load((REPO / "config" / "paper.yaml").read_text())["simulation"]["experiments"]
    assert (exps["random"]["n_instances"], exps["random"]["runs_per_instance"]) == (1000, 1)
    assert exps["standard"]["runs"] == exps["easy"]["runs"] == 5000
