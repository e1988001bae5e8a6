"""The Snakemake report opened in a real browser (headless Chromium, offline).

Builds ``report.html`` from the tiny configuration's run (``tiny_pipeline``), with
``--directory`` from another working directory (the landing page includes a generated file
relative to the working directory), opens it in headless Chromium through the DevTools
protocol (``tests/cdp.py``) and reads it as a reader would:

* the landing page shows the verdict summary and the map of the paper's figures, and no
  reStructuredText error;
* the reproduction report opens inline as a table with coloured verdicts, visible on screen;
* a figure (Figure 2) opens as an image at the full width of the content area;
* the console shows no error, no exception is thrown, nothing is fetched from the network.

Skipped where no Chromium is installed (Debian: ``apt-get install chromium``). Screenshots
go to ``$BAIUV_REPORT_SCREENSHOTS`` when set.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from cdp import Browser, find_chromium
from pipeline_helpers import job_env, run_snakemake

pytestmark = [pytest.mark.slow, pytest.mark.integration, pytest.mark.pipeline]

CHROMIUM = find_chromium()

# clicks the innermost visible element whose text is exactly `text` (a menu entry, a label)
CLICK_TEXT = """
(text) => {
  const all = [...document.querySelectorAll('body *')].filter(
    el => el.textContent.trim() === text && el.getClientRects().length > 0);
  const inner = all.filter(el => ![...el.children].some(c => all.includes(c)));
  if (!inner.length) return false;
  (inner[0].closest('a,button,li,tr') || inner[0]).click();
  return true;
}
"""

# clicks the view button (eye icon link) of the result row whose label cell is `text`
OPEN_ROW = """
(text) => {
  const rows = [...document.querySelectorAll('tr')].filter(
    tr => [...tr.querySelectorAll('td')].some(td => td.textContent.trim() === text));
  if (!rows.length) return false;
  const link = rows[0].querySelector('a');
  if (!link) return false;
  link.click();
  return true;
}
"""


def _call(b: Browser, fn: str, arg: str):
    return b.evaluate(f"({fn})({json.dumps(arg)})")


def _shot(b: Browser, name: str) -> None:
    folder = os.environ.get("BAIUV_REPORT_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        b.screenshot(Path(folder) / f"{name}.png")


@pytest.fixture(scope="module")
def report_html(tiny_pipeline, tmp_path_factory) -> Path:
    elsewhere = tmp_path_factory.mktemp("report_cwd")
    out = elsewhere / "report.html"
    res = run_snakemake(
        elsewhere,
        "--snakefile",
        str(tiny_pipeline / "Snakefile"),
        "--directory",
        str(tiny_pipeline),
        "--configfile",
        str(tiny_pipeline / "config" / "test.yaml"),
        "--report",
        str(out),
        env=job_env(tiny_pipeline),
    )
    assert res.returncode == 0, res.stdout[-5000:]
    return out


@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium installed (apt-get install chromium)")
def test_report_reads_in_a_browser(report_html):
    with Browser(CHROMIUM, width=1600, height=1000) as b:
        b.navigate(report_html.as_uri())
        # the landing page: verdict summary computed from the run, map of the paper
        landing = b.wait_for(
            "document.body.innerText.includes('What reproduced') && document.body.innerText"
        )
        _shot(b, "1_landing")
        assert "statements of the paper checked by this run" in landing
        assert "own checks (beyond the paper" in landing
        assert "Paper figures and tables in this report" in landing
        for item in ("Figure 1", "Figure 2", "Figure 3", "beyond the paper"):
            assert item in landing, item
        assert "figures/stopping_times.png" in landing
        for bad in ("System Message", "Unknown target name", "ERROR/", "WARNING/"):
            assert bad not in landing, f"reStructuredText problem on the landing page: {bad}"

        # the reproduction report: inline HTML table with verdict colours, on screen
        assert _call(b, CLICK_TEXT, "1. Reproduction report")
        b.wait_for(f"({OPEN_ROW})('Every claim')")  # the row's label "paper"
        b.wait_for("!!document.querySelector('iframe[src^=\"data:text/html\"]')")
        frame = b.frame_context("data:text/html")
        table = b.wait_for(
            """(() => {
              const t = document.querySelector('table');
              if (!t) return null;
              const r = t.getBoundingClientRect();
              const hit = document.elementFromPoint(r.left + 5, r.top + 5);
              return {rows: t.rows.length, width: r.width, height: r.height,
                      visible: !!hit && t.contains(hit),
                      reproduced: document.querySelectorAll('td.verdict-reproduced').length,
                      verdicts: document.querySelectorAll('td[class^="verdict-"]').length,
                      colour: getComputedStyle(
                        document.querySelector('td[class^="verdict-"]')).backgroundColor,
                      text: document.body.innerText.slice(0, 3000)};
            })()""",
            context_id=frame,
        )
        _shot(b, "2_reproduction")
        assert table["rows"] > 3 and table["width"] > 300 and table["height"] > 50, table
        assert table["visible"], "the reproduction table is covered or off screen"
        assert table["verdicts"] >= table["rows"] - 1 > 0
        assert table["colour"] not in ("rgba(0, 0, 0, 0)", "transparent"), table["colour"]
        assert "Reproduction report" in table["text"]
        assert "ssec:" not in table["text"] and "lem:" not in table["text"]
        frame_box = b.evaluate(
            "(() => { const r = document.querySelector('iframe').getBoundingClientRect();"
            " return [r.width, r.height]; })()"
        )
        assert frame_box[0] > 800 and frame_box[1] > 400, frame_box

        # a figure: Figure 2 as an image, at the full width of the content area
        assert _call(b, CLICK_TEXT, "Results")  # back from the entry list to the categories
        b.wait_for(f"({CLICK_TEXT})('4. Stopping times')")
        row = "stopping times of every algorithm (random, standard, easy instances)"
        b.wait_for(f"({OPEN_ROW})({json.dumps(row)})")
        img = b.wait_for(
            """(() => {
              const i = document.querySelector('img[src^="data:image/png"]');
              if (!i || !i.complete || !i.naturalWidth) return null;
              const r = i.getBoundingClientRect();
              const pane = i.closest('.grow') || i.parentElement;
              return {natural: i.naturalWidth, width: r.width, height: r.height,
                      pane: pane.getBoundingClientRect().width};
            })()"""
        )
        _shot(b, "3_figure")
        assert img["height"] > 200, img
        assert img["width"] >= 0.85 * img["pane"], f"figure not at full width: {img}"

        # offline and clean
        assert not b.errors(), b.errors()
        remote = [u for u in b.requests if not u.startswith(("data:", "file:", "about:", "blob:"))]
        assert not remote, remote
