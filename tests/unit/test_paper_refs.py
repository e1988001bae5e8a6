"""The paper's printed numbering (baiuv.report.paper_refs): derivation, committed table, citing.

* The numbering rules are checked on small LaTeX snippets whose printed numbers are written
  here by hand (sections, lettered appendices, one counter shared by theorem-like
  environments, figures, numbered equation lines).
* The committed table equals the derivation from the paper's source when the source is
  present (``../shared/paper/BAIUV.tex`` beside the checkout, or ``$BAIUV_PAPER_TEX``);
  it is skipped otherwise (users do not have the source).
* Anchors from the printed paper: the five figures and the first lemma.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from baiuv.report import paper_refs
from baiuv.report.paper_refs import LABELS, cite, derive_labels, labels_in, ref

REPO = Path(__file__).resolve().parents[2]


def _paper_source() -> Path | None:
    candidates = [os.environ.get("BAIUV_PAPER_TEX", "")]
    candidates += [str(p / "shared" / "paper" / "BAIUV.tex") for p in REPO.parents[:3]]
    for c in candidates:
        if c and Path(c).is_file():
            return Path(c)
    return None


SNIPPET = r"""
%% file: main.tex
\begin{document}
\input{sections/intro}
\section{Two} \label{sec:two}
\begin{definition}[unlabelled] x \end{definition}
\begin{lemma} \label{lem:a} y \end{lemma}
\subsection{Two one} \label{ssec:two_one}
% \begin{theorem} commented out \end{theorem}
\begin{theorem}[Name] \label{thm:b}
\begin{equation} \label{eq:one} a \end{equation}
\end{theorem}
\begin{align}
  a &= \inf_{\substack{x \\ y}} b \label{eq:two} \\
  c &= d \nonumber \\
  e &= f \label{eq:three}
\end{align}
\begin{align*} g \\ h \end{align*}
\begin{figure} \caption{first} \label{fig:one} \end{figure}
\begin{corollary} \label{cor:c} \end{corollary}
\section*{Unnumbered}
\appendix
\section{First appendix} \label{app:a}
\subsection{Sub} \label{app:ss_a}
\subsubsection{Subsub} \label{app:sss_a}
\begin{figure} \caption{second} \label{fig:two} \end{figure}
\begin{table} \caption{t} \label{tab:one} \end{table}
\section{Second appendix} \label{app:b}
\end{document}
%% file: sections/intro.tex
\section{Intro} \label{sec:intro}
\begin{equation} z \end{equation}
"""


def test_numbering_rules_on_a_snippet():
    got = derive_labels(SNIPPET)
    assert got == {
        "sec:intro": "Section 1",
        "sec:two": "Section 2",
        "lem:a": "Lemma 2",  # shares the counter with the unlabelled Definition 1
        "ssec:two_one": "Section 2.1",
        "thm:b": "Theorem 3",
        "eq:one": "Equation (2)",  # equation (1) is in the introduction
        "eq:two": "Equation (3)",  # the \\ inside \substack is not a line break
        "eq:three": "Equation (4)",  # the \nonumber line takes no number
        "fig:one": "Figure 1",
        "cor:c": "Corollary 4",
        "app:a": "Appendix A",
        "app:ss_a": "Appendix A.1",
        "app:sss_a": "Appendix A.1.1",
        "fig:two": "Figure 2",
        "tab:one": "Table 1",
        "app:b": "Appendix B",
    }


def test_committed_table_matches_the_paper_source():
    tex = _paper_source()
    if tex is None:
        pytest.skip("the paper's LaTeX source is not beside this checkout")
    assert derive_labels(tex.read_text(encoding="utf-8")) == LABELS, (
        "the committed table is stale: python -m baiuv.report.paper_refs " + str(tex)
    )


def test_printed_anchors():
    # the five figures of the printed paper and the first lemma (after Definition 1)
    assert ref("fig:stopping_thresholds_evolutions_glrt") == "Figure 1"
    assert ref("fig:random_instances_heuristic_threshold") == "Figure 2"
    assert ref("fig:evolution_ratios_characteristic_times") == "Figure 3"
    assert ref("fig:stopping_thresholds_evolutions_evglrt") == "Figure 4"
    assert ref("fig:stopping_thresholds_evolutions_glrt_evglrt") == "Figure 5"
    assert ref("lem:lower_bound_sample_complexity") == "Lemma 2"
    assert ref("ssec:experiments") == "Section 4.3"
    with pytest.raises(KeyError, match="lem:nope"):
        ref("lem:nope")


@pytest.mark.parametrize(
    "text,expected",
    [
        ("Sec. Experiments (ssec:experiments)", "Section 4.3 (Experiments)"),
        (
            "Lemma lem:complexity_inequalities, Fig. fig:evolution_ratios_characteristic_times",
            "Lemma 4, Figure 3",
        ),
        ("Fig. fig:stopping_thresholds_evolutions_glrt(a)", "Figure 1(a)"),
        ("after eq. def_initial_time_box_thresholds", "after Equation (8)"),
        ("(eq. def_initial_time_monotonicity) holds", "(Equation (11)) holds"),
        ("proof of Lemma lem:ratio_characteristic_time_large", "proof of Lemma 12"),
        ("App. app:sss_exp_thresholds", "Appendix J.2.2"),
        ("no label: lem:unknown, ssec:experiments_x", "no label: lem:unknown, ssec:experiments_x"),
    ],
)
def test_cite(text, expected):
    assert cite(text) == expected
    assert labels_in(cite(text)) == []


def test_module_table_renders_back(tmp_path):
    block = paper_refs.render_module_table(LABELS)
    namespace: dict = {}
    exec(block, namespace)  # noqa: S102 - our own generated literal
    assert namespace["LABELS"] == LABELS


def test_notation():
    from baiuv.report.paper_refs import notation

    assert notation("T*(μ,σ²)/T*_σ²(μ), w*(μ,σ^2), T*=3") == "T⋆(μ, σ²)/T⋆_σ²(μ), w⋆(μ, σ²), T⋆=3"
    assert notation("**bold** and a*b") == "**bold** and a*b"
