"""HTML of the Markdown the pipeline writes, for the Snakemake report (which shows HTML
inline, not Markdown); the Markdown tables themselves come from :mod:`baiuv.tables`."""

from __future__ import annotations

import html
import re

# ----------------------------------------------------------------------------------------
# HTML: the same tables readable inside the Snakemake report (which does not render
# Markdown), from the Markdown the pipeline writes for GitHub.
# ----------------------------------------------------------------------------------------
VERDICT_STYLE = {
    # verdict -> (CSS class, symbol)
    "reproduced": ("verdict-reproduced", "✓"),
    "differs": ("verdict-differs", "✗"),
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
td.verdict-unchecked { background: #eef1f4 !important; color: #57606a; font-weight: 600; }
td[class^="verdict-"] { white-space: nowrap; }
.summary { font-size: 1.05em; }
"""

_NUM = re.compile(r"^[-−+]?(\d[\d,]*\.?\d*|\.\d+)(e[-+]?\d+)?%?$|^[-−]?∞$|^–$", re.I)


def _inline(text: str) -> str:
    """Escape ``text`` and render inline Markdown: code spans, bold, italics, links."""
    parts = re.split(r"(`[^`]*`)", text)
    out = []
    for part in parts:
        if len(part) >= 2 and part.startswith("`") and part.endswith("`"):
            out.append("<code>" + html.escape(part[1:-1]) + "</code>")
            continue
        s = html.escape(part, quote=False)
        s = re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", s)
        s = re.sub(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])", r"<em>\1</em>", s)
        s = re.sub(
            r"\[([^\]]+)\]\(([^)\s]+)\)",
            lambda m: f'<a href="{html.escape(m.group(2))}">{m.group(1)}</a>',
            s,
        )
        out.append(s)
    return "".join(out)


def _split_row(line: str) -> list[str]:
    line = line.strip()
    if line.startswith("|"):
        line = line[1:]
    if line.endswith("|") and not line.endswith("\\|"):
        line = line[:-1]
    return [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line)]


def _cell(tag: str, text: str) -> str:
    if tag == "td" and text in VERDICT_STYLE:
        cls, symbol = VERDICT_STYLE[text]
        return f'<td class="{cls}">{symbol} {html.escape(text)}</td>'
    cls = ' class="num"' if tag == "td" and _NUM.match(text) else ""
    return f"<{tag}{cls}>{_inline(text)}</{tag}>"


def _table_html(lines: list[str]) -> str:
    header = _split_row(lines[0])
    rows = [_split_row(x) for x in lines[2:]]
    out = ['<div class="table-wrap"><table>', "<thead><tr>"]
    out += [_cell("th", c) for c in header]
    out.append("</tr></thead><tbody>")
    for r in rows:
        r = r + [""] * (len(header) - len(r))
        out.append("<tr>" + "".join(_cell("td", c) for c in r) + "</tr>")
    out.append("</tbody></table></div>")
    return "\n".join(out)


def _is_separator(line: str) -> bool:
    return bool(re.match(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$", line))


def markdown_to_html(md: str) -> str:
    """HTML body of the Markdown this package writes: headings, paragraphs, bullet lists,
    GitHub tables (verdict cells coloured, numbers right-aligned), inline code, bold,
    italics and links. Everything else is escaped text."""
    lines = md.splitlines()
    out: list[str] = []
    para: list[str] = []
    items: list[str] = []

    def flush():
        if para:
            out.append("<p>" + _inline(" ".join(s.strip() for s in para)) + "</p>")
            para.clear()
        if items:
            out.append("<ul>" + "".join(f"<li>{_inline(i)}</li>" for i in items) + "</ul>")
            items.clear()

    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            flush()
            i += 1
            continue
        m = re.match(r"^(#{1,6})\s+(.*)$", line)
        if m:
            flush()
            n = len(m.group(1))
            out.append(f"<h{n}>{_inline(m.group(2).strip())}</h{n}>")
            i += 1
            continue
        if line.lstrip().startswith("|") and i + 1 < len(lines) and _is_separator(lines[i + 1]):
            flush()
            j = i + 2
            while j < len(lines) and lines[j].lstrip().startswith("|"):
                j += 1
            out.append(_table_html(lines[i:j]))
            i = j
            continue
        m = re.match(r"^\s*[-*]\s+(.*)$", line)
        if m:
            if para:
                flush()
            items.append(m.group(1))
            i += 1
            continue
        if items and line.startswith("  "):  # continuation of a list item
            items[-1] += " " + line.strip()
            i += 1
            continue
        if items:
            flush()
        para.append(line)
        i += 1
    flush()
    return "\n".join(out)


def html_page(title: str, body: str, note: str = "") -> str:
    """A self-contained HTML document (inline CSS, no script, no external resource)."""
    note_html = f'<p class="note">{_inline(note)}</p>\n' if note else ""
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{html.escape(title)}</title>\n<style>{PAGE_CSS}</style></head>\n"
        f"<body>\n{note_html}{body}\n</body></html>\n"
    )
