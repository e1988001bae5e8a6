"""Checked claims of the paper: the rows of the reproduction report.

A leaf of the package (no import from it): every experiment builds its own
:class:`Claim` rows, and :mod:`baiuv.report.reproduction` assembles them.

Each row names what the paper says and where, the paper's value, our value with its
uncertainty, a verdict and the reason when it is not ``reproduced``. ``not checkable`` is a
statement this configuration cannot measure; a comparison of measured quantities (ratios of
mean stopping times, error rates) goes through the one verdict rule of this module:

* :class:`Band`: what the paper's words allow for the statistic, two-sided (``[lo, hi]``,
  "similar", "on par") or one-sided (``< 1``, "outperforms"), with the words and their place.
* :func:`judge`: the rule. ``reproduced`` when the interval lies inside the band (on the
  claimed side), ``differs`` when it lies entirely outside, ``not resolved`` when it
  straddles a bound. Without an interval the point is judged alone (shown in the tests to
  change verdicts: never used by the report).
* :func:`bootstrap_ratio`: ratio of means (and of medians, printed beside) with percentile
  bootstrap intervals that hold for heavy-tailed stopping times: runs resampled per sample
  (independent runs), or the shared units resampled jointly (``paired``: the random
  instances every algorithm runs on). The bootstrap stream is seeded from the claim's
  identity, so a report is reproducible.
* :func:`rate_interval`: the exact (Clopper–Pearson) interval of an error rate.
* :func:`combine`: the verdict of a row made of several comparisons.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

import numpy as np

__all__ = [
    "DIFFERS",
    "NOT_CHECKABLE",
    "NOT_RESOLVED",
    "OUTCOMES",
    "REPRODUCED",
    "VERDICTS",
    "Band",
    "Claim",
    "Judgement",
    "bootstrap_interval",
    "bootstrap_ratio",
    "claim_seed",
    "combine",
    "judge",
    "rate_interval",
    "tally",
    "verdict",
]

REPRODUCED = "reproduced"
DIFFERS = "differs"
NOT_RESOLVED = "not resolved"
NOT_CHECKABLE = "not checkable"
#: The outcomes of the verdict rule (:func:`judge`).
OUTCOMES = (REPRODUCED, DIFFERS, NOT_RESOLVED)
VERDICTS = (*OUTCOMES, NOT_CHECKABLE)


@dataclass(kw_only=True)
class Claim:
    """One checked claim of the paper (built with keywords).

    Attributes
    ----------
    topic : str
        Section of the report the row belongs to.
    claim : str
        What the paper says (quoted or paraphrased).
    where : str
        Where the paper says it (LaTeX labels; printed numbers in the report).
    paper : str
        The paper's value.
    ours : str
        Our value with its uncertainty.
    verdict : str
        One of :data:`VERDICTS`.
    reason : str
        Why the verdict is not ``reproduced`` (required then).
    beyond_paper : bool
        The row is the artifact's own check, not a statement of the paper (counted apart in
        the report's summary, :func:`tally`).
    """

    topic: str
    claim: str
    where: str
    paper: str
    ours: str
    verdict: str
    reason: str = ""
    beyond_paper: bool = False

    def __post_init__(self):
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {VERDICTS}, got {self.verdict!r}")
        if self.verdict != REPRODUCED and not self.reason:
            raise ValueError(f"claim {self.claim!r}: a reason is required for {self.verdict!r}")


def tally(claims: Iterable[Claim]) -> tuple[dict[str, int], dict[str, int]]:
    """Verdict counts (every verdict of :data:`VERDICTS`, zeros included) of the paper's
    statements and, apart, of the artifact's own rows (``beyond_paper``)."""
    paper = dict.fromkeys(VERDICTS, 0)
    own = dict.fromkeys(VERDICTS, 0)
    for c in claims:
        (own if c.beyond_paper else paper)[c.verdict] += 1
    return paper, own


def verdict(ok: bool) -> str:
    """``reproduced`` if ``ok`` else ``differs``."""
    return REPRODUCED if ok else DIFFERS


#: Bootstrap resamples of every interval (percentile method).
N_BOOT = 2000
#: Confidence level of every interval.
LEVEL = 0.95


@dataclass(frozen=True)
class Band:
    """The values of a statistic the paper's words allow.

    ``lo``/``hi``: bounds (``-inf``/``inf`` for a one-sided claim); ``strict_hi`` excludes
    ``hi`` itself ("better": a ratio below 1, not equal). ``words``: the paper's words the
    band is read from; ``where``: their place.
    """

    lo: float = -math.inf
    hi: float = math.inf
    words: str = ""
    where: str = ""
    strict_hi: bool = False
    strict_lo: bool = False

    def __post_init__(self):
        if not (self.lo < self.hi):
            raise ValueError(f"band: lo must be below hi, got [{self.lo}, {self.hi}]")

    @property
    def one_sided(self) -> bool:
        return math.isinf(self.lo) or math.isinf(self.hi)

    def contains(self, x: float) -> bool:
        above = x > self.lo if self.strict_lo else x >= self.lo
        below = x < self.hi if self.strict_hi else x <= self.hi
        return above and below

    def text(self) -> str:
        """``"< 1"``, ``"> 1"``, ``"[0.8, 1.2]"``, ``"[0.8, 1)"``."""
        if math.isinf(self.lo):
            return f"{'<' if self.strict_hi else '≤'} {self.hi:g}"
        if math.isinf(self.hi):
            return f"{'>' if self.strict_lo else '≥'} {self.lo:g}"
        return (
            f"{'(' if self.strict_lo else '['}{self.lo:g}, {self.hi:g}"
            f"{')' if self.strict_hi else ']'}"
        )


def judge(statistic: float, interval: tuple[float, float] | None, band: Band) -> str:
    """The verdict of ``statistic`` with its ``interval`` against ``band``.

    ``reproduced``: both ends of the interval in the band (for a one-sided band: on the
    claimed side); ``differs``: the whole interval outside it (both ends on the same wrong
    side); ``not resolved``: otherwise (the interval straddles a bound). ``interval=None``
    judges the point alone (a verdict without uncertainty).
    """
    lo, hi = (statistic, statistic) if interval is None else interval
    if math.isnan(statistic) or math.isnan(lo) or math.isnan(hi):
        return NOT_RESOLVED
    if lo > hi:
        raise ValueError(f"interval must have low <= high, got [{lo}, {hi}]")
    if band.contains(lo) and band.contains(hi):
        return REPRODUCED
    below = hi < band.lo or (band.strict_lo and hi <= band.lo)
    above = lo > band.hi or (band.strict_hi and lo >= band.hi)
    return DIFFERS if (below or above) else NOT_RESOLVED


def combine(verdicts: Iterable[str]) -> str:
    """A row of several comparisons: ``reproduced`` if every part is, ``differs`` if one
    part differs, ``not resolved`` otherwise."""
    v = list(verdicts)
    if not v:
        raise ValueError("combine: no verdict given")
    if DIFFERS in v:
        return DIFFERS
    return REPRODUCED if all(x == REPRODUCED for x in v) else NOT_RESOLVED


def claim_seed(*identity) -> np.random.SeedSequence:
    """The bootstrap's seed, from the claim's identity (e.g. experiment, statistic, names)."""
    digest = hashlib.sha256("\x1f".join(map(str, identity)).encode()).digest()
    return np.random.SeedSequence(int.from_bytes(digest[:16], "little"))


def bootstrap_interval(
    samples: Mapping[str, np.ndarray],
    statistic: Callable[[Mapping[str, np.ndarray]], np.ndarray],
    *,
    identity: tuple,
    paired: bool = False,
    level: float = LEVEL,
    n_boot: int | None = None,
) -> tuple[float, float]:
    """Percentile bootstrap interval of ``statistic`` over resampled ``samples``.

    ``statistic`` maps a dict of ``(B, n_name)`` arrays (B resamples) to ``B`` values.
    ``paired``: every sample has the same length and its ``i``-th entry belongs to the same
    unit (instance), so one index draw resamples them all; otherwise each sample is
    resampled on its own. ``n_boot``: resamples (default :data:`N_BOOT`). Deterministic: the stream is :func:`claim_seed` of ``identity``.
    """
    if not (0.0 < level < 1.0):
        raise ValueError(f"level must be in (0, 1), got {level!r}")
    n_boot = N_BOOT if n_boot is None else int(n_boot)
    arrays = {k: np.asarray(v, dtype=float) for k, v in samples.items()}
    if not arrays or any(a.ndim != 1 or a.size == 0 for a in arrays.values()):
        raise ValueError("samples must be non-empty one-dimensional arrays")
    if paired and len({a.size for a in arrays.values()}) != 1:
        raise ValueError("paired samples must have the same length")
    rng = np.random.default_rng(claim_seed(*identity))
    values = []
    chunk = max(1, min(n_boot, 4_000_000 // max(a.size for a in arrays.values())))
    for start in range(0, n_boot, chunk):
        b = min(chunk, n_boot - start)
        if paired:
            n = next(iter(arrays.values())).size
            idx = rng.integers(0, n, size=(b, n))
            draw = {k: a[idx] for k, a in arrays.items()}
        else:
            draw = {k: a[rng.integers(0, a.size, size=(b, a.size))] for k, a in arrays.items()}
        values.append(np.asarray(statistic(draw), dtype=float))
    v = np.concatenate(values)
    alpha = 0.5 * (1.0 - level)
    return float(np.quantile(v, alpha)), float(np.quantile(v, 1.0 - alpha))


@dataclass(frozen=True)
class Judgement:
    """A comparison judged by :func:`judge`: the statistic, its interval, the band, the
    verdict, how the interval was made, and the ratio of medians beside (heavy tails)."""

    statistic: float
    interval: tuple[float, float] | None
    band: Band
    verdict: str
    method: str
    median: float = math.nan
    median_interval: tuple[float, float] | None = None

    def text(self, digits: int = 3) -> str:
        """``"1.588 [1.10, 2.31]"`` with the medians' ratio when computed."""
        out = f"{self.statistic:.{digits}f}"
        if self.interval is not None:
            out += f" [{self.interval[0]:.{digits}f}, {self.interval[1]:.{digits}f}]"
        if not math.isnan(self.median):
            out += f" (medians {self.median:.{digits}f}"
            if self.median_interval is not None:
                lo, hi = self.median_interval
                out += f" [{lo:.{digits}f}, {hi:.{digits}f}]"
            out += ")"
        return out


def bootstrap_ratio(
    num: np.ndarray,
    den: np.ndarray,
    band: Band,
    *,
    identity: tuple,
    paired: bool = False,
    level: float = LEVEL,
    n_boot: int | None = None,
) -> Judgement:
    """mean(num)/mean(den) judged against ``band`` with its bootstrap interval, and the
    ratio of medians with its own interval beside (not judged)."""
    num, den = np.asarray(num, dtype=float), np.asarray(den, dtype=float)
    stat = float(num.mean() / den.mean())
    ci = bootstrap_interval(
        {"n": num, "d": den},
        lambda s: s["n"].mean(axis=1) / s["d"].mean(axis=1),
        identity=(*identity, "mean"),
        paired=paired,
        level=level,
        n_boot=n_boot,
    )
    med = float(np.median(num) / np.median(den))
    med_ci = bootstrap_interval(
        {"n": num, "d": den},
        lambda s: np.median(s["n"], axis=1) / np.median(s["d"], axis=1),
        identity=(*identity, "median"),
        paired=paired,
        level=level,
        n_boot=n_boot,
    )
    how = "over instances, paired" if paired else "over runs"
    method = f"{100 * level:g}% bootstrap {how}"
    return Judgement(stat, ci, band, judge(stat, ci, band), method, med, med_ci)


def rate_interval(errors: int, n: int, level: float = LEVEL) -> tuple[float, float]:
    """Exact (Clopper–Pearson) interval of a binomial rate ``errors / n``."""
    # scipy.special is slow to import: loaded on first use
    from scipy.special import betaincinv

    if int(n) != n or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}")
    if int(errors) != errors or not (0 <= errors <= n):
        raise ValueError(f"errors must be an integer in [0, n], got {errors!r}")
    a = 0.5 * (1.0 - level)
    lo = 0.0 if errors == 0 else float(betaincinv(errors, n - errors + 1, a))
    hi = 1.0 if errors == n else float(betaincinv(errors + 1, n - errors, 1.0 - a))
    return lo, hi
