"""The dispatcher of the built-in threshold families is generated from the registry (D395):
the committed module is the generator's text, every built-in record names a module that
implements it, and a new record gets its branch."""

import dataclasses
import pkgutil

import pytest

from baiuv import registry
from baiuv.thresholds import builtin, generate_dispatch


def test_the_committed_dispatcher_is_the_generators_text():
    """Fails when a record or a family module changed without rerunning
    ``python -m baiuv.thresholds.generate_dispatch``."""
    assert generate_dispatch.TARGET.read_text(encoding="utf-8") == generate_dispatch.render()


def test_every_builtin_record_names_its_module_and_every_module_a_record():
    modules = {f"{builtin.__name__}.{m.name}" for m in pkgutil.iter_modules(builtin.__path__)}
    named = {f.module for f in registry.THRESHOLD_FAMILIES.values() if f.kernel is None}
    assert named == modules
    for f in registry.THRESHOLD_FAMILIES.values():
        if f.kernel is None:
            assert f.code >= 0 and f.module


def test_one_branch_per_record_under_its_code():
    text = generate_dispatch.render()
    value = text.split("def family_upper_bound")[0]
    for f in registry.THRESHOLD_FAMILIES.values():
        leaf = f.module.rpartition(".")[2]
        assert f"    if code == {f.code}:  # {f.name}\n        return {leaf}.value(" in value
    state = text.split("def family_update_state")[1]
    assert state.count("if code ==") == len(registry.STATEFUL)


def test_a_new_record_gets_its_branch_and_a_wrong_one_is_refused(monkeypatch):
    box = registry.THRESHOLD_FAMILIES["box"]
    toy = dataclasses.replace(box, name="toy-box", code=90)
    monkeypatch.setitem(registry.THRESHOLD_FAMILIES, "toy-box", toy)
    with pytest.raises(ValueError, match="does not list family 'toy-box'"):
        generate_dispatch.render()
    monkeypatch.setattr("baiuv.thresholds.builtin.box.NAMES", ("box", "ev-box", "toy-box"))
    text = generate_dispatch.render()
    assert "    if code == 90:  # toy-box\n        return box.value(" in text
    assert "    if code == 90:  # toy-box\n        return box.upper_bound(" in text
    stateful = dataclasses.replace(toy, stateful=True)
    monkeypatch.setitem(registry.THRESHOLD_FAMILIES, "toy-box", stateful)
    with pytest.raises(ValueError, match="has no update_state"):
        generate_dispatch.render()
