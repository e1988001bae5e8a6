"""The configuration reference, read from the configuration schema.

:func:`schema_keys` walks ``workflow/schemas/config.schema.yaml`` with the sections that the
experiments' records carry (:func:`baiuv.pipeline.config.raw_schema`, D416; properties, array
items, ``additionalProperties`` maps, ``$ref`` definitions, ``oneOf`` alternatives) and returns
every key with its type, constraints, default and description; :func:`reference_markdown`
renders them as the documentation's configuration page, next to the values of the default
configuration (``config/config.yaml``). A key's meaning is its schema ``description``, or,
for a run parameter (``registry_default: <name>``), the description of that parameter in
:data:`baiuv.registry.PARAMETERS`; a section's ``registry_parameters:`` mark adds the keys
of the rule parameters (:func:`baiuv.registry.schema_properties`). ``tests/unit/test_docs.py`` fails when a key has none.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]
SCHEMA = REPO / "workflow" / "schemas" / "config.schema.yaml"
DEFAULT_CONFIG = REPO / "config" / "config.yaml"
#: Keywords shown as constraints, with how they read.
CONSTRAINTS = {
    "minimum": ">= {}",
    "exclusiveMinimum": "> {}",
    "maximum": "<= {}",
    "exclusiveMaximum": "< {}",
    "minItems": "at least {} items",
    "maxItems": "at most {} items",
    "minProperties": "at least {} entries",
    "uniqueItems": "unique items",
    "pattern": "matches `{}`",
}


@dataclass
class Key:
    """One configuration key: its dotted path (``[]`` for an array item, ``<name>`` for
    an entry of a map), what it accepts, its default and its meaning."""

    path: str
    kind: str
    constraints: list[str] = field(default_factory=list)
    default: object = None
    has_default: bool = False
    description: str | None = None


def _registry():
    from baiuv import registry

    return registry


def _deref(node: dict, schema: dict) -> dict:
    """``node`` with a ``$ref`` to ``#/$defs/<name>`` merged in (local keys win)."""
    if "$ref" not in node:
        return node
    target = schema["$defs"][node["$ref"].rsplit("/", 1)[-1]]
    return {**_deref(target, schema), **{k: v for k, v in node.items() if k != "$ref"}}


def _kind(node: dict) -> str:
    t = node.get("type")
    if isinstance(t, list):
        t = " or ".join(t)
    if "registry" in node:
        names = _registry().selection(node["registry"])
        return f"{t or 'string'}, one of: " + ", ".join(f"`{n}`" for n in names)
    if "enum" in node:
        return " or ".join(f"`{v}`" for v in node["enum"])
    if t == "array" and isinstance(node.get("items"), dict):
        inner = node["items"]
        if inner.get("type") not in (None, "object"):
            return f"list of {_kind(inner)}"
    if "oneOf" in node and t is None:
        return " or ".join(_kind(a) for a in node["oneOf"] if isinstance(a, dict) and a)
    return t or "any"


def _description(node: dict) -> str | None:
    d = node.get("description")
    if d is None and "registry_default" in node:
        d = _registry().PARAMETERS[node["registry_default"]].description
    return " ".join(str(d).split()) if d is not None else None


def _text(markdown: str) -> str:
    """Schema prose as Markdown text: ``<`` would start an HTML tag."""
    return markdown.replace("<", "\\<")


def load() -> dict:
    """The configuration schema: the file with the records' sections, marks unresolved."""
    from baiuv.pipeline.config import raw_schema

    return raw_schema(SCHEMA)


def schema_keys(schema: dict | None = None) -> list[Key]:
    """Every key of the configuration schema, depth first, in the schema's order."""
    if schema is None:
        schema = load()
    out: list[Key] = []

    def visit(node: dict, path: str) -> None:
        node = _deref(node, schema)
        props = dict(node.get("properties") or {})
        if "registry_parameters" in node:  # the rule parameters' keys, from the registry
            props.update(_registry().schema_properties(node["registry_parameters"]))
        for name, sub in props.items():
            sub = _deref(sub, schema)
            key = Key(f"{path}.{name}" if path else name, _kind(sub))
            key.constraints = [
                fmt.format(sub[c])
                for c, fmt in CONSTRAINTS.items()
                if c in sub and sub[c] is not False
            ]
            if "registry_default" in sub:
                key.default, key.has_default = (
                    _registry().PARAMETERS[sub["registry_default"]].default,
                    True,
                )
            elif "default" in sub:
                key.default, key.has_default = sub["default"], True
            key.description = _description(sub)
            out.append(key)
            children(sub, key.path)

    def children(node: dict, path: str) -> None:
        visit(node, path)
        items = node.get("items")
        if isinstance(items, dict):
            visit(items, path + "[]")
        extra = node.get("additionalProperties")
        if isinstance(extra, dict):
            visit(extra, path + ".<name>")
        for alt in node.get("oneOf") or []:
            if isinstance(alt, dict) and alt.get("type") != "array":
                visit(alt, path)

    visit(schema, "")
    return out


def _default_value(config: dict, path: str):
    """The value of ``path`` in the default configuration (``None`` when absent)."""
    node = config
    for part in path.split("."):
        if "[]" in part or part == "<name>" or not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def _code(value) -> str:
    text = yaml.safe_dump(value, default_flow_style=True, width=10**6).strip()
    text = text.removesuffix("...").strip()
    return f"`{text}`".replace("|", "\\|")


def reference_markdown() -> str:
    """The configuration page: one table per top-level section."""
    schema = load()
    config = yaml.safe_load(DEFAULT_CONFIG.read_text())
    keys = schema_keys(schema)
    required_top = set(schema.get("required", []))
    lines = [
        "# Configuration reference",
        "",
        "Generated from `workflow/schemas/config.schema.yaml` and the sections of the",
        "experiments' records when the documentation is built, so it cannot drift from the",
        "schema that validates every run. *Default* is",
        "the value used when the key is left out (none: the key is required, or the",
        "feature is off); *config.yaml* is the value in the default configuration",
        "`config/config.yaml`. `[]` stands for an item of a list, `<name>` for an entry of",
        "a map. Unknown keys are rejected.",
        "",
        _text(_description(schema)),
        "",
    ]
    sections: dict[str, list[Key]] = {}
    for k in keys:
        sections.setdefault(k.path.split(".")[0].split("[")[0], []).append(k)
    for top, ks in sections.items():
        head = ks[0]
        req = "required" if top in required_top else "optional"
        lines += [f"## `{top}`", "", f"{_text(head.description or '')} ({req}, {head.kind})", ""]
        rows = ks[1:] if len(ks) > 1 else ks
        lines += ["| key | accepts | default | config.yaml | meaning |", "|---|---|---|---|---|"]
        for k in rows:
            accepts = k.kind + ("; " + ", ".join(k.constraints) if k.constraints else "")
            dflt = _code(k.default) if k.has_default else ""
            val = _default_value(config, k.path)
            cfg = _code(val) if val is not None and not isinstance(val, (dict, list)) else ""
            if isinstance(val, list) and len(str(val)) < 60:
                cfg = _code(val)
            desc = _text(k.description or "").replace("|", "\\|")
            accepts = accepts.replace("|", "\\|")
            lines.append(f"| `{k.path}` | {accepts} | {dflt} | {cfg} | {desc} |")
        lines.append("")
    return "\n".join(lines)
