"""The registry is the single source of truth: schema enums and defaults, settings, the
identifier, the report's groupings and the palette read it; a rule or a family added as
docs/extending.md says (its module, its record in the registry's table) goes through
configuration validation, a shard and the identifier without any other edit."""

from __future__ import annotations

import copy
import dataclasses
import functools
import importlib
import math
import pkgutil
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml
from numba import njit

import baiuv
from baiuv import registry
from baiuv.pipeline.config import ConfigError, load_schema, raw_schema, validate_config
from baiuv.registry import (
    ALGORITHMS,
    PARAMETERS,
    RULE_UNIFORM,
    THRESHOLD_FAMILIES,
    Algorithm,
    ThresholdFamily,
    get_algorithm,
    selection,
)

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = ROOT / "workflow" / "schemas" / "config.schema.yaml"


def _default_config() -> dict:
    return yaml.safe_load((ROOT / "config" / "config.yaml").read_text())


#: The registry's name lists of its threshold families, in the order of ``FamilyNames``.
NAME_LISTS = ("FAMILIES", "GLR_FAMILIES", "EV_FAMILIES", "STATEFUL", "TIGHT")
NAME_LISTS += ("PAPER_FAMILIES", "FAMILY_CODES")


@functools.cache
def _import_every_module() -> None:
    """Import every module of the package (``__main__`` aside): none is imported later,
    while a test's tables are in place, with its name lists."""
    for m in pkgutil.walk_packages(baiuv.__path__, "baiuv."):
        if m.name != "baiuv.__main__":
            importlib.import_module(m.name)


def use_tables(monkeypatch, algorithms, families) -> None:
    """The registry's tables hold the records ``algorithms`` and ``families`` for one test,
    as if the source's tables held them at import: the tables are built and checked as at
    import (``algorithm_table``, ``family_table``), and every module of the package that
    holds one of the registry's name lists (``FAMILIES``, ``GLR_FAMILIES``...; every module
    imported first) gets the lists of the new table. ``monkeypatch`` puts everything back
    after the test. A default argument made from a name list keeps the registry's."""
    _import_every_module()
    new_tables = (registry.algorithm_table(algorithms), registry.family_table(families))
    for table, new in zip((ALGORITHMS, THRESHOLD_FAMILIES), new_tables, strict=True):
        for name in [n for n in table if n not in new]:
            monkeypatch.delitem(table, name)
        for name, record in new.items():
            if table.get(name) is not record:
                monkeypatch.setitem(table, name, record)
    old = [getattr(registry, n) for n in NAME_LISTS]
    lists = registry.family_names(THRESHOLD_FAMILIES)
    for mod_name, mod in list(sys.modules.items()):
        if mod_name == "baiuv" or mod_name.startswith("baiuv."):
            for attr, value in list(vars(mod).items()):
                for was, now in zip(old, lists, strict=True):
                    if value is was:
                        monkeypatch.setattr(mod, attr, now)


def with_records(monkeypatch, *records):
    """The registry with ``records`` (``Algorithm`` and ``ThresholdFamily`` records) added
    at the end of its tables for one test: what adding them to the source's tables does
    (docs/extending.md). Returns the records."""
    use_tables(
        monkeypatch,
        [*ALGORITHMS.values(), *(r for r in records if isinstance(r, Algorithm))],
        [*THRESHOLD_FAMILIES.values(), *(r for r in records if isinstance(r, ThresholdFamily))],
    )
    return records


def _refused_without(monkeypatch, records, name, field, config):
    """With ``name`` out of the registry's ``records`` (its tables as if its record were not
    in the source), ``config``'s simulation section is refused with ``field`` named."""
    with monkeypatch.context() as m:
        use_tables(
            m,
            [a for a in ALGORITHMS.values() if records is not ALGORITHMS or a.name != name],
            [f for f in THRESHOLD_FAMILIES.values() if records is ALGORITHMS or f.name != name],
        )
        with pytest.raises(ConfigError, match=field):
            validate_config(
                copy.deepcopy(_default_config()) | {"simulation": config["simulation"]}, SCHEMA
            )


def _marks(node, found):
    if isinstance(node, dict):
        for key in ("registry", "registry_default", "registry_parameters"):
            if key in node:
                found.append((key, node[key]))
        for v in node.values():
            _marks(v, found)
    elif isinstance(node, list):
        for v in node:
            _marks(v, found)
    return found


def test_schema_marks_name_registry_selections_and_parameters():
    raw = raw_schema(SCHEMA)  # the file with the records' sections
    marks = _marks(raw, [])
    assert {m for k, m in marks if k == "registry"} == {
        "algorithms",
        "asymptotic_algorithms",
        "glr_algorithms",
        "thresholds",
        "glr_threshold_variants",
        "ev_threshold_variants",
    }
    assert {m for k, m in marks if k == "registry_default"} <= set(PARAMETERS)
    assert {m for k, m in marks if k == "registry_parameters"} == set(registry.PARAMETER_SECTIONS)
    resolved = load_schema(SCHEMA)
    assert _marks(resolved, []) == []  # every mark replaced
    sim = resolved["properties"]["simulation"]["properties"]
    assert sim["algorithms"]["items"]["enum"] == list(ALGORITHMS)
    assert sim["max_samples"]["default"] == PARAMETERS["max_samples"].default == 10_000_000
    # no algorithm or family name is typed into the schema by hand (the file and the
    # records' sections)
    text = SCHEMA.read_text() + yaml.safe_dump(raw, default_flow_style=True, width=10**6)
    for name in [*ALGORITHMS, "ev-bob", "kl-lazy"]:
        assert f" {name}," not in text and f"[{name}," not in text, name


def test_schema_defaults_of_run_parameters_equal_the_registry():
    """The defaults the schema shares with the Python API are the registry's (the sections'
    own defaults, e.g. ``asymptotic.n0 = 6`` or the δ-correct ``lazy_ratio``, differ on
    purpose)."""
    resolved = load_schema(SCHEMA)
    seen = 0
    for section in ("simulation", "asymptotic", "delta_correct"):
        props = resolved["properties"][section]["properties"]
        for name, p in PARAMETERS.items():
            shared = name in ("fhn_n0", "fws_exponent", "hedge_delta0", "max_samples")
            if shared and name in props and "default" in props[name]:
                assert props[name]["default"] == p.default, (section, name)
                seen += 1
    assert seen >= 5


def test_rule_parameter_keys_are_made_from_the_registry():
    """The schema's keys of the rules' parameters are the registry's records (type, bounds,
    default, description), in the sections each record names; none is typed in the schema
    by hand, and the identifier's keywords are the same parameters."""
    import inspect

    from baiuv import BestArmIdentifier

    raw = raw_schema(SCHEMA)["properties"]
    resolved = load_schema(SCHEMA)["properties"]
    assert {"beta", "fws_exponent", "hedge_delta0"} <= set(registry.RULE_PARAMETERS)
    for section in registry.PARAMETER_SECTIONS:
        assert not set(raw[section]["properties"]) & set(registry.RULE_PARAMETERS), section
        props = resolved[section]["properties"]
        for name in registry.RULE_PARAMETERS:
            p = PARAMETERS[name]
            if section not in p.sections:
                assert name not in props, (section, name)
                continue
            want = {**p.schema, "default": p.default, "description": p.description}
            assert props[name] == want, (section, name)
    assert resolved["simulation"]["properties"]["beta"]["exclusiveMaximum"] == 1
    sig = inspect.signature(BestArmIdentifier)
    for name in registry.RULE_PARAMETERS:
        assert sig.parameters[name].kind is inspect.Parameter.KEYWORD_ONLY
        assert sig.parameters[name].default == PARAMETERS[name].default
    with pytest.raises(TypeError, match="gamma"):
        BestArmIdentifier(2, 0.1, gamma=2.0)
    # bounds in words and values, from the same record
    assert PARAMETERS["beta"].allowed == "in (0, 1)" and PARAMETERS["fws_exponent"].allowed == "> 0"
    from baiuv.simulation.engine import RunSettings

    for bad in (0.0, 1.0, float("nan"), "0.5", True):
        with pytest.raises(ValueError, match="beta must be"):
            RunSettings(beta=bad)
    with pytest.raises(ValueError, match="slots|type"):
        registry.Parameter(
            name="x", default=1.0, description="x", slot=5, schema={"type": "string"}
        )


def test_run_settings_defaults_and_kernel_params_come_from_the_registry():
    from baiuv.simulation.engine import RunSettings, rule_params

    s = RunSettings()
    for f in dataclasses.fields(RunSettings):
        if f.name in PARAMETERS:
            assert getattr(s, f.name) == PARAMETERS[f.name].default, f.name
    assert set(PARAMETERS) <= {f.name for f in dataclasses.fields(RunSettings)}
    p = rule_params(RunSettings(beta=0.3, fws_exponent=0.7, hedge_delta0=0.02))
    assert p[registry.P_BETA] == 0.3 and p[registry.P_FWS_EXPONENT] == 0.7
    assert p[registry.P_HEDGE_DELTA0] == 0.02 and p.size == registry.N_KERNEL_PARAMS
    # the sampling epsilon after the rule parameters (D324: the run's, default epsilon)
    assert registry.P_SAMPLING_EPSILON == registry.N_PARAMS
    assert rule_params(RunSettings(epsilon=0.3))[registry.P_SAMPLING_EPSILON] == 0.3
    assert rule_params(RunSettings(epsilon=0.3, sampling_epsilon=0.0))[-1] == 0.0


def test_every_parameter_has_its_field_and_every_rule_parameter_its_keyword():
    """``RunSettings``' fields and ``BestArmIdentifier``'s keywords are written in their
    source (D382: written fields and keywords that an IDE sees): every record of
    ``PARAMETERS`` is a field with its default, and every rule parameter also a keyword of
    the identifier with its default and type, in registry order; a record added without
    them fails here."""
    import inspect

    from baiuv import BestArmIdentifier
    from baiuv.simulation.engine import RunSettings

    fields = {f.name: f for f in dataclasses.fields(RunSettings)}
    missing = [n for n in PARAMETERS if n not in fields]
    assert not missing, f"RunSettings has no field for {missing}"
    for name, p in PARAMETERS.items():
        if name != "delta":  # None: the default comes from log_inv_delta or the record
            assert fields[name].default == p.default, name
    sig = inspect.signature(BestArmIdentifier).parameters
    keywords = [n for n in sig if n in registry.RULE_PARAMETERS]
    assert keywords == list(registry.RULE_PARAMETERS), "BestArmIdentifier's keywords"
    assert [n for n in fields if n in registry.RULE_PARAMETERS] == keywords
    for name in registry.RULE_PARAMETERS:
        kind = "int" if PARAMETERS[name].schema["type"] == "integer" else "float"
        assert sig[name].kind is inspect.Parameter.KEYWORD_ONLY, name
        assert (sig[name].default, sig[name].annotation) == (PARAMETERS[name].default, kind)
        assert fields[name].type == kind, name
    # the identifier passes each keyword on to its settings
    idf = BestArmIdentifier(3, 0.1, beta=0.25, fws_exponent=0.5, hedge_delta0=0.2)
    assert [getattr(idf._settings, n) for n in keywords] == [0.25, 0.5, 0.2]


def test_selections_against_the_registry_flags():
    assert selection("glr_algorithms") == [
        a for a in ALGORITHMS if ALGORITHMS[a].kernel == "glr" and a != "fixed"
    ]
    assert "uniform" not in selection("asymptotic_algorithms")
    assert "FHN1" not in selection("asymptotic_algorithms")
    assert "bob-lazy" in selection("glr_threshold_variants")
    assert "ev-bob-lazy" in selection("ev_threshold_variants")
    assert "ev-bob" not in selection("glr_threshold_variants")
    with pytest.raises(ValueError, match="selection"):
        selection("nope")


def test_bad_registrations_are_refused():
    with pytest.raises(ValueError, match="kernel"):
        Algorithm(name="x", kernel="nope")
    with pytest.raises(ValueError, match="rule"):
        Algorithm(name="x", kernel="glr")
    with pytest.raises(ValueError, match="'TaS' is in the table twice"):
        registry.algorithm_table(
            [*ALGORITHMS.values(), Algorithm(name="TaS", kernel="glr", rule=RULE_UNIFORM)]
        )


@njit
def toy_step(rule, run, work, rng):
    """A toy sampling rule, compiled here and nowhere in the package: arm 0 twice per
    cycle ``0, 0, 1, ..., K-1`` indexed by ``t``.

    It also writes into the arrays ``params`` and ``wfix`` the engine passes it, and its
    first call in a run (``scal[3]`` is 0 in a fresh workspace) samples the last arm
    throughout when it finds them written: a run that received an earlier run's arrays
    then has other counts than :func:`toy_counts`."""
    counts = run.counts
    params = work.params
    scal = work.scal
    wfix = work.wfix
    if scal[3] == 0.0:
        scal[3] = 1.0 if (wfix[0] == wfix[0] and params[0] == params[0]) else -1.0
    wfix[0] = np.nan
    params[0] = np.nan
    if scal[3] < 0.0:
        return counts.shape[0] - 1
    p = run.t % (counts.shape[0] + 1)
    return 0 if p == 0 else p - 1


def toy_counts(K: int, n0: int, tau: int) -> list[int]:
    """Counts of a run of :func:`toy_step` stopped at ``tau``, written out in Python."""
    counts = [n0] * K
    for t in range(n0 * K, tau):
        p = t % (K + 1)
        counts[0 if p == 0 else p - 1] += 1
    return counts


@pytest.fixture
def toy_rule(monkeypatch):
    """The toy kernel's record in the registry for one test under a new name and family,
    with the EV-GLR stopping rule."""
    (alg,) = with_records(
        monkeypatch,
        Algorithm(
            name="toy",
            kernel="glr",
            plug_in=True,
            wrapper="baseline",
            step=toy_step,
            workspace=registry.Workspace(scalars=4),
        ),
    )
    return alg


@njit
def sized_step(rule, run, work, rng):
    """Arm 1 while the workspace has the shape ``Workspace(3, 2, 4)`` declares for ``K``
    arms and holds what this kernel wrote at its previous steps (zero at the first), else
    arm 0."""
    ws = work.ws
    scal = work.scal
    K = run.counts.shape[0]
    ok = ws.shape[0] == 3 + 2 * K and ws.shape[1] == K and scal.shape[0] == 4
    if ok:
        ok = scal[3] == ws[2 + 2 * K, K - 1] and ws[0].sum() == 0.0
        scal[3] += 1.0
        ws[2 + 2 * K, K - 1] += 1.0
    return 1 if ok else 0


def test_each_builtin_rule_owns_its_workspace():
    """The paper's rules are written as a registered rule is (D390): each record carries
    its module's workspace size, every row the module names lies in it, and the module's
    initialisation gives the start written here (C-tracking sums at the counts, the FWS
    iterate uniform, the AdaHedge budget at its parameter, no TaS oracle hint)."""
    from baiuv.simulation import rules
    from baiuv.simulation.rules import dkm, fws, tas, tci, tracking
    from baiuv.simulation.rules.workspace import BUILTIN_SIZES

    modules = {
        registry.RULE_TAS: (tas, ("TAS_", "S_")),
        registry.RULE_DKM: (dkm, ("DKM_", "S_")),
        registry.RULE_FWS: (fws, ("FWS_",)),
        registry.RULE_FIXED: (tracking, ("W_",)),
        registry.RULE_TCI: (tci, ()),
    }
    seen = set()
    for alg in ALGORITHMS.values():
        if alg.kernel != "glr":
            assert alg.workspace == registry.Workspace()
            continue
        size = BUILTIN_SIZES.get(alg.rule, registry.Workspace())
        assert alg.workspace == size, alg.name
        seen.add(alg.rule)
        if alg.rule in modules:
            mod, prefixes = modules[alg.rule]
            assert mod.WORKSPACE == size
            for name, v in vars(mod).items():
                if name.startswith(prefixes) and isinstance(v, int):
                    bound = size.scalars if name.startswith("S_") else size.rows
                    assert 0 <= v <= bound - (name != "FWS_GRADS"), name
    assert seen == {0, 1, 2, 3, 4, 5}
    counts = np.array([2, 3, 4])
    params = np.zeros(registry.N_PARAMS)
    params[registry.P_HEDGE_DELTA0] = 0.25
    want = {
        registry.RULE_UNIFORM: ((0, 3), {}, []),
        registry.RULE_TCI: ((0, 3), {}, []),
        registry.RULE_FIXED: ((1, 3), {0: [2, 3, 4]}, []),
        registry.RULE_TAS: ((10, 3), {0: [2, 3, 4], 7: [np.nan] * 3}, [0, -1, 0, -1]),
        registry.RULE_DKM: ((7, 3), {0: [2, 3, 4]}, [0.25]),
        registry.RULE_FWS: ((9, 3), {0: [2, 3, 4], 1: [1 / 3] * 3}, []),
    }
    for rule, (shape, rows, scalars) in want.items():
        ws, scal = rules.init_workspace(counts, params, (5, 1, 5), rule)  # size unused
        assert ws.shape == shape and list(scal) == scalars, rule
        expected = np.zeros(shape)
        for r, v in rows.items():
            expected[r] = v
        np.testing.assert_array_equal(ws, expected)


def test_a_rule_declares_its_workspace(monkeypatch):
    from baiuv import BestArmIdentifier
    from baiuv.simulation import rules

    with pytest.raises(ValueError, match="workspace"):
        Algorithm(name="x", kernel="glr", step=sized_step, workspace=(1, -1, 0))
    counts = np.array([2, 3, 4])
    ws, scal = rules.init_workspace(
        counts, np.zeros(registry.N_PARAMS), (2, 1, 3), registry.RULE_CUSTOM
    )
    assert ws.shape == (5, 3) and scal.shape == (3,) and not ws.any() and not scal.any()
    sized = registry.Workspace(rows=3, rows_per_arm=2, scalars=4)
    with_records(
        monkeypatch, Algorithm(name="sized", kernel="glr", step=sized_step, workspace=sized)
    )
    idf = BestArmIdentifier(4, 0.1, sampling="sized", threshold="heuristic", n0=2, rng=0)
    for t in range(30):
        arm = idf.next_arm()
        assert t < 8 or arm == 1, t  # the kernel saw its declared, persistent workspace
        idf.observe(arm, float(t % 3))


def test_step_kernels_are_checked_in_the_record():
    with pytest.raises(ValueError, match="step"):
        Algorithm(name="x", kernel="glr", rule=RULE_UNIFORM, step=toy_step)
    with pytest.raises(ValueError, match="step"):
        Algorithm(name="x", kernel="fhn", step=toy_step)
    with pytest.raises(ValueError, match="module:function"):
        Algorithm(name="x", kernel="glr", step="no_function_named")
    with pytest.raises(ValueError, match="step of algorithm 'x'"):
        Algorithm(
            name="x", kernel="glr", step="baiuv.simulation.rules:no_such_kernel"
        ).step_kernel()
    named = Algorithm(name="x", kernel="glr", step=f"{__name__}:toy_step")  # imported when run
    assert named.step_kernel() is toy_step
    assert get_algorithm("TaS").step_kernel() is None


def test_toy_rule_through_config_validation_and_one_shard(toy_rule, tmp_path, monkeypatch):
    from baiuv import BestArmIdentifier
    from baiuv.experiments.stopping_times import experiment_from_config, run_shard
    from baiuv.plotting.style import algorithm_colours
    from baiuv.registry import run_parameters
    from baiuv.simulation.engine import RunSettings
    from baiuv.storage.shards import read_shards, write_shard

    config = _default_config()
    config["simulation"]["algorithms"] = ["TaS", "toy"]
    config["audit"]["algorithms"] = ["toy"]
    config["delta_correct"]["algorithms"] = ["toy"]
    validate_config(config, SCHEMA)
    assert get_algorithm("toy").stopping == "EV-GLR"
    # without its record the same configuration is refused, naming the field
    _refused_without(monkeypatch, ALGORITHMS, "toy", "simulation.algorithms", config)
    # one shard of a named experiment, written and read back as the pipeline does
    sim = config["simulation"]
    instances = {i["name"]: i for i in config["instances"]}
    exp = experiment_from_config("toy", {"kind": "named", "instance": "easy", "runs": 3}, instances)
    settings = RunSettings(**run_parameters(sim) | {"threshold": "heuristic", "delta": 0.1})
    df = run_shard(exp, "toy", seed=1, settings=settings)
    path = tmp_path / "shard.parquet"
    import logging

    write_shard(
        df,
        path,
        {"algorithm": "toy"},
        logging.getLogger("test"),
        "toy",
        tmp_path / "timings.parquet",
    )
    (back,), _ = read_shards([path])
    assert list(back["algorithm"]) == ["toy"] * 3
    K = len(instances["easy"]["mu"])
    for counts, tau in zip(back["counts"], back["stopping_time"], strict=True):
        assert list(counts) == toy_counts(K, settings.n0, tau)  # the toy kernel sampled
    # the identifier runs the same kernel, and the palette knows the rule
    idf = BestArmIdentifier(K, 0.1, sampling="toy", threshold="heuristic", rng=0)
    assert idf.stopping_rule == "EV-GLR"
    for t in range(4 * K):  # observations 0, 1, 0, 1... of every arm: it cannot stop
        arm = idf.next_arm()
        if t >= settings.n0 * K:
            assert arm == (0 if t % (K + 1) == 0 else t % (K + 1) - 1)
        idf.observe(arm, float(idf.counts[arm] % 2))
    colours = algorithm_colours(["TaS", "EV-TaS", "toy"])
    assert colours["TaS"] == colours["EV-TaS"] != colours["toy"]


def test_runs_of_a_cell_do_not_share_the_arrays_a_step_kernel_writes(toy_rule):
    # the toy kernel writes into params and wfix; the runs of a shard each get their own
    # (the cell prepares its kernel call once: D230), so each run samples as toy_counts says
    from baiuv.experiments.stopping_times import Experiment, run_shard
    from baiuv.model.instance import STANDARD
    from baiuv.simulation.engine import RunSettings

    exp = Experiment("toy-own-arrays", "named", 4, STANDARD)
    settings = RunSettings(threshold="heuristic", delta=0.01)
    df = run_shard(exp, "toy", seed=3, settings=settings)
    n0K = settings.n0 * STANDARD.K
    assert (df["stopping_time"] > n0K + STANDARD.K).all()  # every run called the kernel
    for counts, tau in zip(df["counts"], df["stopping_time"], strict=True):
        assert list(counts) == toy_counts(STANDARD.K, settings.n0, tau)


def test_tight_families_are_the_papers():
    """Asymptotically tight (Definition def:asymptotically_tight_threshold): the heuristic,
    and KL and BoB by Lemma lem:kl_Kinf_thresholds_asymptotically_tight; the report's
    impossibility claim is checked with these only."""
    from baiuv.registry import THRESHOLD_FAMILIES, TIGHT
    from baiuv.studies.asymptotic import TIGHT as used

    assert TIGHT == ("heuristic", "kl", "bob")
    assert used == TIGHT
    assert all(THRESHOLD_FAMILIES[f].tight for f in TIGHT)


def test_labels_come_from_the_records():
    assert registry.label("TCI") == "β-EB-TCI" and registry.label("EV-TCI") == "β-EB-EVTCI"
    assert registry.label("ev-bob") == "EV-BoB" and registry.label("TaS") == "TaS"
    assert registry.label("bob-lazy") == "bob-lazy"  # not a record: its own name
    assert all(registry.label(a) == v.label for a, v in ALGORITHMS.items())
    assert all(registry.label(f) == v.label for f, v in registry.THRESHOLD_FAMILIES.items())


# ------------------------------------------------------------------ a registered family
@njit
def toy_threshold(code, fparams, table, t, n_a, n_b, state_a, state_b):
    """A toy threshold family, compiled here and nowhere in the package: ``table[0] + ln(1 +
    n_a n_b / (n_a + n_b))`` from 3 samples of each arm on, ``+inf`` before."""
    if n_a < 3 or n_b < 3:
        return math.inf
    return table[0] + math.log1p(n_a * n_b / (n_a + n_b))


def toy_constants(K, log_inv_delta, params):
    """The toy family's constant ``ln(1/delta) + ln(K - 1)``."""
    return [log_inv_delta + math.log(K - 1)]


def toy_threshold_value(K: int, delta: float, n_a: int, n_b: int) -> float:
    """The toy family's threshold, written out in Python."""
    if n_a < 3 or n_b < 3:
        return math.inf
    return math.log(1 / delta) + math.log(K - 1) + math.log(1 + n_a * n_b / (n_a + n_b))


def z_ev(means, var, counts, best, a) -> float:
    """``Z^EV_a``: the Gaussian GLR of ``best`` against ``a`` with the empirical variances
    plugged in, written out."""
    d = means[best] - means[a]
    if d <= 0:
        return 0.0
    return 0.5 * d * d / (var[best] / counts[best] + var[a] / counts[a])


def toy_run(mu, sigma2, n0: int, rng, delta: float, max_samples: int):
    """A run of the toy rule with the EV-GLR stopping rule and the toy family, written out
    in Python: ``(tau, recommendation, counts)``."""
    K = len(mu)
    sd = np.sqrt(sigma2)
    counts, means, m2 = [0] * K, [0.0] * K, [0.0] * K

    def observe(a):
        x = mu[a] + sd[a] * rng.standard_normal()
        n = counts[a] + 1
        d = x - means[a]
        means[a] += d / n
        m2[a] += d * (x - means[a])
        counts[a] = n

    for _ in range(n0):
        for a in range(K):
            observe(a)
    t = n0 * K
    while True:
        best = max(range(K), key=lambda a: (means[a], -a))
        var = [m2[a] / counts[a] for a in range(K)]
        if all(
            z_ev(means, var, counts, best, a)
            > toy_threshold_value(K, delta, counts[best], counts[a])
            for a in range(K)
            if a != best
        ):
            break
        if t >= max_samples:
            break
        p = t % (K + 1)
        observe(0 if p == 0 else p - 1)
        t += 1
    return t, max(range(K), key=lambda a: (means[a], -a)), counts


@pytest.fixture
def toy_family(monkeypatch):
    """The toy kernel's record in the registry for one test, a family of the EV-GLR
    stopping rule."""
    (fam,) = with_records(
        monkeypatch,
        ThresholdFamily(
            name="toy-thr",
            rules=("EV-GLR",),
            delta_correct=False,
            kernel=toy_threshold,
            constants=f"{__name__}:toy_constants",
        ),
    )
    return fam


def test_family_kernels_are_checked_in_the_record():
    fam = ThresholdFamily
    with pytest.raises(ValueError, match="code >= 0"):
        fam(name="x", rules=("GLR",))
    with pytest.raises(ValueError, match="code left unset"):
        fam(name="x", code=registry.BOX, rules=("GLR",), kernel=toy_threshold)
    with pytest.raises(ValueError, match="per-arm state"):
        fam(name="x", rules=("GLR",), stateful=True, kernel=toy_threshold)
    with pytest.raises(ValueError, match="rules"):
        fam(name="x", rules=("GLRT",), kernel=toy_threshold)
    with pytest.raises(ValueError, match="module:function"):
        fam(name="x", rules=("GLR",), kernel="no_function_named")
    with pytest.raises(ValueError, match="'box' is in the table twice"):
        box = fam(name="box", rules=("GLR",), kernel=toy_threshold)
        registry.family_table([*THRESHOLD_FAMILIES.values(), box])
    named = fam(name="x", rules=("GLR",), kernel=f"{__name__}:toy_threshold")
    assert named.threshold_kernel() is toy_threshold
    assert registry.THRESHOLD_FAMILIES["box"].threshold_kernel() is None


def test_toy_family_values_against_the_formula(toy_family):
    from baiuv.thresholds import EV_FAMILIES, FAMILIES, initial_count, pair_threshold

    assert "toy-thr" in FAMILIES and "toy-thr" in EV_FAMILIES  # the lists of its table
    assert "toy-thr" not in registry.GLR_FAMILIES
    for K, delta, na, nb in [(2, 0.1, 3, 3), (5, 0.01, 7, 40), (10, 1e-5, 2, 9), (3, 0.5, 80, 4)]:
        got = pair_threshold("toy-thr", n_a=na, n_b=nb, K=K, delta=delta)
        assert got == pytest.approx(toy_threshold_value(K, delta, na, nb), rel=1e-14, abs=0)
    with pytest.raises(ValueError, match="its own kernel"):
        initial_count("toy-thr", 2, 0.1)


def test_toy_family_through_config_validation_one_shard_and_the_identifier(
    toy_rule, toy_family, monkeypatch
):
    from baiuv import BestArmIdentifier
    from baiuv.experiments.stopping_times import experiment_from_config, run_shard
    from baiuv.registry import run_parameters
    from baiuv.simulation.engine import RunSettings
    from baiuv.simulation.rng import generator_of, run_seed

    config = _default_config()
    config["simulation"]["threshold"] = "toy-thr"
    config["delta_correct"]["ev_thresholds"] = ["heuristic", "toy-thr", "toy-thr-lazy"]
    validate_config(config, SCHEMA)
    # without its record the same configuration is refused, naming the field
    _refused_without(monkeypatch, THRESHOLD_FAMILIES, "toy-thr", "simulation.threshold", config)
    # one shard of the toy rule (EV-GLR) stopped by the toy family, against the runs
    # written out in Python with the same random streams
    sim = config["simulation"]
    instances = {i["name"]: i for i in config["instances"]}
    exp = experiment_from_config(
        "toyf", {"kind": "named", "instance": "easy", "runs": 4}, instances
    )
    settings = RunSettings(**run_parameters(sim) | {"delta": 0.1, "max_samples": 20_000})
    assert settings.threshold == "toy-thr"
    df = run_shard(exp, "toy", seed=2, settings=settings)
    mu, sigma2 = np.array(instances["easy"]["mu"]), np.array(instances["easy"]["sigma2"], float)
    K = mu.size
    for row in df.itertuples():
        rng = generator_of(run_seed(2, "toyf", row.instance, "toy", row.run))
        tau, rec, counts = toy_run(mu, sigma2, settings.n0, rng, 0.1, settings.max_samples)
        assert (row.stopping_time, row.recommendation, list(row.counts)) == (tau, rec, counts)
        assert not row.truncated and tau > settings.n0 * K
    # the identifier stops with the same family: its thresholds are the formula's
    idf = BestArmIdentifier(K, 0.1, sampling="EV-TaS", threshold="toy-thr", n0=3, rng=0)
    gen = np.random.default_rng(5)
    while not idf.done:
        arm = idf.next_arm()
        idf.observe(arm, mu[arm] + np.sqrt(sigma2[arm]) * gen.standard_normal())
        if not idf.in_initialisation:
            thr, n, best = idf.thresholds(), idf.counts, int(np.argmax(idf.means))
            for a in range(K):
                want = math.nan if a == best else toy_threshold_value(K, 0.1, n[best], n[a])
                assert thr[a] == pytest.approx(want, rel=1e-14, abs=0, nan_ok=True)
    assert idf.stop_reason == "glr" and idf.threshold == "toy-thr"
    z, thr = idf.glr(), idf.thresholds()
    assert all(z[a] > thr[a] for a in range(K) if a != idf.recommendation)
    # observe_many records the rows one by one with the family's kernel: same stop
    again = BestArmIdentifier(K, 0.1, sampling="EV-TaS", threshold="toy-thr", n0=3, strict=False)
    arms = np.tile(np.arange(K), 400)
    vals = mu[arms] + np.sqrt(sigma2[arms]) * np.random.default_rng(6).standard_normal(arms.size)
    used = again.observe_many(arms, vals)
    one = BestArmIdentifier(K, 0.1, sampling="EV-TaS", threshold="toy-thr", n0=3, strict=False)
    for i in range(used):
        one.observe(int(arms[i]), float(vals[i]))
    assert one.done and again.done and one.summary() == again.summary()


def test_the_student_calibrated_heuristic_is_a_family_beyond_the_papers():
    """``ev-heuristic-student`` is a registry family (EV-GLR, not δ-correct) that the
    paper's threshold figures and tables leave out; its values are its kernel's formula."""
    from baiuv.plotting.thresholds import figure_families
    from baiuv.thresholds import initial_count, pair_threshold
    from baiuv.thresholds.kernels import ev_heuristic_student

    fam = registry.THRESHOLD_FAMILIES["ev-heuristic-student"]
    assert fam.rules == ("EV-GLR",) and not fam.delta_correct and not fam.paper
    assert fam.name in selection("ev_threshold_variants") and fam.name not in registry.GLR_FAMILIES
    assert fam.name not in registry.PAPER_FAMILIES and fam.name not in figure_families("all")
    assert initial_count(fam.name, 3, 0.01) == 2
    for na, nb, lid in [(2, 2, 4.6), (3, 50, 4.6), (40, 7, 20.0), (1, 9, 4.6)]:
        got = pair_threshold(fam.name, n_a=na, n_b=nb, K=4, log_inv_delta=lid)
        assert got == ev_heuristic_student(na, nb, lid)
