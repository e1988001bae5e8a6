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
    for key, sweep in (("gap_sweep", ct.get("gap_sweep")), ("variance_sweep", ct.get("variance_sweep"))):
        if sweep and sweep["grid"]["max"] < sweep["grid"]["min"]:
            raise ConfigError(f"characteristic_times.{key}.grid: max must be >= min")
