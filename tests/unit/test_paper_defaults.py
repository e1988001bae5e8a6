"""The paper's defaults, pinned once, and every API that reads them from the registry.

The values are the paper's (``/work`` copy of ``BAIUV.tex``), quoted where they stand:

* ``delta = 0.01``: Section ``ssec:experiments``, "in the moderate regime
  ($\\delta=0.01$)";
* the heuristic threshold: Section ``ssec:experiments``, "We consider the stylized stopping
  threshold $c(t,\\delta) = \\log\\left( (1 + \\log t)/\\delta\\right)$";
* ``beta = 0.5``: Section ``ssec:experiments``, "Top Two algorithms use $\\beta = 0.5$",
  and Appendix ``app:ss_implementation_details``, "we implemented the
  $\\beta$-EB-TCI algorithm with $\\beta=0.5$";
* ``n0 = 2``: Section ``ssec:instantiating_wrappers``, "we start by pulling each arm
  $n_0 \\ge 2$ times" (the smallest value the paper allows; decision D50);
* FHN's initial size: Appendix ``app:ss_implementation_details``, "we took
  $n_0 = \\max\\{2, 10 \\log(1 / \\delta)\\}$" (rounded up, decision D45: 47 at 0.01);
* the thresholds' hyper-parameters: Appendix ``app:ss_implementation_details``, "We
  conduct our experiments with $s=2$, $\\gamma=1.2$, $\\eta_0=\\eta_1 = \\ln
  \\left( 1/\\delta\\right)^{-1}$".

Two defaults are not the paper's but the cited algorithms' (the paper gives none): the FWS
radius ``r_t = t^{-0.9}/K`` of Wang, Tzeng and Proutiere (2021), decision D44, and DKM's
initial AdaHedge gap 0.01, decision D43.
"""

from __future__ import annotations

import dataclasses
import inspect
import math
from pathlib import Path

import pytest

from baiuv.registry import PARAMETERS

SCHEMA = Path(__file__).resolve().parents[2] / "workflow" / "schemas" / "config.schema.yaml"

PAPER = {
    "delta": 0.01,
    "threshold": "heuristic",
    "beta": 0.5,
    "n0": 2,
    "fhn_n0": None,  # from delta: max(2, ceil(10 ln(1/delta)))
    "fws_exponent": 0.9,
    "hedge_delta0": 0.01,
}


def test_the_registry_holds_the_papers_defaults():
    for name, value in PAPER.items():
        assert PARAMETERS[name].default == value, name


def test_fhn_initial_size_and_threshold_parameters_are_the_papers():
    from baiuv.simulation.engine import fhn_n0
    from baiuv.thresholds import ThresholdParams

    assert fhn_n0(0.01) == max(2, math.ceil(10 * math.log(1 / 0.01))) == 47
    p = ThresholdParams()
    assert (p.s, p.gamma) == (2.0, 1.2)
    assert p.etas(0.01) == pytest.approx((1 / math.log(1 / 0.01),) * 2, rel=1e-15)


def test_every_api_takes_its_defaults_from_the_registry():
    """The run settings, the identifier's keyword defaults and the configuration schema's
    defaults are the registry's: changing one there changes them all."""
    from baiuv import BestArmIdentifier
    from baiuv.pipeline.config import load_schema
    from baiuv.simulation import RunSettings

    settings = RunSettings()
    fields = {f.name for f in dataclasses.fields(RunSettings)}
    for name in PAPER:
        assert name in fields, name
        want = PARAMETERS[name].default
        assert getattr(settings, name if name != "delta" else "resolved_delta") == want, name
    sig = inspect.signature(BestArmIdentifier)
    for name in ("n0", "beta", "fws_exponent", "hedge_delta0"):
        assert sig.parameters[name].default == PARAMETERS[name].default, name
    resolved = load_schema(SCHEMA)["properties"]
    sim = resolved["simulation"]["properties"]
    for name in ("fhn_n0", "fws_exponent", "hedge_delta0", "max_samples"):
        assert sim[name]["default"] == PARAMETERS[name].default, name
    dc = resolved["delta_correct"]["properties"]
    for name in ("n0", "beta"):
        assert dc[name]["default"] == PARAMETERS[name].default, name
    assert resolved["asymptotic"]["properties"]["beta"]["default"] == PARAMETERS["beta"].default
