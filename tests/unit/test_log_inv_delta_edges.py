"""ln(1/δ) inside (decision D252): δ is converted once, at the edges.

Only ``ln(1/delta)`` enters the thresholds. The functions that accept either ``delta`` or
``log_inv_delta`` are the user-facing edges listed here; every other function (private
helpers, log terms, experiment cells, the ``_*_lid`` cores) takes ``log_inv_delta`` only.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import baiuv

SRC = Path(baiuv.__file__).parent

#: The edges, ``(module, qualified name)``: the public threshold functions of
#: ``baiuv.thresholds`` (``__all__``; ``box_initial_condition`` is public in
#: ``baiuv.thresholds.concentration``) and the method of the public ``ThresholdParams``, the
#: public ``fhn_n0`` of ``baiuv.simulation``, and the resolver itself.
ALLOWED_FUNCTIONS = {
    ("baiuv.model.validate", "log_inv_delta_of"),
    ("baiuv.simulation.engine", "fhn_n0"),
    ("baiuv.thresholds.concentration", "eps_mu"),
    ("baiuv.thresholds.concentration", "one_minus_eps_minus"),
    ("baiuv.thresholds.concentration", "one_plus_eps_plus"),
    ("baiuv.thresholds.concentration", "mean_deviation_bound"),
    ("baiuv.thresholds.concentration", "variance_upper_bound"),
    ("baiuv.thresholds.concentration", "variance_lower_bound"),
    ("baiuv.thresholds.concentration", "variance_lower_initial_time"),
    ("baiuv.thresholds.concentration", "box_initial_condition"),
    ("baiuv.thresholds.concentration", "box_initial_count"),
    ("baiuv.thresholds.concentration", "monotonicity_initial_count"),
    ("baiuv.thresholds.families", "ThresholdParams.etas"),
    ("baiuv.thresholds.builtin.student", "student_log_ratio"),
    ("baiuv.thresholds.builtin.student", "student_quantile"),
    ("baiuv.thresholds.families", "initial_count"),
    ("baiuv.thresholds.families", "make_threshold"),
    ("baiuv.thresholds.families", "update_arm_state"),
    ("baiuv.thresholds.families", "arm_state_from_samples"),
    ("baiuv.thresholds.families", "bob_constants"),
    ("baiuv.thresholds.families", "pair_threshold"),
}

#: Classes with both fields: the run settings behind ``baiuv.BestArmIdentifier``,
#: ``baiuv identify`` and the configuration sections (validated there, resolved once in
#: ``__post_init__``).
ALLOWED_CLASSES = {("baiuv.simulation.engine", "RunSettings")}


def _module_name(path: Path) -> str:
    rel = path.relative_to(SRC.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _both(names) -> bool:
    return "delta" in names and "log_inv_delta" in names


def _taking_both(tree: ast.AST, module: str) -> tuple[set, set]:
    """``(functions, classes)`` of ``tree`` whose parameters (fields) hold both ``delta`` and
    ``log_inv_delta``, by qualified name."""
    functions, classes = set(), set()

    def visit(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                a = child.args
                params = [p.arg for p in a.posonlyargs + a.args + a.kwonlyargs]
                if _both(params):
                    functions.add((module, prefix + child.name))
                visit(child, f"{prefix}{child.name}.")
            elif isinstance(child, ast.ClassDef):
                fields = [
                    s.target.id
                    for s in child.body
                    if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)
                ]
                if _both(fields):
                    classes.add((module, prefix + child.name))
                visit(child, f"{prefix}{child.name}.")
            else:
                visit(child, prefix)

    visit(tree, "")
    return functions, classes


def _scan(root: Path = SRC) -> tuple[set, set]:
    functions, classes = set(), set()
    for path in sorted(root.rglob("*.py")):
        f, c = _taking_both(ast.parse(path.read_text(encoding="utf-8")), _module_name(path))
        functions |= f
        classes |= c
    return functions, classes


def test_only_the_edges_take_both_delta_and_log_inv_delta():
    functions, classes = _scan()
    extra = sorted(functions - ALLOWED_FUNCTIONS) + sorted(classes - ALLOWED_CLASSES)
    assert not extra, (
        f"{extra} take both delta and log_inv_delta: convert delta once at the edge "
        "(log_inv_delta_of) and pass log_inv_delta inward (decision D252)"
    )
    # no stale entry: every edge listed still takes both
    assert functions == ALLOWED_FUNCTIONS and classes == ALLOWED_CLASSES


def test_the_edges_are_public():
    for module, qualname in sorted(ALLOWED_FUNCTIONS | ALLOWED_CLASSES):
        mod = importlib.import_module(module)
        head = qualname.split(".")[0]
        public = getattr(mod, "__all__", [n for n in vars(mod) if not n.startswith("_")])
        assert head in public, f"{module}.{qualname} is an edge but not public"
        assert not qualname.split(".")[-1].startswith("_"), qualname
    thresholds = importlib.import_module("baiuv.thresholds")
    for module, qualname in ALLOWED_FUNCTIONS:
        if module.startswith("baiuv.thresholds.") and qualname != "box_initial_condition":
            assert qualname.split(".")[0] in thresholds.__all__, qualname


def test_the_scan_sees_a_function_outside_the_edges():
    """The scan finds a nested method and a dataclass-like class taking both."""
    src = (
        "class A:\n"
        "    def f(self, delta=None, *, log_inv_delta=None): ...\n"
        "class S:\n"
        "    delta: float\n"
        "    log_inv_delta: float\n"
        "def g(log_inv_delta): ...\n"
    )
    functions, classes = _taking_both(ast.parse(src), "m")
    assert functions == {("m", "A.f")} and classes == {("m", "S")}


def test_an_edge_resolves_delta_exactly_once(monkeypatch):
    """A public function converts ``delta`` once and passes ``ln(1/delta)`` to the cores:
    ``log_inv_delta_of`` runs once per call, however many layers the call goes through
    (e.g. ``pair_threshold`` -> spec -> initial counts -> BoB constants)."""
    import numpy as np

    from baiuv.model import validate
    from baiuv.simulation import engine
    from baiuv.thresholds import concentration as conc
    from baiuv.thresholds import families as fam
    from baiuv.thresholds.builtin import student

    x = np.linspace(-1.0, 1.0, 300)
    st = fam.arm_state_from_samples("bob", x, K=2, delta=0.01)
    calls = []

    def counting(*args, **kwargs):
        calls.append(args)
        return validate.log_inv_delta_of(*args, **kwargs)

    for module in (conc, fam, engine, student):
        monkeypatch.setattr(module, "log_inv_delta_of", counting)
    cases = {
        "pair_threshold bob": lambda: fam.pair_threshold(
            "bob", n_a=300, n_b=300, K=2, delta=0.01, state_a=st, state_b=st
        ),
        "pair_threshold student": lambda: fam.pair_threshold(
            "student", n_a=30, n_b=30, K=2, delta=0.01
        ),
        "bob_constants": lambda: fam.bob_constants("bob", 300, 300, st, st, K=2, delta=0.01),
        "arm_state_from_samples": lambda: fam.arm_state_from_samples("kl", x, K=2, delta=0.01),
        "update_arm_state": lambda: fam.update_arm_state(
            "kl", fam.new_arm_state(), 1, 0.0, 0.0, K=2, delta=0.01
        ),
        "make_threshold": lambda: fam.make_threshold("bob", 3, 0.01),
        "initial_count": lambda: fam.initial_count("bob", 3, 0.01),
        "student_log_ratio": lambda: fam.student_log_ratio(5, 0.01),
        "etas": lambda: fam.ThresholdParams().etas(0.01),
        "box_initial_count": lambda: conc.box_initial_count(0.01, eta0=0.2),
        "monotonicity_initial_count": lambda: conc.monotonicity_initial_count(
            0.01, eta0=0.2, eta1=0.2
        ),
        "eps_mu": lambda: conc.eps_mu(10.0, 0.01),
        "fhn_n0": lambda: engine.fhn_n0(0.01),
    }
    for name, call in cases.items():
        fam._spec_cached.cache_clear()  # a cold cache walks every layer
        calls.clear()
        call()
        assert calls == [(0.01, None)], f"{name}: log_inv_delta_of called {calls}"
    fam._spec_cached.cache_clear()
