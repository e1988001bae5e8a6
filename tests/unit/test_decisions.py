"""The decision records (``docs/decisions/paper.md``: where the paper leaves a choice open;
``docs/decisions/architecture.md``: architecture choices) and their citations.

Every ``Dnn`` cited in the sources, tests, workflow, configurations, benchmarks and
documentation names a record (a ``## Dnn: title`` section, or a superseded record folded
into its successor, named there by a ``- Replaces Dnn`` line); numbers are unique across
the two files; the reproduction report reads the paper's records with its own parser."""

from __future__ import annotations

import re
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
