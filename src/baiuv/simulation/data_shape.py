"""Shape check of the identifier's data: does an arm's sample look far from Gaussian?
(decision D121: the identifier warns when the data do not look Gaussian). And the values it
accepts (:func:`value_problem`, decision D261: beyond 1e50 the statistics could overflow).

``ShapeCheck`` keeps, per arm, what the checks need (counts of a few distinct values and
the moments) as observations arrive, and lists the problems of an arm in plain words.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from baiuv.simulation import replay

#: Shape check of the data (decision D121): an arm with at least ``_MIN_N`` observations is
#: flagged when at most ``_FEW_VALUES`` distinct values were seen, when one value makes up
#: at least ``_TOP_SHARE`` of its observations, or when its sample skewness is at least
#: ``_SKEW`` in absolute value; an arm with zero variance is always flagged.
_MIN_N = 20
_FEW_VALUES = 10
_TOP_SHARE = 0.5
_SKEW = 2.0
_TRACKED_VALUES = 64  # distinct values counted per arm (enough for the checks above)

#: Largest ``|value|`` an observation may have (decision D261). With ``|x| <= 1e50`` no
#: statistic can overflow: sums of squared deviations over at most ``2**63`` observations
#: stay below ``2**63 (2e50)^2 < 4e119``, and the KL/BoB state, which squares the variance
#: plus twice the squared mean (a fourth power of the data's scale, ``ln(gamma R)`` of
#: Theorem 6), stays near ``1e200``; it overflows from about ``1e77``. Every arm then also
#: lies in the simulator's certified range (``|mean| <= 1e50``, ``variance <= 1e100``,
#: decision D191).
MAX_ABS_VALUE = 1e50


def value_problem(x: float) -> str | None:
    """Why ``x`` cannot be an observation (``None`` if it can): not a number, infinite, or
    beyond :data:`MAX_ABS_VALUE` in magnitude; the reason in the user's terms."""
    if math.isnan(x):
        return "value must be finite, got nan (not a number)"
    if math.isinf(x):
        return (
            f"value must be finite, got {x!r} (written as inf, or a number beyond the range "
            "of a double, about ±1.8e308, such as 1e400)"
        )
    if abs(x) > MAX_ABS_VALUE:
        return (
            f"value {x!r} is too large: |value| must be at most {MAX_ABS_VALUE:g}, beyond "
            "which the statistics (sums of squares, the KL/BoB state) could overflow; "
            "rescale the data"
        )
    return None


class ShapeCheck:
    """Per-arm statistics of the observed values that say whether a Gaussian model fits:
    value counts (first ``_TRACKED_VALUES`` distinct values) and the first three central
    moments (one-pass update of Pebay, 2008). Used only for the warnings of
    :meth:`BestArmIdentifier.summary`; the identification itself never reads them."""

    def __init__(self, K: int) -> None:
        self.n = [0] * K
        self.mean = [0.0] * K
        self.m2 = [0.0] * K
        self.m3 = [0.0] * K
        self.values: list[dict[float, int]] = [{} for _ in range(K)]
        self.overflow = [False] * K

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ShapeCheck) and self.__dict__ == other.__dict__

    __hash__ = None  # mutable

    def add(self, arm: int, x: float) -> None:
        n1 = self.n[arm]
        n = n1 + 1
        d = x - self.mean[arm]
        dn = d / n
        t1 = d * dn * n1
        self.m3[arm] += t1 * dn * (n - 2) - 3.0 * dn * self.m2[arm]
        self.m2[arm] += t1
        self.mean[arm] += dn
        self.n[arm] = n
        vals = self.values[arm]
        if x in vals:
            vals[x] += 1
        elif len(vals) < _TRACKED_VALUES:
            vals[x] = 1
        else:
            self.overflow[arm] = True

    def add_many(self, arms: np.ndarray, values: np.ndarray) -> None:
        """:meth:`add` for every ``(arms[i], values[i])`` in order, in one compiled loop
        (:func:`baiuv.simulation.replay.shape_update`) over the arms present."""
        if arms.shape[0] == 0:
            return
        present = np.flatnonzero(np.bincount(arms, minlength=len(self.n)))
        slot_of = np.zeros(len(self.n), dtype=np.int64)
        slot_of[present] = np.arange(present.shape[0])
        P = present.shape[0]
        n = np.array([self.n[a] for a in present], dtype=np.int64)
        mean = np.array([self.mean[a] for a in present], dtype=np.float64)
        m2 = np.array([self.m2[a] for a in present], dtype=np.float64)
        m3 = np.array([self.m3[a] for a in present], dtype=np.float64)
        keys = np.zeros((P, _TRACKED_VALUES))
        kcounts = np.zeros((P, _TRACKED_VALUES), dtype=np.int64)
        n_keys = np.zeros(P, dtype=np.int64)
        overflow = np.array([self.overflow[a] for a in present], dtype=np.bool_)
        for s, a in enumerate(present):
            vals = self.values[a]
            n_keys[s] = len(vals)
            keys[s, : len(vals)] = list(vals)
            kcounts[s, : len(vals)] = list(vals.values())
        shape = replay.ShapeStats(n, mean, m2, m3, keys, kcounts, n_keys, overflow)
        replay.shape_update(slot_of[arms], values, shape)
        for s, a in enumerate(present.tolist()):
            self.n[a] = int(n[s])
            self.mean[a] = float(mean[s])
            self.m2[a] = float(m2[s])
            self.m3[a] = float(m3[s])
            k = int(n_keys[s])
            self.values[a] = dict(zip(keys[s, :k].tolist(), kcounts[s, :k].tolist(), strict=True))
            self.overflow[a] = bool(overflow[s])

    def problems(self, arm: int) -> list[str]:
        """Plain-words reasons why the observations of ``arm`` do not look Gaussian."""
        n = self.n[arm]
        if n < 2:
            return []
        vals = self.values[arm]
        if len(vals) == 1 and not self.overflow[arm]:
            return [f"all {n} observations are equal (zero variance)"]
        out = []
        if n >= _MIN_N:
            if not self.overflow[arm] and len(vals) <= _FEW_VALUES:
                out.append(f"only {len(vals)} distinct values")
            top_value, top = max(vals.items(), key=lambda kv: kv[1])
            if top >= _TOP_SHARE * n:
                out.append(f"{100.0 * top / n:.0f}% of the observations equal {top_value:g}")
            m2 = self.m2[arm]
            if m2 > 0.0:
                skew = math.sqrt(n) * self.m3[arm] / m2**1.5
                if math.isfinite(skew) and abs(skew) >= _SKEW:
                    out.append(f"strongly skewed or heavy-tailed (skewness {skew:.3g})")
        return out


def checked_rows(arms: ArrayLike, values: ArrayLike, K: int) -> tuple[np.ndarray, np.ndarray]:
    """``(arms, values)`` as contiguous int64 and float64 arrays, after checking shapes,
    dtypes and every row of a batch of an identifier with ``K`` arms (``ValueError`` naming the first bad position)."""
    a = np.asarray(arms)
    x = np.asarray(values)
    if a.ndim != 1 or x.ndim != 1:
        raise ValueError(f"arms and values must be 1-D arrays, got shapes {a.shape} and {x.shape}")
    if a.shape[0] != x.shape[0]:
        raise ValueError(
            f"arms and values must have the same length, got {a.shape[0]} and {x.shape[0]}"
        )
    if a.shape[0] and a.dtype.kind not in "iu":
        raise ValueError(f"arms must be an array of integers, got dtype {a.dtype}")
    if x.shape[0] and x.dtype.kind not in "iuf":
        raise ValueError(f"values must be an array of real numbers, got dtype {x.dtype}")
    bad = np.flatnonzero((a < 0) | (a >= K))
    if bad.shape[0]:
        i = int(bad[0])
        raise ValueError(f"arms[{i}]: arm must be in [0, {K}), got {int(a[i])}")
    xf = np.ascontiguousarray(x, dtype=np.float64)
    bad = np.flatnonzero(~(np.abs(xf) <= MAX_ABS_VALUE))  # nan, inf, too large
    if bad.shape[0]:
        i = int(bad[0])
        raise ValueError(f"values[{i}]: {value_problem(float(xf[i]))}")
    a = np.ascontiguousarray(a, dtype=np.int64)
    # writable arrays: one compiled signature of the loop (numba types read-only apart)
    return (a if a.flags.writeable else a.copy()), (xf if xf.flags.writeable else xf.copy())
