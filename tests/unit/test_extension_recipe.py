"""The extension recipe (docs/extending.md) leaves the paper's results alone: a rule added
as the recipe says is outside the paper's comparisons, and a threshold family that is not
δ-correct is drawn as such, in its own style (decision D264)."""

import dataclasses

import numpy as np
import pandas as pd
import pytest
from test_stopping_claims import _errors as _errors_table
from test_stopping_claims import _runs_of
from test_stopping_claims import _times as _times_table

from baiuv import registry
from baiuv.experiments.stopping_claims import experiment_claims, wrapped_algorithms
from baiuv.registry import ALGORITHMS, Algorithm, ThresholdFamily


def _times(means, exp):
    """The summary rows of ``means`` on experiment ``exp`` (test_stopping_claims' table)."""
    return _times_table(means, exp).to_dict("records")


def _errors(errs, exp, runs=5000):
    """The error rows of ``errs`` on experiment ``exp`` (test_stopping_claims' table)."""
    return _errors_table([(exp, a, k) for a, k in errs.items()], runs).to_dict("records")


#: Mean stopping times of the paper's algorithms on three experiments, and error counts.
PAPER = {
    "TaS": 50,
    "EV-TaS": 48,
    "TCI": 52,
    "EV-TCI": 49,
    "uniform": 90,
    "fixed": 50,
    "FHN2": 70,
}


def claims_with(extra_rule: str | None):
    """The stopping-time claims of a results table with the paper's algorithms, plus one
    rule that is much faster and errs often (``extra_rule``)."""
    times, errors = [], []
    for exp in ("easy", "standard", "random"):
        means = dict(PAPER)
        errs = dict.fromkeys(PAPER, 0)
        if extra_rule:
            means[extra_rule], errs[extra_rule] = 5, 400
        times += _times(means, exp)
        errors += _errors(errs, exp)
    times = pd.DataFrame(times)
    claims = experiment_claims(pd.DataFrame(errors), times, 0.01, runs=_runs_of(times))
    return [dataclasses.astuple(c) for c in claims]


def toy_rule(**kw):
    """A rule registered by the recipe (its step is never run here)."""
    return Algorithm(name="toy-rule", kernel="glr", step="baiuv.simulation.rules:select_arm", **kw)


def test_a_rule_added_by_the_recipe_leaves_every_paper_claim_unchanged(monkeypatch):
    before = claims_with(None)
    rule = toy_rule(description="a toy")
    assert rule.wrapper == "extension" and not rule.in_paper and not rule.wrapped
    monkeypatch.setitem(ALGORITHMS, rule.name, rule)
    assert rule.name not in wrapped_algorithms()
    assert claims_with(rule.name) == before


def test_a_rule_declared_a_wrapper_joins_the_comparisons(monkeypatch):
    """The check above can fail: the same rule declared one of the paper's wrappers
    changes the rows that compare the wrapped algorithms."""
    before = claims_with(None)
    monkeypatch.setitem(ALGORITHMS, "toy-rule", toy_rule(wrapper="adapted"))
    assert claims_with("toy-rule") != before


def test_every_builtin_rule_is_in_the_paper():
    assert all(a.in_paper for a in ALGORITHMS.values())


def test_a_family_that_is_not_delta_correct_has_its_own_style(monkeypatch):
    from baiuv.plotting.style import (
        REFERENCE_COLOUR,
        not_delta_correct,
        threshold_colours,
        threshold_markers,
        threshold_order,
    )

    fam = ThresholdFamily(
        name="toy-loose",
        rules=("GLR",),
        kernel="baiuv.thresholds.kernels:pair_threshold_kernel",
        delta_correct=False,
    )
    monkeypatch.setitem(registry.THRESHOLD_FAMILIES, fam.name, fam)
    col, mk = threshold_colours(), threshold_markers()
    assert not np.allclose(col["toy-loose"], REFERENCE_COLOUR)
    assert np.allclose(col["heuristic"], REFERENCE_COLOUR)
    assert mk["toy-loose"] is not None and mk["heuristic"] is None
    others = [tuple(c) for f, c in col.items() if f != "toy-loose"]
    assert tuple(col["toy-loose"]) not in others
    assert not_delta_correct("toy-loose") and not not_delta_correct("bob")
    # the families that are not δ-correct lead the legend
    assert threshold_order(["bob", "toy-loose", "heuristic"])[:2] == ["heuristic", "toy-loose"]


@pytest.mark.parametrize("name", ["heuristic", "ev-heuristic-student"])
def test_the_heuristics_stay_the_reference(name):
    from baiuv.plotting.style import REFERENCE_COLOUR, threshold_colours

    assert np.allclose(threshold_colours([name])[name], REFERENCE_COLOUR)
