"""Deterministic random streams independent of sharding and executor."""

from __future__ import annotations

import hashlib

import numpy as np


def stable_int(key: str | int) -> int:
    """Map a string (or int) key to a stable non-negative 32-bit integer."""
    if isinstance(key, int | np.integer):
        if key < 0:
            raise ValueError(f"key must be non-negative, got {key}")
        return int(key)
    return int.from_bytes(hashlib.sha256(str(key).encode()).digest()[:4], "little")


def run_seed(
    seed: int, experiment: str | int, instance: str | int, algorithm: str | int, run: int
) -> np.random.SeedSequence:
    """SeedSequence of one run: ``SeedSequence(seed, spawn_key=(experiment, instance,
    algorithm, run))`` with string keys hashed by :func:`stable_int`."""
    key = tuple(stable_int(k) for k in (experiment, instance, algorithm, run))
    return np.random.SeedSequence(int(seed), spawn_key=key)


def run_generator(
    seed: int, experiment: str | int, instance: str | int, algorithm: str | int, run: int
) -> np.random.Generator:
    return np.random.Generator(
        np.random.PCG64(run_seed(seed, experiment, instance, algorithm, run))
    )
