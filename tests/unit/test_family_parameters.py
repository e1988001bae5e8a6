"""A threshold family's own parameters: declared on the record, given in
``threshold_params``, read by its ``constants`` (against a formula written here)."""

from __future__ import annotations

import dataclasses
import functools
import math

import numpy as np
import pytest
from numba import njit
from test_registry import with_records

from baiuv import registry
from baiuv.registry import Parameter, ThresholdFamily


@njit
def scaled_threshold(code, fparams, table, t, n_a, n_b, state_a, state_b):
    """``table[0] + ln(1 + n_a n_b / (n_a + n_b))`` from 3 samples of each arm on."""
    if n_a < 3 or n_b < 3:
        return math.inf
    return table[0] + math.log1p(n_a * n_b / (n_a + n_b))


def scaled_constants(K, log_inv_delta, params):
    """``ln(1/delta) + c ln(K)`` with ``c`` the family's parameter ``toy_scale``."""
    return [log_inv_delta + params.value("toy_scale") * math.log(K)]


def fixed_constants(K, log_inv_delta, params, *, c):
    """The same constant with ``c`` fixed here (a family without parameters)."""
    return [log_inv_delta + c * math.log(K)]


def formula(K: int, delta: float, c: float, n_a: int, n_b: int) -> float:
    """The scaled family's threshold, written out."""
    if n_a < 3 or n_b < 3:
        return math.inf
    return math.log(1 / delta) + c * math.log(K) + math.log(1 + n_a * n_b / (n_a + n_b))


SCALE = Parameter(
    name="toy_scale",
    default=1.0,
    description="weight of ln(K) in the toy threshold",
    schema={"type": "number", "exclusiveMinimum": 0, "maximum": 10},
)


def _family(name, constants, params=()):
    return ThresholdFamily(
        name=name,
        rules=("GLR", "EV-GLR"),
        delta_correct=False,
        kernel=scaled_threshold,
        constants=constants,
        params=params,
    )


@pytest.fixture
def scaled(monkeypatch):
    """The scaled family's record in the registry for one test."""
    (fam,) = with_records(monkeypatch, _family("toy-scaled", scaled_constants, (SCALE,)))
    return fam


@pytest.mark.parametrize("c", [0.3, 2.5])
def test_the_identifier_uses_the_parameter(scaled, c):
    from baiuv import BestArmIdentifier

    K, delta = 4, 0.05
    mu, sd = np.array([1.0, 0.6, 0.4, 0.0]), np.array([1.0, 0.8, 1.2, 0.5])
    idf = BestArmIdentifier(
        K,
        delta,
        sampling="EV-TaS",
        threshold="toy-scaled",
        threshold_params={"toy_scale": c},
        rng=0,
    )
    gen = np.random.default_rng(7)
    checked = 0
    while not idf.done and checked < 200:
        arm = idf.next_arm()
        idf.observe(arm, mu[arm] + sd[arm] * gen.standard_normal())
        if not idf.in_initialisation:
            thr, n, best = idf.thresholds(), idf.counts, int(np.argmax(idf.means))
            for a in range(K):
                want = math.nan if a == best else formula(K, delta, c, n[best], n[a])
                assert thr[a] == pytest.approx(want, rel=1e-14, abs=0, nan_ok=True)
            checked += 1
    assert checked > 0


def test_the_default_is_the_declared_one(scaled):
    from baiuv.thresholds import ThresholdParams, pair_threshold

    assert ThresholdParams().value("toy_scale") == 1.0
    assert ThresholdParams.from_mapping({"toy_scale": 3}).value("toy_scale") == 3.0
    for c, params in [(1.0, None), (0.3, ThresholdParams.from_mapping({"toy_scale": 0.3}))]:
        got = pair_threshold("toy-scaled", n_a=5, n_b=9, K=3, delta=0.01, params=params)
        assert got == pytest.approx(formula(3, 0.01, c, 5, 9), rel=1e-14, abs=0)


@pytest.mark.parametrize("c", [0.3, 2.5])
def test_simulate_run_uses_the_parameter(scaled, c, monkeypatch):
    # a run with the parameter equals the run, on the same random stream, with a family
    # whose constant is the formula at that value fixed in this test
    from baiuv.model.instance import GaussianInstance
    from baiuv.simulation.engine import RunSettings, simulate_run

    with_records(monkeypatch, _family("toy-fixed", functools.partial(fixed_constants, c=c)))
    inst = GaussianInstance([1.0, 0.5, 0.0], [1.0, 0.5, 2.0])
    runs = {}
    for name, tp in [("toy-scaled", {"toy_scale": c}), ("toy-fixed", {"toy_scale": c})]:
        for alg in ("uniform", "EV-TaS"):
            s = RunSettings(delta=0.05, threshold=name, threshold_params=tp)
            runs[name, alg] = simulate_run(inst, alg, settings=s, seed=11)
    for alg in ("uniform", "EV-TaS"):
        a, b = runs["toy-scaled", alg], runs["toy-fixed", alg]
        assert a["stopping_time"] == b["stopping_time"]
        assert list(a["counts"]) == list(b["counts"])
    # and the value matters: the default (c = 1) stops the uniform run elsewhere
    other = simulate_run(
        inst, "uniform", settings=RunSettings(delta=0.05, threshold="toy-scaled"), seed=11
    )
    assert other["stopping_time"] != runs["toy-scaled", "uniform"]["stopping_time"]


def test_bad_values_and_unknown_keys_are_refused(scaled):
    from baiuv import BestArmIdentifier
    from baiuv.model.instance import GaussianInstance
    from baiuv.simulation.engine import RunSettings, simulate_run
    from baiuv.thresholds import ThresholdParams

    for bad in (0, -1.0, 10.5, math.nan, "x", True):
        with pytest.raises(
            ValueError, match=r"toy_scale .*toy-scaled.* must be a number in \(0, 10\]"
        ):
            ThresholdParams.from_mapping({"toy_scale": bad})
    with pytest.raises(ValueError, match="toy_scale .* must be a number"):
        BestArmIdentifier(3, 0.1, threshold="toy-scaled", threshold_params={"toy_scale": 11})
    with pytest.raises(ValueError, match=r"keys must be among s, gamma, .*toy_scale; got 'scale'"):
        BestArmIdentifier(3, 0.1, threshold="toy-scaled", threshold_params={"scale": 1})
    inst = GaussianInstance([1.0, 0.0], [1.0, 1.0])
    with pytest.raises(ValueError, match="got 'scale'"):
        s = RunSettings(threshold="toy-scaled", threshold_params={"scale": 1})
        simulate_run(inst, "uniform", settings=s)
    with pytest.raises(ValueError, match="once"):
        ThresholdParams(extra=(("toy_scale", 1.0), ("toy_scale", 2.0)))
    # the fixed fields are checked as before
    with pytest.raises(ValueError, match="s must be a finite number > 1"):
        ThresholdParams.from_mapping({"s": 0.5, "toy_scale": 1.0})


def test_another_familys_parameter_is_accepted_and_ignored(scaled):
    from baiuv.thresholds import ThresholdParams, pair_threshold

    p = ThresholdParams.from_mapping({"toy_scale": 4.0, "s": 3.0})
    assert p.extra == (("toy_scale", 4.0),) and hash(p) == hash(dataclasses.replace(p))
    for fam in ("box", "heuristic", "student", "ev-box"):
        want = pair_threshold(fam, n_a=40, n_b=50, K=3, delta=0.01, params=ThresholdParams(s=3.0))
        assert pair_threshold(fam, n_a=40, n_b=50, K=3, delta=0.01, params=p) == want


def test_declarations_are_checked():
    def fam(name, *params):
        return _family(name, scaled_constants, params)

    def par(name, schema, default=1.0):
        return Parameter(name=name, default=default, description="x", schema=schema)

    with pytest.raises(ValueError, match="must give its type"):
        fam("x", par("p", None))
    with pytest.raises(ValueError, match="must give its type"):
        fam("x", par("p", {"type": "string"}))
    with pytest.raises(ValueError, match="default of 'p' must be > 2"):
        fam("x", par("p", {"type": "number", "exclusiveMinimum": 2}))
    for clash in ("beta", "delta", "s", "kl_union_over_pairs"):
        with pytest.raises(ValueError, match="clashes"):
            fam("x", par(clash, {"type": "number"}))
    with pytest.raises(ValueError, match="clashes"):
        fam("x", SCALE, SCALE)
    with pytest.raises(ValueError, match="no slot"):
        fam(
            "x",
            Parameter(name="p", default=0.5, description="x", slot=0, schema={"type": "number"}),
        )
    with pytest.raises(ValueError, match="tuple of Parameter"):
        fam("x", "p")
    builtin = list(registry.THRESHOLD_FAMILIES.values())
    with pytest.raises(ValueError, match="already a parameter of threshold family 'toy-a'"):
        registry.family_table([*builtin, fam("toy-a", SCALE), fam("toy-b", SCALE)])
    assert "toy-a" in registry.family_table([*builtin, fam("toy-a", SCALE)])


def test_the_fixed_field_names_are_thresholdparams():
    from baiuv.thresholds import ThresholdParams

    names = tuple(f.name for f in dataclasses.fields(ThresholdParams))
    assert names == (*registry.THRESHOLD_PARAM_FIELDS, "extra")


def test_the_configuration_gives_a_family_parameter(scaled):
    """A family's own parameter is a key of the ``simulation`` section (its bounds from the
    record, checked by the schema) and reaches ``RunSettings.threshold_params`` through
    ``run_parameters``, as a rule parameter reaches its field; without the key the family
    keeps its declared default."""
    from test_registry import SCHEMA, _default_config

    from baiuv.pipeline.config import ConfigError, validate_config
    from baiuv.registry import run_parameters, schema_properties
    from baiuv.simulation.engine import RunSettings, threshold_spec

    props = schema_properties("simulation")
    assert props["toy_scale"]["maximum"] == 10 and "default" not in props["toy_scale"]
    assert "toy_scale" not in schema_properties("asymptotic")
    config = _default_config()
    config["simulation"]["threshold"] = "toy-scaled"
    config["simulation"]["toy_scale"] = 2.5
    validate_config(config, SCHEMA)
    settings = RunSettings(**run_parameters(config["simulation"]))
    assert dict(settings.threshold_params) == {"toy_scale": 2.5}
    K, lid = 4, math.log(1 / 0.05)
    spec = threshold_spec("toy-scaled", K, lid, tuple(sorted(settings.threshold_params.items())))
    assert spec.table[0] == pytest.approx(lid + 2.5 * math.log(K), rel=1e-14)
    config = _default_config()
    config["simulation"]["toy_scale"] = 11
    with pytest.raises(ConfigError, match="toy_scale"):
        validate_config(config, SCHEMA)
    config = _default_config()
    validate_config(config, SCHEMA)
    assert "threshold_params" not in run_parameters(config["simulation"])
