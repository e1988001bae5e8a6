"""The experiments' records (D370): what the pipeline reads of each experiment, checked
against the configuration files, the report's entries and the records' own shard plans;
the records found in their packages (D402) and the functions they name for the workflow's
shared scripts."""

import importlib
import itertools
import pkgutil
import re
from pathlib import Path

import pytest
import yaml

from baiuv.experiments.spec import ExperimentSpec
from baiuv.pipeline.config import merge_config_files, optional_sections, validate_config
from baiuv.pipeline.specs import (
    SPEC_PACKAGES,
    enabled_specs,
    experiment_step,
    spec_modules,
    spec_named,
    specs,
)
from baiuv.report.pages import report_entries

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = str(ROOT / "workflow" / "schemas" / "config.schema.yaml")


def _config(*overlays):
    base = ROOT / "config" / "config.yaml"
    cfg = merge_config_files(base, [ROOT / "config" / o for o in overlays])
    return validate_config(cfg, SCHEMA)


def test_one_record_per_module_with_unique_names():
    records = specs()
    assert len(records) == len(spec_modules())
    orders = [s.order for s in records]
    assert orders == sorted(orders) and len(set(orders)) == len(orders)
    assert all(isinstance(s, ExperimentSpec) for s in records)
    assert len({s.name for s in records}) == len(records)
    kinds = [k.name for s in records for k in s.shard_kinds]
    assert len(set(kinds)) == len(kinds)
    with pytest.raises(AttributeError):
        records[0].name = "other"  # frozen


def test_the_paper_first_then_the_studies():
    """The report's order (D371): no paper experiment after a study, a study's record lives
    in ``baiuv.studies``, and the report's categories follow: the studies' after the
    paper's, each named "Beyond the paper"."""
    beyond = [s.beyond_paper for s in specs()]
    assert beyond == sorted(beyond) and any(beyond) and not all(beyond)
    for module, spec in zip(spec_modules(), specs(), strict=True):
        assert module.startswith("baiuv.studies.") == spec.beyond_paper, module
    cfg = _config()
    entries = report_entries(specs())
    by_path = {e["path"]: entries.categories[e["category"]] for e in entries.entries.values()}
    order = []  # the categories of the records' figures, in the records' order
    for spec in enabled_specs(cfg):
        for t in spec.targets(cfg):
            if t in by_path and by_path[t] not in [c for c, _ in order]:
                order.append((by_path[t], spec.beyond_paper))
    assert [c for c, _ in order] == sorted(c for c, _ in order)
    assert all(("Beyond the paper" in c) == study for c, study in order)


def test_optional_sections_are_the_records_sections():
    assert {"delta_correct", "asymptotic", "audit", "ev_remedies"} <= set(optional_sections())
    default = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    assert all(default.get(key) for key in optional_sections())


def test_a_records_check_refuses_a_bad_section():
    cfg = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    cfg["delta_correct"]["instances"] = ["nowhere"]
    with pytest.raises(ValueError, match=r"delta_correct.instances\[0\]: unknown instance"):
        validate_config(cfg, SCHEMA)


def test_a_records_section_schema_is_in_the_configuration_schema():
    """Every record with a section carries its section's schema (D416), which the loaded
    schema holds under the section's name; the schema file writes none of them."""
    from baiuv.pipeline.config import load_schema, raw_schema

    file = yaml.safe_load(Path(SCHEMA).read_text())["properties"]
    raw = raw_schema(SCHEMA)["properties"]
    resolved = load_schema(SCHEMA)["properties"]
    sections = [s for s in specs() if s.section is not None]
    assert {s.section for s in sections} == set(optional_sections())
    for spec in sections:
        assert spec.schema is not None and spec.section not in file, spec.name
        assert raw[spec.section] == spec.schema, spec.name
        assert spec.schema["additionalProperties"] is False, spec.name
        assert resolved[spec.section]["type"] == "object"
    assert "registry" in str(sections[0].schema)  # the marks stay in the record's copy


def test_a_new_records_section_is_validated_by_its_schema(monkeypatch):
    """A record's section schema validates its section and fills its defaults; a section
    the schema file defines too is refused."""
    from baiuv.pipeline import config as config_module
    from baiuv.pipeline import specs as specs_module
    from baiuv.pipeline.config import ConfigError, compose_schema

    toy = ExperimentSpec(
        name="toy",
        order=65,
        section="toy",
        schema={
            "type": "object",
            "description": "a toy study",
            "additionalProperties": False,
            "required": ["size"],
            "properties": {
                "size": {"type": "integer", "minimum": 1, "description": "its size"},
                "n0": {"type": "integer", "minimum": 2, "registry_default": "n0"},
            },
        },
        beyond_paper=True,
    )
    records = specs()
    for module in (specs_module, config_module):
        monkeypatch.setattr(module, "specs", lambda: (*records, toy))
    base = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    cfg = validate_config({**base, "toy": {"size": 3}}, SCHEMA)
    assert cfg["toy"] == {"size": 3, "n0": 2}
    for bad, where in (({"size": 0}, "toy.size"), ({"size": 1, "other": 1}, "toy")):
        with pytest.raises(ConfigError, match=rf"^{where}: "):
            validate_config({**base, "toy": bad}, SCHEMA)
    with pytest.raises(ValueError, match="'toy' is defined by the schema file and by"):
        compose_schema({"properties": {"toy": {}}})


def test_targets_hold_every_figure_of_the_report():
    """The default configuration runs every experiment: the figures of the records'
    targets are the figures of the report's entries, in both formats."""
    cfg = _config()
    targets = [t for s in enabled_specs(cfg) for t in s.targets(cfg)]
    assert len(targets) == len(set(targets))
    entries = report_entries(specs()).entries
    figures = {e["path"] for e in entries.values() if "/figures/" in e["path"]}
    assert {t for t in targets if t.endswith(".png")} == figures
    assert {t for t in targets if t.endswith(".pdf")} == {
        f.removesuffix(".png") + ".pdf" for f in figures
    }
    tables = {e["markdown"] for e in entries.values() if "markdown" in e}
    markdown = {t for t in targets if t.endswith(".md")}
    # every table with a page of the report; a timing table may have none
    assert tables <= markdown
    assert all(t.startswith("results/timings/") for t in markdown - tables)


def test_a_skipped_section_drops_its_record():
    cfg = _config("paper.yaml")
    names = [s.name for s in enabled_specs(cfg)]
    assert "ev_remedies" in names
    assert {"delta_correct", "asymptotic"} <= set(names)
    assert "audit" not in names


def test_report_inputs_have_distinct_keys():
    cfg = _config()
    keys = [k for s in enabled_specs(cfg) for k in s.report_inputs(cfg)]
    assert len(keys) == len(set(keys))
    assert "decisions" not in keys  # the report rule's own input


def test_shard_plans_of_the_tiny_configuration():
    """Each kind's cells: the product of its section's lists (counted here from the
    configuration), each with the parameters of one shard."""
    cfg = _config("test.yaml")
    plans = {k.name: (k, k.plan(cfg)) for s in enabled_specs(cfg) for k in s.shard_kinds}
    sim = cfg["simulation"]
    expected = {
        "simulations": len(sim["experiments"]) * len(sim["algorithms"]) * sim["shards"],
        "delta_correct": sum(
            len(cfg["delta_correct"]["ev_thresholds" if a.startswith("EV") else "thresholds"])
            for _, a in itertools.product(
                cfg["delta_correct"]["instances"], cfg["delta_correct"]["algorithms"]
            )
        )
        * cfg["delta_correct"]["shards"],
    }
    for name, count in expected.items():
        assert len(plans[name][1].cells) == count, name
    for name, (kind, plan) in plans.items():
        for cell in plan.cells:
            p = plan.params("h", **{k: str(v) for k, v in cell.items()})
            assert p["code"] == "h" and p["shard"] == cell["shard"], name
            assert set(kind.output) == {"runs", "timings"}
            kind.output["runs"].format(**cell)  # the cell fills the pattern


def test_records_are_found_in_their_packages():
    """Every module of the packages that assigns ``SPEC`` is found, and no other (D402):
    a new experiment's module is its record's whole registration."""
    found = set(spec_modules())
    for package in SPEC_PACKAGES:
        for info in pkgutil.iter_modules(importlib.import_module(package).__path__):
            module = f"{package}.{info.name}"
            source = Path(importlib.util.find_spec(module).origin).read_text()
            has_spec = re.search(r"^SPEC\b.*=", source, re.M) is not None
            assert (module in found) == has_spec, module
    for module in found:
        spec = importlib.import_module(module).SPEC
        assert spec_named(spec.name) is spec


def test_a_new_record_is_found_and_ordered(tmp_path, monkeypatch):
    """A module written into a package with a ``SPEC`` takes its place by ``order``."""
    import sys

    import baiuv.studies
    from baiuv.pipeline import specs as specs_module

    (tmp_path / "toy_study.py").write_text(
        "from baiuv.experiments.spec import ExperimentSpec\n"
        'SPEC = ExperimentSpec(name="toy_study", order=65, beyond_paper=True)\n'
    )
    monkeypatch.setattr(baiuv.studies, "__path__", [*baiuv.studies.__path__, str(tmp_path)])
    specs_module._declared.cache_clear()
    specs_module.specs.cache_clear()
    try:
        names = [s.name for s in specs()]
        assert names.index("toy_study") == names.index("delta_correct") + 1
        assert spec_named("toy_study").order == 65
    finally:
        monkeypatch.undo()
        sys.modules.pop("baiuv.studies.toy_study", None)
        specs_module._declared.cache_clear()
        specs_module.specs.cache_clear()
    assert "toy_study" not in [s.name for s in specs()]


@pytest.mark.parametrize(
    "name,step", [(s.name, step) for s in specs() for step in s.steps], ids=str
)
def test_named_steps_resolve(name, step):
    """Every function a record names for the shared scripts exists and is callable."""
    assert callable(experiment_step(name, step))


def test_a_missing_step_or_record_is_named():
    with pytest.raises(KeyError, match="names no 'aggregate' step"):
        experiment_step("ev_remedies", "aggregate")
    with pytest.raises(KeyError, match="no experiment record named 'nowhere'"):
        spec_named("nowhere")


def test_rules_of_the_shared_scripts_name_a_record_with_the_step():
    """A rule calling ``aggregate.py``, ``figure.py`` or ``table.py`` passes
    ``params: experiment=`` the name of a record naming that step."""
    steps = {s.name: set(s.steps) for s in specs()}
    calls = 0
    for smk in sorted((ROOT / "workflow" / "rules").glob("*.smk")):
        for rule in re.split(r"\n\s*rule ", smk.read_text())[1:]:
            script = re.search(r'"\.\./scripts/(aggregate|figure|table)\.py"', rule)
            if script is None:
                continue
            calls += 1
            name = re.search(r'experiment="(\w+)"', rule)
            assert name, f"{smk.name}: rule {rule.split(':')[0]} names no experiment"
            assert script.group(1) in steps[name.group(1)], (smk.name, name.group(1))
    assert calls >= 9


def test_outputs_page_names_every_figure_and_table():
    """``docs/outputs.md`` names every figure and Markdown table of the records' targets
    (a path, ``name.{pdf,png}`` or a glob such as ``audit_*.md``)."""
    import fnmatch

    text = (ROOT / "docs" / "outputs.md").read_text()
    named = set()
    for token in re.findall(r"`([^`\s]+)`", text):
        named |= {token.replace("{pdf,png}", ext) for ext in ("pdf", "png")}
    cfg = _config()
    targets = [t for s in enabled_specs(cfg) for t in s.targets(cfg)]
    missing = [t for t in targets if not any(fnmatch.fnmatch(t, n) for n in named)]
    assert not missing, f"results missing from docs/outputs.md: {missing}"


def test_the_outputs_table_is_the_records():
    """The block of ``docs/outputs.md`` between its marks is the generator's table of the
    records and the default configuration's targets (D415); rerun
    ``python -m baiuv.pipeline.outputs_page`` after changing a record's entries or
    targets."""
    from baiuv.pipeline import outputs_page

    text = (ROOT / "docs" / "outputs.md").read_text()
    current = outputs_page.default_table(ROOT / "config" / "config.yaml")
    assert outputs_page.replace_block(text, current) == text, (
        "docs/outputs.md is not current: run python -m baiuv.pipeline.outputs_page"
    )


def test_a_new_record_gets_its_rows_in_the_outputs_table():
    """A record's entries and its targets without an entry become rows, in the records'
    order; a page without the marks is refused."""
    from baiuv.experiments.spec import ReportEntry
    from baiuv.pipeline import outputs_page

    toy = ExperimentSpec(
        name="toy",
        order=65,
        category="Beyond the paper, toy",
        entries=(
            ReportEntry(key="toy", path="results/figures/toy.png", shows="toy figure"),
            ReportEntry(
                key="toy_table",
                path="results/tables/toy.html",
                paper=("fig:random_instances_heuristic_threshold",),
                shows="toy table",
                markdown="results/tables/toy.md",
                caption="toy_table.rst",
            ),
        ),
    )
    targets = ["results/figures/toy.pdf", "results/figures/toy.png", "results/timings/toy.md"]
    table = outputs_page.outputs_table([toy], targets)
    assert table.splitlines()[3:] == [
        "| `results/figures/toy.{pdf,png}` | beyond the paper: toy figure |",
        "| `results/tables/toy.md` | Figure 2: toy table |",
        "| `results/timings/toy.md` | timings of `toy`; machine-dependent, names the machine |",
    ]
    page = f"prose\n{outputs_page.START}\nold\n{outputs_page.END}\nmore prose\n"
    assert outputs_page.replace_block(page, table) == (
        f"prose\n{outputs_page.START}\n{table}{outputs_page.END}\nmore prose\n"
    )
    with pytest.raises(ValueError, match="no block"):
        outputs_page.replace_block("prose only\n", table)
