"""The documentation's generated pages (``docs/_ext``): the configuration reference
describes every key of the schema, the API reference lists every public name, and the
performance page holds only numbers read from files."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import yaml

DOCS = Path(__file__).resolve().parents[2] / "docs"
sys.path.insert(0, str(DOCS / "_ext"))

import baiuv_docs  # noqa: E402
import config_reference  # noqa: E402


def test_every_schema_key_has_a_description():
    keys = config_reference.schema_keys()
    assert len(keys) > 100
    missing = [k.path for k in keys if not k.description]
    assert not missing, f"configuration keys without a description in the schema: {missing}"


def test_the_walk_reaches_every_kind_of_key():
    """Nested sections, list items, map entries, $ref definitions and registry defaults."""
    keys = {k.path: k for k in config_reference.schema_keys()}
    for path in (
        "seed",
        "instances[].sigma2",
        "characteristic_times.gap_sweep.grid.scale",
        "simulation.experiments.<name>.kind",
        "asymptotic.cells[].algorithm",
        "audit.families[].var_range",
        "publish.tables",
    ):
        assert path in keys, path
    from baiuv.registry import PARAMETERS

    fws = keys["simulation.fws_exponent"]
    assert fws.has_default and fws.default == PARAMETERS["fws_exponent"].default
    assert fws.description == PARAMETERS["fws_exponent"].description
    assert "`TCI`" in keys["simulation.algorithms"].kind  # the registry's names


def test_a_key_without_a_description_is_found():
    schema = yaml.safe_load(config_reference.SCHEMA.read_text())
    del schema["properties"]["seed"]["description"]
    missing = [k.path for k in config_reference.schema_keys(schema) if not k.description]
    assert missing == ["seed"]


def test_the_configuration_page_lists_every_key_with_the_default_config_values():
    page = config_reference.reference_markdown()
    for k in config_reference.schema_keys():
        assert f"| `{k.path}` |" in page or f"## `{k.path}`" in page, k.path
    assert "| `seed` | integer; >= 0 |  | `20230214` |" in page


def test_the_api_page_lists_every_public_name():
    page = baiuv_docs.api_rst()
    for name in baiuv_docs.API_MODULES:
        module = importlib.import_module(name)
        assert f".. currentmodule:: {name}" in page
        for public in module.__all__:
            listed = f"\n   {public}\n" in page or f":data:`{public}`" in page
            assert listed, (name, public)
    for used in ("BestArmIdentifier", "characteristic_time", "pair_threshold", "family_table"):
        assert f"\n   {used}\n" in page


def test_the_performance_page_without_benchmark_output_says_how_to_produce_it(
    tmp_path, monkeypatch
):
    bench = tmp_path / "benchmarks"
    bench.mkdir()
    (bench / "bench_x.py").write_text('"""Cost of x against y, as a ratio."""\n')
    monkeypatch.setattr(baiuv_docs, "REPO", tmp_path)
    page = baiuv_docs.performance_md()
    assert "| `benchmarks/bench_x.py` | Cost of x against y, as a ratio. |" in page
    assert "None in this checkout" in page and "not present in this checkout" in page
    out = bench / "out"
    out.mkdir()
    (out / "bench_x.txt").write_text("x: 1.25x faster than y (5 repeats)\n")
    (out / "sim_shard_a_TCI_0.tsv").write_text(
        "s\th:m:s\tmax_rss\tcpu_time\n2.5\t0:00:02\t300.0\t2.0\n"
    )
    (out / "sim_shard_a_TCI_1.tsv").write_text(
        "s\th:m:s\tmax_rss\tcpu_time\n1.5\t0:00:01\t310.0\t1.0\n"
    )
    page = baiuv_docs.performance_md()
    assert "x: 1.25x faster than y (5 repeats)" in page
    assert "| `sim_shard_a_TCI*` | 2 | 4.0 | 3.0 | 310 |" in page
