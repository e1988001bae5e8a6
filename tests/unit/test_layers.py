"""The package's layers: no import (function-local ones included) from a lower layer to a
higher one, no import circle across modules, no private name imported across modules of the
layers that hold the experiments, the report and the pipeline."""

import ast
import functools
from collections import defaultdict
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src" / "baiuv"

#: Rank of each top-level module or package: an import may only go to an equal or lower rank.
RANK = {
    "_deferred": 0,
    "_extras": 0,
    "storage": 0,
    "claims": 0,
    "tables": 0,
    "registry": 1,
    "registry_parameters": 1,
    "model": 2,
    "thresholds": 3,
    "simulation": 4,
    "warmup": 5,
    "experiments": 6,
    "studies": 7,
    "plotting": 8,
    "report": 8,
    "pipeline": 9,
    "cli": 9,
    "cli_plan": 9,
    "cli_output": 9,
    "cli_rows": 9,
    "cli_replay": 9,
    "__main__": 10,
}
LEAVES = ("baiuv.claims", "baiuv.tables")


def _module(path: Path) -> str:
    parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path):
    """``(target module, imported names, line)`` of every import of ``path``, function-local
    ones included."""
    mod = _module(path)
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = mod.split(".") if path.name == "__init__.py" else mod.split(".")[:-1]
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            yield target, [a.name for a in node.names], node.lineno
        elif isinstance(node, ast.Import):
            for a in node.names:
                yield a.name, [], node.lineno


@functools.cache
def _edges() -> tuple:
    return tuple(_walk())


def _walk():
    files = sorted(SRC.rglob("*.py"))
    modules = {_module(p) for p in files}
    for p in files:
        mod = _module(p)
        if mod == "baiuv":  # the package's facade re-exports every layer (D105)
            continue
        for target, names, line in _imports(p):
            if not target.startswith("baiuv."):
                continue
            while target not in modules:
                target = target.rsplit(".", 1)[0]
            yield mod, target, names, line


def _top(mod: str) -> str:
    return mod.split(".")[1]


def test_every_top_level_module_has_a_rank():
    tops = {_module(p).split(".")[1] for p in SRC.rglob("*.py") if _module(p) != "baiuv"}
    assert tops == set(RANK)


def test_no_import_from_a_lower_layer_to_a_higher_one():
    up = [
        f"{a}:{line} -> {b}"
        for a, b, _, line in _edges()
        if RANK[_top(b)] > RANK[_top(a)] and b != "baiuv"
    ]
    assert not up, up


@pytest.mark.parametrize("leaf", LEAVES)
def test_leaves_import_nothing_of_the_package(leaf):
    assert not [b for a, b, _, _ in _edges() if a == leaf]


def test_no_import_circle_across_modules():
    graph = defaultdict(set)
    for a, b, _, _ in _edges():
        # a package's __init__ importing its own modules is not a circle of the layers
        if b != a and not (a.startswith(b + ".") or b.startswith(a + ".")):
            graph[a].add(b)
    cycles = []
    state: dict[str, int] = {}

    def visit(u, stack):
        state[u] = 1
        stack.append(u)
        for v in sorted(graph[u]):
            if state.get(v) == 1:
                cycles.append(stack[stack.index(v) :] + [v])
            elif v not in state:
                visit(v, stack)
        stack.pop()
        state[u] = 2

    for u in sorted(graph):
        if u not in state:
            visit(u, [])
    assert not cycles, cycles


@pytest.mark.parametrize(
    "layer", ["experiments", "studies", "report", "plotting", "pipeline", "storage"]
)
def test_no_private_name_imported_across_modules(layer):
    private = [
        f"{a}:{line} imports {n} from {b}"
        for a, b, names, line in _edges()
        if _top(a) == layer and b != a
        for n in names
        if n.startswith("_")
    ]
    assert not private, private
