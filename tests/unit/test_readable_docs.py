"""The API reference reads like documentation: printed numbering instead of the paper's
LaTeX labels, formula literals as math, and the documentation index's entries told apart."""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path

import pytest

from baiuv.report.paper_refs import labels_in
from baiuv.report.readable import docstring_for_readers, is_formula, to_latex

REPO = Path(__file__).resolve().parents[2]
#: The modules of the API reference (docs/_ext/baiuv_docs.py's API_MODULES).
API = ("baiuv", "baiuv.thresholds", "baiuv.registry", "baiuv.simulation")


def _api_docstrings():
    for m in API:
        mod = importlib.import_module(m)
        yield m, mod.__doc__ or ""
        for n in mod.__all__:
            obj = getattr(mod, n)
            yield f"{m}.{n}", inspect.getdoc(obj) or ""
            if inspect.isclass(obj):
                for k, v in vars(obj).items():
                    doc = getattr(v, "__doc__", None)
                    if (
                        not k.startswith("_")
                        and doc
                        and (inspect.isfunction(v) or isinstance(v, property))
                    ):
                        yield f"{m}.{n}.{k}", doc


def test_no_label_left_in_any_api_docstring_once_readable():
    left = {name: labels_in(docstring_for_readers(doc)) for name, doc in _api_docstrings()}
    assert not {k: v for k, v in left.items() if v}
    # and the sources do cite labels (the conversion has work to do)
    assert any(labels_in(doc) for _, doc in _api_docstrings())


@pytest.mark.parametrize(
    "text,printed",
    [
        ("Lemma ``lem:lower_bound_sample_complexity`` and", "Lemma 2 and"),
        ("(Section ``ssec:experiments``)", "(Section 4.3)"),
        ("eqs. ``def_stopping_rule_glrt`` and", "Equation (4) and"),
        ("Corollary cor:delta_correct_Kinf_thresholds", "Corollary 7"),
        ("Random instance of Section ``ssec:experiments``: a", "Random instance of Section 4.3: a"),
        ("(Section ssec:beyond_box: the", "(Section 3.2: the"),
    ],
)
def test_labels_become_printed_references(text, printed):
    assert docstring_for_readers(text) == printed


@pytest.mark.parametrize(
    "literal,latex",
    [
        ("T*(mu, sigma^2)", r"T^{\star}(\mu, \sigma^2)"),
        ("w_{a*} = beta", r"w_{a^{\star}} = \beta"),
        ("ln(1/delta)", r"\ln(1/\delta)"),
        ("max(2, ceil(10 log(1/delta)))", r"\max(2, \lceil 10 \log(1/\delta) \rceil)"),
        ("alpha_n < e^-300", r"\alpha_n < e^{-300}"),
        ("t^Box_a(delta)", r"t^{\mathrm{Box}}_a(\delta)"),
        ("x <= Wbar_{-1}(x) <= 1/sqrt(x)", r"x \le \overline{W}_{-1}(x) \le 1/\sqrt{x}"),
    ],
)
def test_formula_literals_become_math(literal, latex):
    assert is_formula(literal)
    assert to_latex(literal) == latex
    assert docstring_for_readers(f"see ``{literal}``.") == f"see :math:`{latex}`."


@pytest.mark.parametrize(
    "code",
    ["delta", "log_inv_delta", "n0 * n_arms", "RULE_*", "baiuv.thresholds.kernels.P_*",
     "tests/unit/test_registry.py", '{"name", "mu", "sigma2"}', "hedge_delta0"],
)  # fmt: skip
def test_code_literals_stay_code(code):
    assert not is_formula(code)
    assert docstring_for_readers(f"``{code}``") == f"``{code}``"


def test_formulas_of_the_characteristic_time_pages_are_math():
    from baiuv import characteristic_time, complexity_d

    doc = docstring_for_readers(inspect.getdoc(characteristic_time))
    assert r":math:`T^{\star}(\mu, \sigma^2)`" in doc and "Lemma 2" in doc
    assert ":math:`d(" in docstring_for_readers(inspect.getdoc(complexity_d))


def test_the_two_reproduction_reports_are_told_apart_in_the_index():
    index = (REPO / "docs/index.md").read_text()
    entries = re.findall(r"^(.*)<(.*reproduction)>$", index, flags=re.M)
    titles = [t.strip() for t, _ in entries]
    assert sorted(p for _, p in entries) == ["paper-scale/reproduction", "reproduction"]
    assert len(set(titles)) == 2 and all("Reproduction report" in t for t in titles)


def test_the_docs_build_uses_the_conversion():
    ext = (REPO / "docs/_ext/baiuv_docs.py").read_text()
    assert 'app.connect("autodoc-process-docstring", readable_docstring)' in ext
