"""The Snakemake HTML report: every figure and table has a caption, and the report builds.

* Static: every ``report(..., caption=...)`` in ``workflow/rules/*.smk`` points to an
  existing, non-empty caption in ``workflow/report/`` that cites the printed paper (Figure 1,
  Lemma 2, Section 4.3, never a LaTeX label, no issue number, one notation for T⋆) or says
  that it goes beyond the paper; every figure's PNG (the PDF is the print output) is
  wrapped in ``report()``, and every table is in the report as HTML (report.smk).
* Built: in the session's tiny-config run (``tiny_pipeline``, decision D64),
  ``snakemake --report report.html`` writes one self-contained HTML file that embeds every
  figure and table with its caption (the browser test reads it: test_report_browser.py).
"""

from __future__ import annotations

import re

import pytest
from pipeline_helpers import REPO, run_snakemake

from baiuv.pipeline.specs import specs
from baiuv.report.pages import report_entries
from baiuv.report.paper_refs import LABELS

RULES = sorted((REPO / "workflow" / "rules").glob("*.smk"))
CAPTION = re.compile(r"""caption\s*=\s*["']([^"']+)["']""")
# A caption must place its output relative to the printed paper, or say it goes beyond it.
PAPER_REF = re.compile(
    r"\b(Figure|Section|Appendix|Lemma|Theorem|Corollary|Equation) [A-Z0-9(]|Beyond the paper"
)
PRINTED = re.compile(
    r"\b(Figure|Section|Appendix|Lemma|Theorem|Corollary|Equation) "
    r"(\(\d+\)|[A-Z](?:\.\d+)*(?![\w])|\d+(?:\.\d+)*)"
)
LATEX_LABEL = re.compile(r"\b(fig|tab|sec|ssec|app|lem|thm|cor|def|eq|algo):[A-Za-z_]")


def _captions() -> list[tuple[str, str]]:
    out = []
    for smk in RULES:
        for m in CAPTION.finditer(smk.read_text()):
            out.append((smk.name, m.group(1)))
    # the tables' HTML pages (report.smk) take their captions from the records' entries
    for e in report_entries(specs()).entries.values():
        if "caption" in e:
            out.append(("report.smk", f"../report/{e['caption']}"))
    return out


def test_rules_declare_captions():
    assert _captions(), "no report() outputs with captions in workflow/rules"


@pytest.mark.parametrize("smk,caption", _captions(), ids=[c for _, c in _captions()])
def test_caption_exists_and_cites_the_paper(smk, caption):
    pattern = (REPO / "workflow" / "rules" / caption).resolve()
    files = sorted(pattern.parent.glob(re.sub(r"\{[^}]+\}", "*", pattern.name)))
    assert files, f"{smk}: caption {caption} does not exist"
    for f in files:
        text = f.read_text().strip()
        assert len(text) > 40, f"{f.name}: caption too short to say what the output shows"
        assert PAPER_REF.search(text), (
            f"{f.name}: the caption must say which figure/section of the printed paper the "
            "output reproduces (or that it goes beyond the paper)"
        )
        text = re.sub(r"\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\}", "", text, flags=re.S)  # Jinja
        assert not LATEX_LABEL.search(text), f"{f.name}: LaTeX label in a caption"
        assert not re.search(r"\bissues? \d|#\d", text, re.I), f"{f.name}: issue number"
        assert not re.search(r"T\*|\bsigma\b|\bmu\b|\bdelta\b", text), (
            f"{f.name}: write T⋆(μ, σ²), δ (the paper's notation), not ASCII"
        )
        printed = set(LABELS.values())
        for kind, num in PRINTED.findall(text):
            cited = f"{kind} {num}"
            if kind in ("Section", "Appendix"):  # unlabelled subsections: the parent exists
                cited = f"{kind} {num.split('.')[0]}"
            assert cited in printed, f"{f.name}: {kind} {num} is not in the paper"


def test_every_figure_and_table_output_is_in_the_report():
    unwrapped = []
    for smk in RULES:
        text = smk.read_text()
        for m in re.finditer(r"^rule (\w+):(.*?)(?=^rule |\Z)", text, re.M | re.S):
            name, body = m.groups()
            out = re.search(r"^\s+output:(.*?)(?=^\s{4}\w+:|\Z)", body, re.M | re.S)
            if not out:
                continue
            block = out.group(1)
            for path in re.findall(r"""["'](results/figures/[^"']+\.png)["']""", block):
                # the path must sit inside a report( ... ) call of this output block
                before = block[: block.index(path)]
                if before.rfind("report(") <= before.rfind("),"):
                    unwrapped.append(f"{smk.name}:{name}:{path}")
    assert not unwrapped, f"outputs not wrapped in report(): {unwrapped}"


@pytest.mark.pipeline
def test_report_builds_self_contained(tiny_pipeline):
    root = tiny_pipeline
    run_snakemake(root, "--report", "report.html", "--configfile", "config/test.yaml", check=True)
    html = (root / "report.html").read_text(errors="replace")
    assert len(html) > 10_000
    for name in ("characteristic_times_ratio.png", "characteristic_times.html"):
        assert name in html, f"{name} missing from the report"
    # every figure (as PNG) and table (as HTML) of the run is in the report
    figures = [f.with_suffix(".png") for f in (root / "results" / "figures").glob("*.pdf")]
    tables = [
        f.with_suffix(".html")
        for d in ("tables", "timings")
        for f in (root / "results" / d).glob("*.md")
    ]
    for f in [*figures, *tables, root / "results" / "reproduction.html"]:
        assert f.name in html, f"{f.name} missing from the report"
    # one caption file serves the three threshold figures, rendered per wildcard (D66)
    for ref in ("Reproduces Figure 1 ", "Reproduces Figure 4 ", "Reproduces Figure 5 "):
        assert ref in html, ref
    assert not re.search(r"\b(fig|lem|ssec|app):[a-z]", html), "LaTeX label in the report"
    # self-contained: no reference to files of the run directory
    assert str(root) + "/results/figures" not in html
