"""Characteristic-time sweeps (Appendix ``app:sss_exp_characteristic_times``)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from baiuv.characteristic import characteristic_time, complexity_d, optimal_allocation


def two_arm_row(gap: float, r: float, beta: float | None = None) -> dict:
    """Characteristic times on the canonical instance ``mu = (0, -gap)``, ``s2 = (1, r)``."""
    mu = np.array([0.0, -gap])
    s2 = np.array([1.0, r])
    t_u = characteristic_time(mu, s2, beta=beta)
    t_k = characteristic_time(mu, s2, known_variance=True, beta=beta)
    d = complexity_d(mu, s2)
    return {
        "gap": gap,
        "r": r,
        "T_unknown": t_u,
        "T_known": t_k,
        "ratio": t_u / t_k,
        "d": d,
        "bound": d / np.log1p(d),
    }


def ratio_sweep(axis: str, values: np.ndarray, fixed: float, beta: float | None = None):
    """Sweep the complexity ratio along ``axis`` ("gap": fixed r; "variance": fixed gap)."""
    if axis not in ("gap", "variance"):
        raise ValueError(f"axis must be 'gap' or 'variance', got {axis!r}")
    rows = []
    for v in np.asarray(values, dtype=float):
        row = two_arm_row(v, fixed, beta) if axis == "gap" else two_arm_row(fixed, v, beta)
        row["axis"] = axis
        row["beta"] = np.nan if beta is None else beta
        rows.append(row)
    return pd.DataFrame(rows)


def instance_summary(name: str, mu, sigma2, beta: float = 0.5) -> dict:
    """T*, T*_{s2}, their ratio, the bound, w*, w*_{s2} and beta-versions for one instance."""
    mu = np.asarray(mu, float)
    s2 = np.asarray(sigma2, float)
    t_u = characteristic_time(mu, s2)
    t_k = characteristic_time(mu, s2, known_variance=True)
    tb_u = characteristic_time(mu, s2, beta=beta)
    tb_k = characteristic_time(mu, s2, known_variance=True, beta=beta)
    d = complexity_d(mu, s2)
    return {
        "instance": name,
        "K": mu.size,
        "T_unknown": t_u,
        "T_known": t_k,
        "ratio": t_u / t_k,
        "d": d,
        "bound": d / np.log1p(d),
        "beta": beta,
        "T_beta_unknown": tb_u,
        "T_beta_known": tb_k,
        "ratio_beta": tb_u / tb_k,
        "w_unknown": optimal_allocation(mu, s2).tolist(),
        "w_known": optimal_allocation(mu, s2, known_variance=True).tolist(),
    }
