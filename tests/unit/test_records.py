"""The registry's and the report's records are built with keywords only (D381: records
built with keywords): a call names each field, so a record reads without counting
positions and a field added later cannot shift the others."""

from __future__ import annotations

import pytest

from baiuv.claims import REPRODUCED, Claim
from baiuv.registry import RULE_UNIFORM, Algorithm, Parameter, ThresholdFamily


def test_an_algorithm_takes_keywords_only():
    alg = Algorithm(
        name="toy", kernel="glr", rule=RULE_UNIFORM, wrapper="baseline", description="toy"
    )
    assert (alg.rule, alg.wrapper, alg.family, alg.label) == (
        RULE_UNIFORM,
        "baseline",
        "toy",
        "toy",
    )
    with pytest.raises(TypeError):
        Algorithm("toy", "glr", rule=RULE_UNIFORM)


def test_a_threshold_family_takes_keywords_only():
    fam = ThresholdFamily(name="toy", code=90, rules=("GLR",), label="Toy")
    assert (fam.code, fam.rules, fam.base, fam.label) == (90, ("GLR",), "toy", "Toy")
    with pytest.raises(TypeError):
        ThresholdFamily("toy", code=90, rules=("GLR",))


def test_a_parameter_takes_keywords_only():
    p = Parameter(name="toy", default=1.0, description="a toy")
    assert (p.slot, p.schema, p.sections) == (None, None, ())
    with pytest.raises(TypeError):
        Parameter("toy", 1.0, "a toy")


def test_a_claim_takes_keywords_only():
    fields = dict(topic="t", claim="c", where="w", paper="1", ours="1", verdict=REPRODUCED)
    assert Claim(**fields).reason == ""
    with pytest.raises(TypeError):
        Claim(*fields.values())
