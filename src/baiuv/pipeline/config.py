"""Validation of the pipeline configuration: one call, :func:`validate_config`
(:func:`validate_workflow_config` for the workflow, which calls it before any job).

1. The JSON schema (``workflow/schemas/config.schema.yaml``, with the section of every
   experiment record that has one, :func:`compose_schema`, D416) checks types, ranges and
   unknown keys and fills the defaults; its ``registry:`` marks become the enums of the
   registered algorithms and threshold families, its ``registry_default:`` marks the
   defaults of the run parameters, its ``registry_parameters:`` marks the keys of the
   sampling rules' parameters (:mod:`baiuv.registry`), so a registered rule is a valid
   configuration value and defaults are written once.
2. Cross-field checks that a schema cannot express (:func:`validate_config_semantics`),
   then each optional experiment section's own checks.

An optional experiment section (:func:`optional_sections`) set to ``null`` is removed, so
a configuration given with ``--configfile`` can switch off a section that
``config/config.yaml`` enables (decision D200).

The workflow reads its configuration files itself (:func:`merge_config_files`, decision
D267): a duplicate key or a YAML error is refused naming the file and line, and an overlay
(``--configfile``) merged over the base replaces an inherited mapping by an empty one
(``experiments: {}``) and drops an inherited mapping set to ``null`` (``random: null``).

Every error is a :class:`ConfigError` naming the offending field (dotted path) and what is
allowed.
"""

from __future__ import annotations

import copy
import os
import posixpath
from collections.abc import Mapping, MutableMapping, Sequence

import numpy as np
import yaml

from baiuv.model.validate import delta_from_log, log_inv_delta_of
from baiuv.pipeline.specs import specs
from baiuv.registry import PARAMETERS, schema_properties, selection


def optional_sections() -> tuple[str, ...]:
    """The experiment sections a configuration may leave out, or set to ``null`` to skip
    them: the ``section`` of each record of :func:`baiuv.pipeline.specs.specs`."""
    return tuple(s.section for s in specs() if s.section is not None)


class ConfigError(ValueError):
    """Invalid configuration; the message names the field."""


class _StrictLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
    """YAML loader refusing a key given twice in one mapping."""


def _strict_mapping(loader, node, deep=False):
    seen: dict = {}
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=True)
        if key in seen:
            raise ConfigError(
                f"line {key_node.start_mark.line + 1}: duplicate key {key!r} "
                f"(first given on line {seen[key] + 1})"
            )
        seen[key] = key_node.start_mark.line
    return loader.construct_mapping(node, deep=deep)


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _strict_mapping)


def load_config_file(path: str | os.PathLike) -> dict:
    """The mapping of the YAML (or JSON) configuration file ``path``.

    Raises :class:`ConfigError` ``<path>:<line>: <what>`` for a duplicate key, a YAML
    syntax error or a document that is not a mapping, ``<path>: no such configuration
    file`` for a missing one."""
    try:
        with open(path, encoding="utf-8") as fh:
            data = yaml.load(fh, Loader=_StrictLoader)  # noqa: S506 - a SafeLoader
    except FileNotFoundError:
        raise ConfigError(f"{os.fspath(path)}: no such configuration file") from None
    except ConfigError as exc:
        raise ConfigError(f"{os.fspath(path)}:{str(exc).removeprefix('line ')}") from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f"{mark.line + 1}:{mark.column + 1}" if mark else "?"
        what = exc.problem or exc.context or "invalid YAML"
        raise ConfigError(f"{os.fspath(path)}:{where}: YAML syntax error: {what}") from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"{os.fspath(path)}: YAML syntax error: {exc}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"{os.fspath(path)}:1: a configuration must be a mapping of keys")
    return data


def merge_overlay(base: MutableMapping, overlay: Mapping) -> MutableMapping:
    """Merge ``overlay`` into ``base`` in place: a mapping merges into the inherited mapping
    key by key, except an empty mapping, which replaces it; ``null`` over an inherited
    mapping drops it (an optional section, an experiment); any other value replaces the
    inherited one. Returns ``base``."""
    for key, value in overlay.items():
        old = base.get(key)
        if value is None and isinstance(old, Mapping):
            del base[key]
        elif isinstance(value, Mapping) and value and isinstance(old, MutableMapping):
            merge_overlay(old, value)
        else:
            base[key] = copy.deepcopy(value)
    return base


def merge_config_files(
    base: str | os.PathLike,
    overlays: Sequence[str | os.PathLike] = (),
    values: Mapping | None = None,
) -> dict:
    """The configuration of the base file ``base`` with the ``overlays`` (``--configfile``)
    and then the ``values`` (``--config``) merged over it (:func:`merge_overlay`); each
    file read by :func:`load_config_file`. An optional section left empty (``{}``) by an
    overlay is dropped like ``null``."""
    config = load_config_file(base)
    for path in overlays:
        if os.path.abspath(path) != os.path.abspath(base):
            merge_overlay(config, load_config_file(path))
    merge_overlay(config, dict(values or {}))
    for key in optional_sections():
        if config.get(key) == {}:
            del config[key]
    return config


def compose_schema(schema: dict) -> dict:
    """``schema``, the loaded schema file, with the schema of every record's section
    (:attr:`baiuv.experiments.spec.ExperimentSpec.schema`, D416: a section's schema lives
    with its record) under the section's name, in the records' order; marks unresolved.

    Raises ``ValueError`` for a section the file defines too, or a record with a schema
    and no section."""
    props = schema.setdefault("properties", {})
    for spec in specs():
        if spec.schema is None:
            continue
        if spec.section is None:
            raise ValueError(f"record {spec.name!r}: a section schema without a section")
        if spec.section in props:
            raise ValueError(
                f"section {spec.section!r} is defined by the schema file and by the record "
                f"{spec.name!r}"
            )
        props[spec.section] = copy.deepcopy(dict(spec.schema))
    return schema


def raw_schema(path: str | os.PathLike) -> dict:
    """The schema file at ``path`` composed with the records' sections
    (:func:`compose_schema`), its registry marks unresolved (what the configuration page
    reads)."""
    with open(path) as f:
        # libyaml's parser when PyYAML has it (the same document, about 7x faster: every
        # Snakemake process of a run, two per cluster job, validates the configuration)
        schema = yaml.load(f, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    return compose_schema(schema)


def load_schema(path: str | os.PathLike) -> dict:
    """The configuration schema at ``path``, composed with the records' sections
    (:func:`raw_schema`), with its registry marks resolved."""
    schema = raw_schema(path)

    def resolve(node):
        if isinstance(node, dict):
            if "registry" in node:
                node["enum"] = selection(node.pop("registry"))
            if "registry_default" in node:
                node["default"] = PARAMETERS[node.pop("registry_default")].default
            if "registry_parameters" in node:
                props = node.setdefault("properties", {})
                props.update(schema_properties(node.pop("registry_parameters")))
            for v in node.values():
                resolve(v)
        elif isinstance(node, list):
            for v in node:
                resolve(v)

    resolve(schema)
    return schema


def _validator(schema: dict):
    """A JSON-schema validator of ``schema`` that fills the defaults it meets."""
    # jsonschema loads only when a configuration is validated
    from jsonschema import validators

    base = validators.validator_for(schema)
    check_properties = base.VALIDATORS["properties"]

    def properties(validator, props, instance, sub):
        if isinstance(instance, MutableMapping):
            for name, subschema in props.items():
                if isinstance(subschema, dict) and "default" in subschema:
                    instance.setdefault(name, subschema["default"])
        yield from check_properties(validator, props, instance, sub)

    return validators.extend(base, {"properties": properties})(schema)


def validate_config(config: MutableMapping, schema_path: str | os.PathLike) -> MutableMapping:
    """Validate ``config`` in place: schema (with the registry's enums and defaults, defaults
    filled), cross-field checks, and the checks of each experiment section present.

    Returns ``config``; raises :class:`ConfigError` naming the first bad field. Optional
    experiment sections set to ``null`` are removed first (:func:`optional_sections`).
    """
    for key in optional_sections():
        if key in config and config[key] is None:
            del config[key]
    errors = sorted(_validator(load_schema(schema_path)).iter_errors(config), key=str)
    if errors:
        err = errors[0]
        where = ".".join(str(k) for k in err.absolute_path) or "(top level)"
        raise ConfigError(f"{where}: {_message(err, where)}")
    validate_config_semantics(config)
    try:
        for spec in specs():
            if spec.check is not None and spec.section in config:
                spec.check(config[spec.section], config)
    except ConfigError:
        raise
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    return config


#: The configuration schema, relative to the workflow's base directory.
SCHEMA_PATH = os.path.join("workflow", "schemas", "config.schema.yaml")


def load_workflow_config(
    config: MutableMapping,
    base: str | os.PathLike,
    overlays: Sequence[str | os.PathLike] = (),
    values: Mapping | None = None,
) -> None:
    """Replace Snakemake's merged ``config`` in place by :func:`merge_config_files` of the
    same files (``ValueError`` ``invalid configuration: <file>:<line>: <what>``)."""
    try:
        merged = merge_config_files(base, overlays, values)
    except ConfigError as exc:
        raise ValueError(f"invalid configuration: {exc}") from None
    config.clear()
    config.update(merged)


def validate_workflow_config(config: MutableMapping, basedir: str | os.PathLike) -> None:
    """The workflow's check of its merged configuration (``workflow/rules/common.smk``).

    Parameters
    ----------
    config : MutableMapping
        Snakemake's ``config``: ``config/config.yaml`` with the ``--configfile`` files and
        ``--config`` values merged over it; validated in place (:func:`validate_config`).
    basedir : str or os.PathLike
        The workflow's base directory (holds :data:`SCHEMA_PATH`).

    Raises
    ------
    ValueError
        ``invalid configuration: <field>: <what is wrong>``, before any job is scheduled.
    """
    try:
        validate_config(config, os.path.join(basedir, SCHEMA_PATH))
    except ConfigError as exc:
        raise ValueError(f"invalid configuration: {exc}") from None


def _message(err, where: str) -> str:
    """The schema error's message; for a ``oneOf`` of required keys (``delta`` or
    ``log_inv_delta``) the alternatives by name."""
    alts = err.schema.get("oneOf") if err.validator == "oneOf" else None
    if alts and all(set(a) == {"required"} and len(a["required"]) == 1 for a in alts):
        names = " and ".join(f"{where}.{a['required'][0]}" for a in alts)
        return f"give exactly one of {names} (oneOf)"
    if alts and all("enum" in a or "type" in a for a in alts):
        allowed = []
        for a in alts:
            if "enum" in a:
                allowed += [repr(v) for v in a["enum"]]
            else:
                low = f" >= {a['minimum']}" if "minimum" in a else ""
                allowed.append(f"an {a['type']}{low}")
        return f"{err.instance!r} is not allowed; allowed: {', '.join(allowed)}"
    return err.message


def _instances(config: dict) -> dict[str, dict]:
    seen: dict[str, dict] = {}
    for i, inst in enumerate(config.get("instances", [])):
        field = f"instances[{i}]"
        name = inst["name"]
        if name in seen:
            raise ConfigError(f"{field}.name: duplicate instance name {name!r}")
        mu = np.asarray(inst["mu"], float)
        s2 = np.asarray(inst["sigma2"], float)
        if mu.size != s2.size:
            raise ConfigError(
                f"{field} ({name}): mu and sigma2 must have the same length, "
                f"got {mu.size} and {s2.size}"
            )
        if mu.size < 2:
            raise ConfigError(f"{field}.mu ({name}): K must be >= 2, got {mu.size}")
        if not (np.all(np.isfinite(mu)) and np.all(np.isfinite(s2))):
            raise ConfigError(f"{field} ({name}): mu and sigma2 must be finite")
        if np.any(s2 <= 0):
            raise ConfigError(f"{field}.sigma2 ({name}): variances must be > 0")
        if np.count_nonzero(mu == mu.max()) > 1:
            raise ConfigError(f"{field}.mu ({name}): the best arm must be unique")
        seen[name] = inst
    return seen


def validate_config_semantics(config: dict) -> None:
    """Raise :class:`ConfigError` naming the field if ``config`` is inconsistent."""
    insts = _instances(config)
    ct = config.get("characteristic_times", {})
    for j, name in enumerate(ct.get("instances", [])):
        if name not in insts:
            raise ConfigError(
                f"characteristic_times.instances[{j}]: unknown instance {name!r}; "
                f"allowed: {sorted(insts)}"
            )
    for key, sweep in (
        ("gap_sweep", ct.get("gap_sweep")),
        ("variance_sweep", ct.get("variance_sweep")),
    ):
        if sweep and sweep["grid"]["max"] < sweep["grid"]["min"]:
            raise ConfigError(f"characteristic_times.{key}.grid: max must be >= min")
    _simulation(config.get("simulation") or {}, insts)
    if "publish" in config:
        publish_paths(config)
        publish_tables_dir(config)


def _simulation(sim: dict, insts: dict) -> None:
    """Cross-field checks of ``simulation.experiments``."""
    for name, spec in (sim.get("experiments") or {}).items():
        field = f"simulation.experiments.{name}"
        kind = spec.get("kind")
        needed = {"named": ("instance", "runs"), "random": ("n_instances",)}.get(kind, ())
        for key in needed:
            if key not in spec:
                raise ConfigError(f"{field}.{key}: required for kind {kind!r}")
        if kind == "named":
            if spec["instance"] not in insts:
                raise ConfigError(
                    f"{field}.instance: unknown instance {spec['instance']!r}; "
                    f"allowed: {sorted(insts)}"
                )
        if kind == "random":
            if "instance" in spec or "runs" in spec:
                raise ConfigError(
                    f"{field}: 'instance' and 'runs' apply to kind 'named' only "
                    "(use runs_per_instance)"
                )
            for key in ("gap_range", "var_range"):
                lo_hi = spec.get(key)
                if lo_hi is not None and not lo_hi[0] <= lo_hi[1]:
                    raise ConfigError(f"{field}.{key}: need low <= high, got {list(lo_hi)}")


def publish_paths(config: dict) -> tuple[str, str]:
    """``(figures directory, report file)`` of the ``publish`` section, normalised: where
    ``snakemake publish`` copies ``results/figures/*`` and ``results/reproduction.md``. Both
    must be relative paths inside the working directory and outside ``results/`` (which the
    run itself writes)."""
    if "publish" not in config:
        raise ConfigError(
            "publish: this configuration has no publish section, so `snakemake publish` has "
            "no destination (config/config.yaml publishes to figures/ and docs/reproduction.md)"
        )
    return _publish_path(config, "figures"), _publish_path(config, "report")


def publish_tables_dir(config: dict) -> str | None:
    """Directory of the optional ``publish.tables`` key (where ``snakemake publish`` copies
    the Markdown tables ``results/tables/*.md``), normalised as :func:`publish_paths`;
    ``None`` when the section has no such key."""
    if "tables" not in config.get("publish", {}):
        return None
    return _publish_path(config, "tables")


def _publish_path(config: dict, key: str) -> str:
    path = posixpath.normpath(str(config["publish"][key]))
    if posixpath.isabs(path) or path == "." or path.split("/")[0] in ("..", "results"):
        raise ConfigError(
            f"publish.{key}: {path!r} must be a relative path inside the working "
            "directory, outside results/"
        )
    return path


def section_log_inv_delta(section: dict, name: str) -> float:
    """``ln(1/delta)`` of a config section holding exactly one of ``delta`` and
    ``log_inv_delta``; :class:`ConfigError` naming ``<name>.delta`` /
    ``<name>.log_inv_delta`` otherwise."""
    try:
        return log_inv_delta_of(
            section.get("delta"), section.get("log_inv_delta"), prefix=f"{name}."
        )
    except ValueError as exc:
        raise ConfigError(str(exc)) from None


def section_delta(section: dict, name: str) -> float:
    """``delta`` of such a section (``exp(-log_inv_delta)``, ``0.0`` once it underflows),
    for the tables and figures that show ``delta`` or compare error rates with it."""
    if section.get("delta") is not None:
        section_log_inv_delta(section, name)
        return float(section["delta"])
    return delta_from_log(section_log_inv_delta(section, name))
