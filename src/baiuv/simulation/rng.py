"""Deterministic random streams independent of sharding and executor."""

from __future__ import annotations

import functools
import hashlib

import numpy as np


def stable_int(key: str | int) -> int:
    """Map a string (or int) key to a stable non-negative 32-bit integer."""
    if isinstance(key, int | np.integer):
        if key < 0:
            raise ValueError(f"key must be non-negative, got {key}")
        return int(key)
    return _hash32(str(key))


@functools.lru_cache(maxsize=4096)
def _hash32(key: str) -> int:
    """First four bytes of the SHA-256 of ``key``, little-endian (kept: the experiment,
    instance and algorithm names repeat over a shard's runs)."""
    return int.from_bytes(hashlib.sha256(key.encode()).digest()[:4], "little")


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
    """The run's generator: PCG64 seeded by :func:`run_seed`."""
    return generator_of(run_seed(seed, experiment, instance, algorithm, run))


def generator_of(seed_sequence: np.random.SeedSequence) -> np.random.Generator:
    """PCG64 generator seeded by ``seed_sequence`` (the stream of :func:`run_generator`)."""
    return np.random.Generator(np.random.PCG64(seed_sequence))
