"""Report pages: Markdown tables as HTML, the report's entry layout, the verdict summary.

The HTML is parsed back with the standard library's parser and compared cell by cell with
the Markdown; the verdict summary is parsed by docutils (as Snakemake does for the landing
page) and must produce no warning.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from baiuv.claims import DIFFERS, NOT_CHECKABLE, REPRODUCED, Claim
from baiuv.pipeline.specs import specs
from baiuv.report.pages import (
    BEYOND_THE_PAPER,
    ReportEntries,
    report_entries,
    rst_escape,
    table_page,
    verdict_summary_rst,
)
from baiuv.report.paper_refs import LABELS
from baiuv.report.tables import markdown_to_html
from baiuv.tables import markdown_table

REPO = Path(__file__).resolve().parents[2]


class _Cells(HTMLParser):
    """Tables of an HTML document as lists of rows of (tag, class, text)."""

    def __init__(self):
        super().__init__()
        self.tables, self._cell, self.text = [], None, []

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self._cell = [tag, dict(attrs).get("class", ""), ""]
        elif tag == "script":
            raise AssertionError("a table page must not contain scripts")

    def handle_endtag(self, tag):
        if tag in ("td", "th"):
            self.tables[-1][-1].append(tuple(self._cell))
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell[2] += data
        self.text.append(data)


def _parse(html: str) -> _Cells:
    p = _Cells()
    p.feed(html)
    return p


def test_markdown_table_round_trips_through_html():
    import pandas as pd

    df = pd.DataFrame(
        {
            "algorithm": ["TaS", "EV-<TaS>", "a|b", "TCI"],  # escaped by markdown_table
            "mean": [12.5, float("nan"), 3e-7, 1.0],
            "verdict": ["reproduced", "differs", "not checkable", "not resolved"],
        }
    )
    md = "# Title with `code`\n\nSome *text* & more.\n\n" + markdown_table(df)
    assert "a\\|b" in md
    page = _parse(markdown_to_html(md))
    (table,) = page.tables
    assert [c[2] for c in table[0]] == ["algorithm", "mean", "verdict"]
    assert [[c[2] for c in r] for r in table[1:]] == [
        ["TaS", "12.5", "✓ reproduced"],
        ["EV-<TaS>", "–", "✗ differs"],
        ["a|b", "3e-07", "– not checkable"],
        ["TCI", "1", "? not resolved"],
    ]
    # verdicts coloured, numbers right-aligned, text cells plain
    assert [r[2][1] for r in table[1:]] == [
        "verdict-reproduced",
        "verdict-differs",
        "verdict-unchecked",
        "verdict-unresolved",
    ]
    assert table[1][1][1] == "num" and table[1][0][1] == ""
    text = "".join(page.text)
    assert "Title with code" in text and "Some text & more." in text


def test_markdown_to_html_escapes_and_renders_blocks():
    html = markdown_to_html(
        "## Head\n\nPara <script>alert(1)</script> with **bold** and [a link](https://x.y).\n"
        "- item one\n  continued\n- item `two`\n\nAfter."
    )
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "<h2>Head</h2>" in html
    assert "<strong>bold</strong>" in html and '<a href="https://x.y">a link</a>' in html
    assert re.search(
        r"<ul>\s*<li>item one\s+continued</li>\s*<li>item <code>two</code></li>\s*</ul>", html
    )
    assert html.endswith("<p>After.</p>")


def test_table_page_is_self_contained_and_cites_printed_numbers():
    md = "| claim | where |\n|---|---|\n| x | Lemma lem:complexity_inequalities |\n"
    page = table_page(md, "T")
    assert page.startswith("<!DOCTYPE html>") and "<style>" in page
    assert "Lemma 4" in page and "lem:" not in page
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page)  # no external resource


def test_entries_are_valid_and_ordered_as_the_paper():
    rep = report_entries(specs())
    names = list(rep.categories.values())
    assert names == sorted(names), "the report sorts categories by name: keep them numbered"
    for name in names:
        assert ":" not in name, "a colon breaks the report's reStructuredText link targets"
    # every figure of the paper has an entry; entries beyond the paper say so
    cited = {lbl for e in rep.entries.values() for lbl in e["paper"]}
    assert {lbl for lbl in LABELS if lbl.startswith("fig:")} <= cited
    for key, e in rep.entries.items():
        labels = rep.labels(key)
        assert set(labels) == {"paper", "shows"} and labels["shows"]
        if not e["paper"] and not e.get("item"):
            assert labels["paper"] == BEYOND_THE_PAPER
            assert "beyond the paper" in rep.category(key).lower()
        caption = e.get("caption")
        if caption:
            assert (REPO / "workflow" / "report" / caption).is_file(), caption


def test_every_report_flag_uses_an_entry():
    rep = report_entries(specs())
    used = set()
    for smk in (REPO / "workflow" / "rules").glob("*.smk"):
        text = smk.read_text()
        used |= set(re.findall(r'report_(?:labels|category)\(\s*"(\w+)"', text))
        used |= (
            {f"thresholds_{w}" for w in ("glr", "evglr", "all")}
            if "thresholds_{wc" in text
            else set()
        )
    assert used, "no report flag found"
    assert used <= rep.entries.keys(), used - rep.entries.keys()
    # every entry is used by a rule (tables through report.smk's loop over "markdown")
    unused = {k for k, e in rep.entries.items() if "markdown" not in e} - used
    assert not unused, unused


def test_bad_entries_are_refused():
    with pytest.raises(ValueError, match="category 'nope'"):
        ReportEntries(
            {"a": "1. A"}, {"x": {"path": "p", "category": "nope", "paper": [], "shows": "s"}}
        )
    with pytest.raises(KeyError, match="fig:nope"):
        ReportEntries(
            {"a": "1. A"},
            {"x": {"path": "p", "category": "a", "paper": ["fig:nope"], "shows": "s"}},
        )
    with pytest.raises(ValueError, match="missing fields"):
        ReportEntries({"a": "1. A"}, {"x": {"path": "p", "category": "a"}})


def test_records_entries_are_numbered_and_unique():
    """The categories are numbered in the records' order after the reproduction report's;
    a record's entries need its category, and an entry's key is used once (D403)."""
    from dataclasses import replace

    from baiuv.experiments.spec import ReportEntry

    records = specs()
    rep = report_entries(records)
    assert rep.category("reproduction") == "1. Reproduction report"
    titled = [s for s in records if s.category]
    assert [rep.categories[s.name] for s in titled] == [
        f"{i}. {s.category}" for i, s in enumerate(titled, start=2)
    ]
    entry = ReportEntry(key="x", path="results/figures/x.png", shows="s")
    with pytest.raises(ValueError, match="entries without a category"):
        report_entries([replace(records[0], category=None, entries=(entry,))])
    with pytest.raises(ValueError, match="report entry 'x' twice"):
        report_entries([replace(records[0], entries=(entry, entry))])


def _claims():
    return [
        Claim(
            topic="t",
            claim="ratio on the standard instance",
            where="Sec. Experiments (ssec:experiments)",
            paper="≈1.015",
            ours="1.0134 (T*=1)",
            verdict=DIFFERS,
            reason="the paper's value does not round *from* it",
        ),
        Claim(
            topic="t",
            claim="bound holds",
            where="Lemma lem:complexity_inequalities",
            paper="holds",
            ours="0 violations",
            verdict=REPRODUCED,
        ),
        Claim(
            topic="t",
            claim="cost",
            where="Sec. ssec:simulations_stopping_thresholds",
            paper="≈400",
            ours="12",
            verdict=NOT_CHECKABLE,
            reason="machine-dependent",
        ),
        Claim(
            topic="t",
            claim="another",
            where="Fig. fig:evolution_ratios_characteristic_times",
            paper="x",
            ours="y",
            verdict=REPRODUCED,
        ),
    ]


def test_verdict_summary_counts_and_lists_what_differs():
    from docutils.core import publish_parts

    rst = verdict_summary_rst(_claims(), "config/test.yaml")
    assert "**4** statements of the paper" in rst
    assert "✓ 2 reproduced" in rst and "✗ 1 differ" in rst and "– 1 not checkable" in rst
    assert "? 0 not resolved" in rst and "own checks (beyond the paper, **0**)" in rst
    assert "Section 4.3 (Experiments)" in rst and "ssec:" not in rst
    # the two targets Snakemake defines for the landing page
    targets = (
        "\n\n.. _reproduction.html: javascript:void(0)\n"
        ".. _1. Reproduction report: javascript:void(0)\n"
    )
    parts = publish_parts(
        rst + targets, writer="html", settings_overrides={"report_level": 2, "halt_level": 2}
    )
    body = parts["body"]
    assert "ratio on the standard instance" in body and "*from*" in body
    assert "bound holds" not in body  # only what differs is listed


def test_verdict_summary_counts_the_artifacts_own_rows_apart():
    own = Claim(
        topic="t",
        claim="remedy row",
        where="this experiment",
        paper="x",
        ours="y",
        verdict=DIFFERS,
        reason="z",
        beyond_paper=True,
    )
    rst = verdict_summary_rst([*_claims(), own], "config/test.yaml")
    assert "**4** statements of the paper" in rst and "✗ 1 differ" in rst
    assert "own checks (beyond the paper, **1**): 0 reproduced, 1 differ" in rst
    assert "remedy row" not in rst  # not a finding that differs from the paper


def test_rst_escape():
    assert rst_escape("a*b_c`d|e@f") == r"a\*b\_c\`d\|e\@f"
