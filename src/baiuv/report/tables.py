"""HTML of the Markdown the pipeline writes, for the Snakemake report (which shows HTML
inline, not Markdown): parsed by markdown-it-py (CommonMark and GitHub tables, the parser
the documentation's MyST pages use); the Markdown tables themselves come from
:mod:`baiuv.tables`."""

from __future__ import annotations

import html
import re

from baiuv._extras import import_module

VERDICT_STYLE = {
    # verdict -> (CSS class, symbol)
    "reproduced": ("verdict-reproduced", "✓"),
    "differs": ("verdict-differs", "✗"),
    "not resolved": ("verdict-unresolved", "?"),
    "not checkable": ("verdict-unchecked", "–"),
}

PAGE_CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; font-size: 15px;
       line-height: 1.45; color: #1f2328; margin: 1.2em 1.6em; max-width: 110em; }
h1 { font-size: 1.6em; } h2 { font-size: 1.3em; margin-top: 1.4em; } h3 { font-size: 1.1em; }
h1, h2, h3 { border-bottom: 1px solid #d8dee4; padding-bottom: .2em; }
.table-wrap { overflow-x: auto; margin: .6em 0 1.2em 0; }
table { border-collapse: collapse; font-size: 14px; }
th, td { border: 1px solid #d0d7de; padding: .3em .6em; vertical-align: top; text-align: left; }
th { background: #f0f3f6; position: sticky; top: 0; }
tr:nth-child(even) td { background: #f8f9fa; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 90%;
       background: #eff1f3; padding: .1em .3em; border-radius: 4px; }
td.verdict-reproduced { background: #dafbe1 !important; color: #116329; font-weight: 600; }
td.verdict-differs { background: #ffebe9 !important; color: #a40e26; font-weight: 600; }
td.verdict-unresolved { background: #fff8c5 !important; color: #7d4e00; font-weight: 600; }
td.verdict-unchecked { background: #eef1f4 !important; color: #57606a; font-weight: 600; }
td[class^="verdict-"] { white-space: nowrap; }
.summary { font-size: 1.05em; }
"""

_NUM = re.compile(r"^[-−+]?(\d[\d,]*\.?\d*|\.\d+)(e[-+]?\d+)?%?$|^[-−]?∞$|^–$", re.I)


def _parser():
    """CommonMark with GitHub tables (markdown-it-py, the parser of the documentation's
    MyST pages); raw HTML in the text is escaped, not passed through."""
    markdown_it = import_module("markdown_it", "the report's HTML pages")
    return markdown_it.MarkdownIt("commonmark", {"html": False}).enable("table")


def _style_cells(tokens) -> None:
    """Verdict cells coloured with their symbol, numeric cells right-aligned (CSS classes
    of :data:`PAGE_CSS`), on the parsed token stream."""
    for tok, inline in zip(tokens, tokens[1:], strict=False):
        if tok.type != "td_open" or inline.type != "inline":
            continue
        text = inline.content
        if text in VERDICT_STYLE:
            cls, symbol = VERDICT_STYLE[text]
            tok.attrSet("class", cls)
            if inline.children:
                inline.children[0].content = f"{symbol} {inline.children[0].content}"
        elif _NUM.match(text):
            tok.attrSet("class", "num")


def markdown_to_html(md: str) -> str:
    """HTML body of Markdown (CommonMark and GitHub tables): tables wrapped to scroll
    horizontally, verdict cells coloured, numbers right-aligned."""
    parser = _parser()
    tokens = parser.parse(md)
    _style_cells(tokens)
    body = parser.renderer.render(tokens, parser.options, {})
    body = body.replace("<table>", '<div class="table-wrap"><table>')
    return body.replace("</table>", "</table></div>").rstrip("\n")


def html_page(title: str, body: str, note: str = "") -> str:
    """A self-contained HTML document (inline CSS, no script, no external resource)."""
    note_html = f'<p class="note">{_parser().renderInline(note)}</p>\n' if note else ""
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{html.escape(title)}</title>\n<style>{PAGE_CSS}</style></head>\n"
        f"<body>\n{note_html}{body}\n</body></html>\n"
    )
