"""Docstrings as a reader of the documentation sees them: printed numbering and math.

The sources cite the paper by its LaTeX labels (``Lemma lem:complexity_inequalities``) and
write formulas as plain-text literals (````T*(mu, sigma^2)````), which is what a developer
greps for. The API reference shows them as the printed paper does: :func:`docstring_for_readers`
turns every label into its printed reference ("Lemma 4", "Section 4.3"; backquoted labels
included) with :func:`baiuv.report.paper_refs.cite`, and every literal that reads as a
formula (:func:`is_formula`) into an inline ``:math:`` role (:func:`to_latex`). The
documentation's build applies it to every docstring it shows (``docs/_ext/baiuv_docs.py``).
"""

from __future__ import annotations

import re

from baiuv.report.paper_refs import LABELS, cite

__all__ = ["docstring_for_readers", "is_formula", "to_latex"]

_GREEK = (
    "alpha beta gamma delta epsilon zeta eta theta kappa lambda mu nu rho sigma tau phi "
    "chi psi omega Delta Gamma Lambda Sigma Omega pi"
).split()
_FUNCS = {
    "ln": r"\ln",
    "log": r"\log",
    "exp": r"\exp",
    "max": r"\max",
    "min": r"\min",
    "inf": r"\inf",
    "sup": r"\sup",
    "sum": r"\sum",
    "argmax": r"\operatorname{argmax}",
}
#: Words that may appear in a formula besides Greek letters, functions and single letters.
_WORDS = {"sqrt", "ceil", "floor", "hat", "Wbar", "eps", "KL", "Box", "EV", "BoB", "e"}
_TOKEN = re.compile(r"[A-Za-z]+")
_LITERAL = re.compile(r"``([^`\n]+)``")
_NAMES = sorted([*LABELS, *(k[3:] for k in LABELS if k.startswith("eq:"))], key=len, reverse=True)
#: A label of the paper between double backquotes (equation labels also without ``eq:``).
_TICKED_LABEL = re.compile(r"``(" + "|".join(re.escape(n) for n in _NAMES) + r")``")
#: A label followed by a colon (which cite() reads as part of the label).
_LABEL_COLON = re.compile(r"(?<![\w:])(" + "|".join(re.escape(n) for n in _NAMES) + r"):(?![\w])")


def is_formula(text: str) -> bool:
    """Whether the literal ``text`` reads as a formula: it has a Greek letter, a star
    (``T*``), a power or a comparison, and every word in it is a Greek letter, a known
    function, a single letter (with digits) or one of a few notations (``Wbar``, ``eps``,
    ``KL``...), so that code (``log_inv_delta``, ``n0 * n_arms``, paths) stays code."""
    if re.fullmatch(r"[A-Za-z_]\w*", text):
        return False  # a name (``delta`` the argument) stays code
    if not re.search(r"\b(?:" + "|".join(_GREEK) + r")\b|\*|\^|<=|>=|!=", text):
        return False
    if re.search(r"[\"':;,]\s*[\"']|[\"':;]|(?<!\d)\.|\.(?!\d)|\w\.\w*\(", text):
        return False  # quotes, paths, attributes: code
    for word in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text):
        for part in word.split("_"):
            core = part.rstrip("0123456789")
            if not core:
                continue
            if core in _GREEK or core in _FUNCS or core in _WORDS or len(core) == 1:
                continue
            return False
    return True


def _braces(text: str, fn: str, left: str, right: str) -> str:
    """``fn(x)`` -> ``left x right`` with the parenthesis matched."""
    out, i = [], 0
    while True:
        j = text.find(fn + "(", i)
        if j < 0 or (j > 0 and text[j - 1].isalnum()):
            if j < 0:
                out.append(text[i:])
                return "".join(out)
            out.append(text[i : j + 1])
            i = j + 1
            continue
        out.append(text[i:j])
        depth, k = 0, j + len(fn)
        while k < len(text):
            depth += {"(": 1, ")": -1}.get(text[k], 0)
            if depth == 0:
                break
            k += 1
        out.append(left + _braces(text[j + len(fn) + 1 : k], fn, left, right) + right)
        i = k + 1


def to_latex(text: str) -> str:
    """LaTeX of a plain-text formula (``T*(mu, sigma^2)`` -> ``T^\\star(\\mu, \\sigma^2)``)."""
    s = text
    s = re.sub(r"\^\(([^()]*)\)", r"^{\1}", s)  # t^(-x) -> t^{-x}
    s = re.sub(r"\^(-?[A-Za-z0-9]{2,})", r"^{\1}", s)  # e^-300, t^Box -> braces
    s = re.sub(r"\b([A-Za-z])\*", r"\1^{\\star}", s)  # T*, w*, a*
    s = _braces(s, "sqrt", r"\sqrt{", "}")
    s = _braces(s, "ceil", r"\lceil ", r" \rceil")
    s = _braces(s, "floor", r"\lfloor ", r" \rfloor")
    s = s.replace("<=", r" \le ").replace(">=", r" \ge ").replace("!=", r" \ne ")
    s = re.sub(r"\bWbar_", r"\\overline{W}_", s)
    s = re.sub(r"\beps_", r"\\varepsilon_", s)
    s = re.sub(r"\bhat ([A-Za-z])", r"\\hat \1", s)

    def word(m: re.Match) -> str:
        w = m.group(0)
        if m.start() > 0 and s[m.start() - 1] == "\\":
            return w  # already a command
        core = w.rstrip("0123456789")
        digits = w[len(core) :]
        sub = f"_{digits}" if digits else ""
        if core in _GREEK:
            return "\\" + core + sub
        if core in _FUNCS:
            return _FUNCS[core] + sub
        if len(core) > 1 and core not in ("star", "le", "ge", "ne"):
            return r"\mathrm{" + core + "}" + sub
        return w

    s = re.sub(r"(?<![\\A-Za-z])[A-Za-z]+[0-9]*", word, s)
    return re.sub(r"\s+", " ", s).strip()


def docstring_for_readers(text: str) -> str:
    """``text`` (reStructuredText of a docstring) with printed references for the paper's
    labels and ``:math:`` roles for the literals that read as formulas."""
    text = re.sub(r"\beqs\.(?=\s+``)", "Eqs.", text)  # a kind word cite() drops
    text = _LABEL_COLON.sub("\\1\x00:", _TICKED_LABEL.sub(r"\1", text))
    text = cite(text).replace("\x00", "")

    def literal(m: re.Match) -> str:
        body = m.group(1)
        return f":math:`{to_latex(body)}`" if is_formula(body) else m.group(0)

    return _LITERAL.sub(literal, text)
