"""Semantic checks of the pipeline configuration (after JSON-schema validation).

The schema (``workflow/schemas/config.schema.yaml``) checks types, ranges and unknown
keys; this module checks what a schema cannot: cross-field consistency. Every error names
the offending field (dotted path) and what is allowed.
"""

from __future__ import annotations

import numpy as np


class ConfigError(ValueError):
    """Invalid configuration; the message names the field."""


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


def _simulation(sim: dict, insts: dict) -> None:
    """Cross-field checks of ``simulation.experiments`` (decision D62)."""
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
