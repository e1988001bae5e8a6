"""An independent pure-Python run of the round-robin rule, against which the engine's
numba loop is checked (eager stopping rule in ``test_sim_engine.py``, lazy in
``test_lazy.py``)."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from baiuv import glr_statistics


def reference_uniform(
    mu: np.ndarray,
    s2: np.ndarray,
    n0: int,
    delta: float,
    rng: np.random.Generator,
    *,
    plug_in: bool = False,
    check: Callable[[int], bool] | None = None,
) -> tuple[int, int]:
    """Round robin after ``n0`` pulls of each arm; the (EV-)GLR statistics of
    :func:`baiuv.glr_statistics` (``known_variance=plug_in``) against the heuristic
    threshold ``ln((1 + ln t)/delta)``, evaluated at every ``t`` or only where
    ``check(t)`` holds. Returns ``(stopping time, recommended arm)``."""
    K = mu.size
    obs = [[] for _ in range(K)]
    for _ in range(n0):
        for a in range(K):
            obs[a].append(mu[a] + math.sqrt(s2[a]) * rng.standard_normal())
    t = n0 * K
    while True:
        if check is None or check(t):
            counts = np.array([len(o) for o in obs], float)
            means = np.array([np.mean(o) for o in obs])
            var = np.array([np.var(o) for o in obs])
            Z = glr_statistics(counts, means, var, known_variance=plug_in)
            best = int(np.argmax(means))
            c = math.log((1 + math.log(t)) / delta)
            if all(Z[a] > c for a in range(K) if a != best):
                return t, best
        a = t % K
        obs[a].append(mu[a] + math.sqrt(s2[a]) * rng.standard_normal())
        t += 1
