"""The Snakemake HTML report: every figure and table has a caption, and the report builds.

* Static: every ``report(..., caption=...)`` in ``workflow/rules/*.smk`` points to an
  existing, non-empty caption in ``workflow/report/`` that says which part of the paper it
  reproduces (or that it is not in the paper); every ``figures/*.pdf`` and
  ``results/tables/*.md`` output of a rule is wrapped in ``report()``.
* Built: in the session's tiny-config run (``tiny_pipeline``, decision D64),
  ``snakemake --report report.html`` writes one self-contained HTML file that embeds every
  figure and table with its caption.
"""

from __future__ import annotations

import re

import pytest
from pipeline_helpers import REPO, run_snakemake

RULES = sorted((REPO / "workflow" / "rules").glob("*.smk"))
CAPTION = re.compile(r"""caption\s*=\s*["']([^"']+)["']""")
# A caption must place its output relative to the paper.
PAPER_REF = re.compile(
    r"Figure|Table|Section|Appendix|Lemma|Theorem|Corollary|fig:|tab:|sec:|app:|paper",
    re.I,
)


def _captions() -> list[tuple[str, str]]:
    out = []
    for smk in RULES:
        for m in CAPTION.finditer(smk.read_text()):
            out.append((smk.name, m.group(1)))
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
            f"{f.name}: the caption must say which figure/table/section of the paper the "
            "output reproduces (or that it is not in the paper)"
        )


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
            for path in re.findall(
                r"""["']((?:figures/[^"']+\.pdf)|(?:results/tables/[^"']+\.md))["']""", block
            ):
                # the path must sit inside a report( ... ) call of this output block
                before = block[: block.index(path)]
                if before.rfind("report(") <= before.rfind("),"):
                    unwrapped.append(f"{smk.name}:{name}:{path}")
    assert not unwrapped, f"outputs not wrapped in report(): {unwrapped}"


@pytest.mark.pipeline
def test_report_builds_self_contained(tiny_pipeline):
    root = tiny_pipeline
    res = run_snakemake(root, "--report", "report.html", "--configfile", "config/test.yaml")
    assert res.returncode == 0, res.stdout[-5000:]
    html = (root / "report.html").read_text(errors="replace")
    assert len(html) > 10_000
    for name in ("characteristic_times_ratio", "characteristic_times.md"):
        assert name in html, f"{name} missing from the report"
    # every figure and table of the run is in the report
    for f in [*(root / "figures").glob("*.pdf"), *(root / "results" / "tables").glob("*.md")]:
        assert f.name in html, f"{f.name} missing from the report"
    # one caption file serves the three threshold figures, rendered per wildcard (D66)
    for ref in ("glrt.", "evglrt ", "glrt_evglrt."):
        assert f"fig:stopping_thresholds_evolutions_{ref}" in html, ref
    # self-contained: no reference to files of the run directory
    assert str(root) + "/figures" not in html
