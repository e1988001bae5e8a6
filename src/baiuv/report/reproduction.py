"""Reproduction report: every checked claim of the paper, assembled from the experiments.

Each experiment states its own claims (:class:`baiuv.claims.Claim` rows, e.g.
:func:`baiuv.experiments.stopping_claims.experiment_claims`); this module renders them, with
the list of decisions where the paper is ambiguous, as ``results/reproduction.md``. The
report is generated only from the pipeline's result files; nothing is typed in by hand
except the paper's stated values, each quoted next to where the paper states it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import asdict, dataclass

import pandas as pd

from baiuv.claims import VERDICTS, Claim, tally
from baiuv.report.paper_refs import cite, notation
from baiuv.tables import markdown_table

__all__ = [
    "ERRATA",
    "Erratum",
    "decisions",
    "errata_section",
    "not_run_line",
    "render",
    "summary_line",
]


@dataclass(frozen=True)
class Erratum:
    """A slip of the paper: where (LaTeX labels, printed by :func:`cite`), what it says
    (quoted), what is wrong, and the reading the artifact takes (with its decision)."""

    where: str
    says: str
    slip: str
    reading: str


#: The paper's slips, each with the reading the artifact takes (decision D175).
ERRATA = (
    Erratum(
        "App. app:ss_Kinf_thresholds (BoB's KL constraint)",
        '∇²f(x, y) = [[x⁻², 1], [1, 0]] "is a positive semi-definite matrix on (ℝ⋆₊)²", '
        "hence f(x, y) = (1 + y)x − 1 − ln(x) convex and the KL constraint convex",
        "its determinant is x⁻²·0 − 1·1 = −1 < 0: the Hessian is indefinite, f is not convex, "
        "and BoB's program is not a convex program",
        "BoB is solved by an exact global solver (D30); Ipopt, the paper's approximation, is "
        "checked against it (D22)",
    ),
    Erratum(
        "App. app:sss_exp_thresholds",
        '"for the EV-GLR stopping rule, the δ-correct family of thresholds can be '
        "asymptotically tight, otherwise Theorem thm:upper_bound_sample_complexity_algorithm "
        'would contradict the asymptotic lower bound"',
        "the argument shows the opposite: with an asymptotically tight threshold EV-TaS "
        "stops after T⋆_σ²(μ) ln(1/δ) samples asymptotically, below the lower bound "
        "T⋆(μ, σ²) ln(1/δ) of a δ-correct algorithm (Theorem thm:impossibility_result)",
        'read as "cannot be asymptotically tight": the asymptotic EV rows use tight '
        "(heuristic, KL, BoB) thresholds only (D173)",
    ),
    Erratum(
        "Sec. ssec:lower_bounds against Theorem thm:upper_bound_sample_complexity_algorithm",
        'asymptotic optimality defined by "lim inf_{δ→0} E[τ_δ]/ln(1/δ) ≤ T⋆(μ, σ²)"; '
        "the theorems prove lim sup_{δ→0} E[τ_δ]/ln(1/δ) ≤ T⋆(μ, σ²)",
        "lim inf ≤ T⋆ says only that some sequence of δ → 0 reaches T⋆; with the lower "
        "bound (lim inf ≥ T⋆ for δ-correct algorithms) the theorems' lim sup ≤ T⋆ makes the "
        "limit exist and equal T⋆",
        "lim sup ≤ C, an upper bound, as the theorems state it; the asymptotic rows test it "
        "at finite levels (D154)",
    ),
    Erratum(
        "Fig. fig:random_instances_heuristic_threshold (caption)",
        '"Lower bound is T⋆(μ) log(1/δ)"',
        "T⋆(μ) is defined nowhere: it may be T⋆(μ, σ²) or the known-variance T⋆_σ²(μ) (38 % "
        "apart on the easy instance); and Lemma lem:lower_bound_sample_complexity's bound "
        "has ln(1/(2.4δ)), not log(1/δ)",
        "the figure draws T⋆(μ, σ²) ln(1/δ) as a reference line and Lemma "
        "lem:lower_bound_sample_complexity's T⋆(μ, σ²) ln(1/(2.4δ)) as the bound, both "
        "labelled (D235)",
    ),
)


def errata_section(errata: Iterable[Erratum] = ERRATA) -> list[str]:
    """Markdown lines of the report's errata: one row per slip of the paper."""
    rows = pd.DataFrame(
        [
            {"where": e.where, "the paper says": e.says, "slip": e.slip, "reading taken": e.reading}
            for e in errata
        ]
    )
    rows = rows.map(lambda v: notation(cite(v)))
    return [
        "## Errata: slips of the paper",
        "",
        "Statements of the paper that are wrong as written, and the reading this artifact "
        "takes (decision D175):",
        "",
        markdown_table(rows),
    ]


# ----------------------------------------------------------------------------------------
# Decisions and report assembly
# ----------------------------------------------------------------------------------------
def decisions(decisions_md: str) -> list[tuple[str, str]]:
    """``(id, title)`` of every ``## D<n>: title`` section of docs/decisions/paper.md."""
    return re.findall(r"^## (D\d+):\s*(.+)$", decisions_md, flags=re.M)


def _heading(topic: str) -> str:
    """Capitalise an ASCII first letter only (``str.capitalize`` turns δ into Δ)."""
    return topic[:1].upper() + topic[1:] if topic[:1].isascii() else topic


def summary_line(claims: Iterable[Claim]) -> str:
    """The report's summary: the verdicts of the paper's statements, and apart those of the
    artifact's own rows (``Claim.beyond_paper``)."""
    claims = list(claims)
    paper, own = tally(claims)

    def counts(n: dict[str, int]) -> str:
        return ", ".join(f"{n[v]} {v}" for v in VERDICTS)

    return (
        f"Summary: the paper's statements ({sum(paper.values())} rows): {counts(paper)}; "
        f"the artifact's own checks ({sum(own.values())} rows, beyond the paper): {counts(own)}."
    )


def not_run_line(not_run: Iterable[tuple[str, str]]) -> list[str]:
    """Markdown lines naming the experiments with claims that the configuration does not
    run, as ``(what, section)`` pairs: their statements have no row in this report, and a
    reader should not take the absence of a row for a verdict. Empty when every one runs."""
    not_run = list(not_run)
    if not not_run:
        return []
    names = "; ".join(f"{what} (section `{section}`)" for what, section in not_run)
    return [
        f"Not run by this configuration (their sections are absent or null), so the "
        f"statements they check have no row below: {names}.",
        "",
    ]


def render(
    claims: Iterable[Claim],
    decisions_list: list[tuple[str, str]],
    config_name: str,
    not_run: Iterable[tuple[str, str]] = (),
) -> str:
    """The report's Markdown: the summary, the experiments the configuration does not run
    (:func:`not_run_line`), one table per topic, the errata and the decisions."""
    claims = list(claims)
    df = pd.DataFrame([asdict(c) for c in claims]).drop(columns="beyond_paper", errors="ignore")
    lines = [
        "# Reproduction report",
        "",
        f"Generated by the pipeline (`snakemake results/reproduction.md`) from the result files "
        f"of the configuration `{config_name}`; no number below is typed by hand except the "
        "paper's stated values.",
        "",
        summary_line(claims),
        "",
        *not_run_line(not_run),
    ]
    for topic, g in df.groupby("topic", sort=False):
        lines += [f"## {_heading(topic)}", ""]
        tab = g.drop(columns=["topic"]).rename(
            columns={"paper": "paper value", "ours": "our value (uncertainty)"}
        )
        # the paper's printed numbering ("Lemma 4", "Section 4.3"), never LaTeX labels,
        # and its notation (T⋆(μ, σ²))
        tab = tab.map(lambda v: notation(cite(v)) if isinstance(v, str) else v)
        lines.append(markdown_table(tab))
    lines += errata_section()
    lines += [
        "## Decisions where the paper is ambiguous",
        "",
        "Each is argued in `docs/decisions/paper.md`, with the tests that pin it (a record "
        "says when there is none):",
        "",
    ]
    lines += [f"- **{i}**: {t}" for i, t in decisions_list]
    return "\n".join(lines) + "\n"
