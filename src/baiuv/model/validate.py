"""Input validation shared by the public API (clear ``ValueError`` naming the argument)."""

from __future__ import annotations

import math
import numbers

import numpy as np


def is_real(x) -> bool:
    """``True`` for a real number (Python or numpy), ``False`` for bools, strings, ..."""
    return isinstance(x, numbers.Real) and not isinstance(x, bool | np.bool_)


def check_real(x, name: str, allowed: str) -> float:
    """``x`` as a float; ``ValueError`` naming ``name`` and its ``allowed`` range (e.g.
    ``"in (0, 1)"``) when ``x`` is not a real number (bools and strings are refused). The
    range itself is checked by the caller."""
    if not is_real(x):
        raise ValueError(f"{name} must be a number {allowed}, got {x!r}")
    return float(x)


def check_integer(x, name: str, minimum: int) -> int:
    """``x`` as an int ``>= minimum``; refuses bools, strings and non-integral values."""
    if not is_real(x) or not math.isfinite(float(x)) or int(x) != x or x < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {x!r}")
    return int(x)


def as_vector(x, name: str, *, min_len: int = 1) -> np.ndarray:
    """Return ``x`` as a 1-D float64 array, rejecting wrong shapes, non-finite values and
    entries that are not numbers (bools and strings are refused, not converted)."""
    try:
        raw = np.asarray(x)
        kind = raw.dtype.kind
        if not isinstance(x, np.ndarray) or kind == "O":  # a list may mix bools in
            if not all(is_real(v) for v in np.asarray(x, dtype=object).reshape(-1)):
                kind = "b" if any(isinstance(v, bool) for v in np.ravel(raw)) else "X"
        if kind not in "iufO":
            raise TypeError("bools and strings are not accepted" if kind in "bUS" else "")
        arr = np.asarray(raw, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        why = f" ({exc})" if str(exc) else ""
        raise ValueError(f"{name} must be a 1-D array of real numbers{why}") from None
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
    b = check_real(beta, "beta", "in (0, 1) or None")
    if not (0.0 < b < 1.0):
        raise ValueError(f"beta must be in (0, 1), got {beta!r}")
    return b


def check_delta(delta) -> float:
    """The error probability ``delta`` as a float in (0, 1)."""
    d = check_real(delta, "delta", "in (0, 1)")
    if not (0.0 < d < 1.0):
        raise ValueError(f"delta must be in (0, 1), got {delta!r}")
    return d


def log_inv_delta_of(delta=None, log_inv_delta=None, *, prefix: str = "") -> float:
    """``ln(1/delta)`` from exactly one of ``delta`` and ``log_inv_delta``.

    ``delta`` in ``(0, 1)`` gives ``ln(1/delta)`` (``-ln(delta)`` where ``1/delta`` overflows);
    ``log_inv_delta`` is a finite number ``> 0`` taken as it is, so levels far below the
    smallest double (``ln(1/delta) = 1000``) are exact. ``prefix`` is put before the argument
    names in error messages (e.g. ``"asymptotic."``).
    """
    if (delta is None) == (log_inv_delta is None):
        raise ValueError(
            f"give exactly one of {prefix}delta and {prefix}log_inv_delta, got "
            f"delta={delta!r}, log_inv_delta={log_inv_delta!r}"
        )
    if delta is not None:
        try:
            d = check_delta(delta)
        except ValueError as exc:
            raise ValueError(f"{prefix}{exc}") from None
        inv = 1.0 / d
        return math.log(inv) if math.isfinite(inv) else -math.log(d)
    try:
        v = float(log_inv_delta)
    except (TypeError, ValueError):
        v = math.nan
    if isinstance(log_inv_delta, bool) or not (0.0 < v < math.inf):
        raise ValueError(
            f"{prefix}log_inv_delta must be a finite number > 0 (ln(1/delta), delta in (0, 1)), "
            f"got {log_inv_delta!r}"
        )
    return v


def delta_from_log(log_inv_delta: float) -> float:
    """``delta = exp(-log_inv_delta)``; ``0.0`` when it underflows (``ln(1/delta) > ~745``),
    for display and metadata only: computations use ``ln(1/delta)``."""
    return math.exp(-float(log_inv_delta))
