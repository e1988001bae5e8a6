"""Pages of the Snakemake report: entry layout, HTML tables, the landing page's verdicts.

* :class:`ReportEntries` (:func:`report_entries`, from the experiments' records): the
  category and the ``labels=`` of every report entry, citing the paper by its printed
  numbering (:mod:`baiuv.report.paper_refs`); results beyond the paper say so.
* :func:`table_page`: a Markdown file of the pipeline as a self-contained HTML page
  (Snakemake's report offers Markdown for download only; HTML it shows inline).
* :func:`verdict_summary_rst`: the verdict counts and the findings that differ from the
  paper, computed from the checked claims, included by the landing page
  (``workflow/report/workflow.rst``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from baiuv.experiments.spec import ExperimentSpec, ReportEntry
from baiuv.report.paper_refs import cite, notation, ref
from baiuv.report.tables import html_page, markdown_to_html

BEYOND_THE_PAPER = "beyond the paper"


@dataclass(frozen=True)
class ReportEntries:
    """Categories (in the order of the paper) and entries of the report."""

    categories: dict[str, str]
    entries: dict[str, dict]

    def __post_init__(self):
        for key, e in self.entries.items():
            missing = {"path", "category", "paper", "shows"} - e.keys()
            if missing:
                raise ValueError(f"report entry {key!r}: missing fields {sorted(missing)}")
            if e["category"] not in self.categories:
                raise ValueError(
                    f"report entry {key!r}: category {e['category']!r} is not one of "
                    f"{sorted(self.categories)}"
                )
            for label in e["paper"]:
                ref(label)  # KeyError naming the label if the paper has no such label

    def _entry(self, key: str) -> dict:
        try:
            return self.entries[key]
        except KeyError:
            raise KeyError(f"no report entry {key!r} in the records' entries") from None

    def category(self, key: str) -> str:
        return self.categories[self._entry(key)["category"]]

    def item(self, key: str) -> str:
        """What the entry is in the paper: "Figure 2", "Section 4.3, Lemma 4", or
        "beyond the paper"."""
        e = self._entry(key)
        if e.get("item"):
            return e["item"]
        return ", ".join(ref(lbl) for lbl in e["paper"]) or BEYOND_THE_PAPER

    def labels(self, key: str) -> dict[str, str]:
        return {"paper": self.item(key), "shows": self._entry(key)["shows"]}


#: The reproduction report's own entry, the report's first category.
REPRODUCTION = ReportEntry(
    key="reproduction",
    path="results/reproduction.html",
    item="Every claim",
    shows="each claim of the paper, our value, a verdict",
)
REPRODUCTION_CATEGORY = "Reproduction report"


def report_entries(records: Sequence[ExperimentSpec]) -> ReportEntries:
    """The report's categories and entries (D403: built from the records): the
    reproduction report first, then the ``category`` and ``entries`` of every record, in
    the records' order; a category's title is numbered by its place (the report's menu
    sorts categories by name), and keyed by its first record's name."""
    categories = {REPRODUCTION.key: f"1. {REPRODUCTION_CATEGORY}"}
    entries = {REPRODUCTION.key: REPRODUCTION.as_dict(REPRODUCTION.key)}
    for spec in records:
        if spec.category is None:
            if spec.entries:
                raise ValueError(f"record {spec.name!r}: entries without a category")
            continue
        categories[spec.name] = f"{len(categories) + 1}. {spec.category}"
        for entry in spec.entries:
            if entry.key in entries:
                raise ValueError(f"record {spec.name!r}: report entry {entry.key!r} twice")
            entries[entry.key] = entry.as_dict(spec.name)
    return ReportEntries(categories=categories, entries=entries)


def for_readers(text: str) -> str:
    """``text`` as readers of the printed paper read it: printed numbers instead of LaTeX
    labels, the paper's notation (T⋆(μ, σ²)). Applied to every table the pipeline writes."""
    return notation(cite(text))


def table_page(markdown: str, title: str) -> str:
    """HTML page of a Markdown file written by the pipeline, paper labels printed."""
    return html_page(title, markdown_to_html(for_readers(markdown)))


# ----------------------------------------------------------------------------------------
# Landing page
# ----------------------------------------------------------------------------------------
_RST_SPECIAL = re.compile(r"([\\`*_|<>\[\]@])")  # @: no e-mail links for "EV-TCI@random"


def rst_escape(text: str) -> str:
    """``text`` as literal reStructuredText (inline markup characters escaped)."""
    return _RST_SPECIAL.sub(r"\\\1", str(text))


def verdict_summary_rst(claims: Iterable, config_name: str) -> str:
    """reStructuredText of the verdict counts and of every claim that differs from the paper.

    ``claims``: :class:`baiuv.claims.Claim` objects (fields ``claim``, ``where``,
    ``paper``, ``ours``, ``verdict``, ``reason``); the artifact's own rows
    (``beyond_paper``) are counted apart and never listed as findings.
    """
    # numpy with the claims, only in the report's own job
    from baiuv.claims import DIFFERS, NOT_CHECKABLE, NOT_RESOLVED, REPRODUCED, tally

    claims = list(claims)
    n, own = tally(claims)
    lines = [
        "What reproduced",
        "---------------",
        "",
        f"Of the **{sum(n.values())}** statements of the paper checked by this run "
        f"(configuration ``{config_name}``): "
        f"**✓ {n[REPRODUCED]} reproduced**, **✗ {n[DIFFERS]} differ**, "
        f"**? {n[NOT_RESOLVED]} not resolved**, "
        f"**– {n[NOT_CHECKABLE]} not checkable**. Apart, the artifact's own checks (beyond "
        f"the paper, **{sum(own.values())}**): {own[REPRODUCED]} reproduced, "
        f"{own[DIFFERS]} differ, {own[NOT_RESOLVED]} not resolved, "
        f"{own[NOT_CHECKABLE]} not checkable. Every row, our value and the reason of "
        "each verdict: `the reproduction report <reproduction.html_>`_ "
        "(category `1. Reproduction report`_).",
        "",
    ]
    differ = [c for c in claims if c.verdict == DIFFERS and not c.beyond_paper]
    if differ:
        lines += ["Findings that differ from the paper:", ""]
        for c in differ:

            def txt(s):
                return rst_escape(notation(cite(s)))

            lines.append(
                f"- **{txt(c.claim)}** — {txt(c.where)}. Paper: {txt(c.paper)}; "
                f"this run: {txt(c.ours)}. Why: {txt(c.reason)}"
            )
        lines.append("")
    else:
        lines += ["No finding differs from the paper.", ""]
    return "\n".join(lines)
