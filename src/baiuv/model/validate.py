"""Input validation shared by the public API (clear ``ValueError`` naming the argument)."""

from __future__ import annotations

import numpy as np


def as_vector(x, name: str, *, min_len: int = 1) -> np.ndarray:
    """Return ``x`` as a 1-D float64 array, rejecting wrong shapes and non-finite values."""
    try:
        arr = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a 1-D array of real numbers ({exc})") from None
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {arr.shape}")
    if arr.size < min_len:
        raise ValueError(f"{name} must have at least {min_len} entries, got {arr.size}")
    if not np.all(np.isfinite(arr)):
        bad = np.flatnonzero(~np.isfinite(arr))
        raise ValueError(f"{name} must be finite; non-finite entries at indices {bad.tolist()}")
    return arr


def check_positive(arr: np.ndarray, name: str) -> None:
    if np.any(arr <= 0):
        bad = np.flatnonzero(arr <= 0)
        raise ValueError(f"{name} must be > 0; offending indices {bad.tolist()}")


def check_same_length(a: np.ndarray, b: np.ndarray, name_a: str, name_b: str) -> None:
    if a.shape != b.shape:
        raise ValueError(
            f"{name_a} and {name_b} must have the same length, got {a.size} and {b.size}"
        )


def unique_best(mu: np.ndarray, name: str = "mu") -> int:
    """Index of the unique maximum of ``mu``; ``ValueError`` on a tie."""
    best = int(np.argmax(mu))
    if np.count_nonzero(mu == mu[best]) > 1:
        tied = np.flatnonzero(mu == mu[best]).tolist()
        raise ValueError(f"{name} must have a unique best arm; arms {tied} tie at {mu[best]}")
    return best


def check_instance(mu, sigma2, *, require_unique_best: bool = True) -> tuple[np.ndarray, ...]:
    """Validate a Gaussian instance; returns ``(mu, sigma2)`` as float arrays."""
    mu = as_vector(mu, "mu", min_len=2)
    sigma2 = as_vector(sigma2, "sigma2", min_len=2)
    check_same_length(mu, sigma2, "mu", "sigma2")
    check_positive(sigma2, "sigma2")
    if require_unique_best:
        unique_best(mu)
    return mu, sigma2


def check_beta(beta) -> float:
    """``beta`` is ``None`` (free allocation) or a float in (0, 1); returns -1.0 for None."""
    if beta is None:
        return -1.0
    try:
        b = float(beta)
    except (TypeError, ValueError):
        raise ValueError(f"beta must be None or a number in (0, 1), got {beta!r}") from None
    if not (0.0 < b < 1.0):
        raise ValueError(f"beta must be in (0, 1), got {beta!r}")
    return b


def check_delta(delta) -> float:
    try:
        d = float(delta)
    except (TypeError, ValueError):
        raise ValueError(f"delta must be a number in (0, 1), got {delta!r}") from None
    if not (0.0 < d < 1.0):
        raise ValueError(f"delta must be in (0, 1), got {delta!r}")
    return d
