"""Stopping thresholds of the GLR and EV-GLR stopping rules (Section
sec:calibration_stopping_rules and Appendix app:thresholds of the paper).

Public API: Lambert helpers (:func:`lambert_wbar_m1`, :func:`lambert_wbar_0`), concentration
terms (:mod:`.concentration`), threshold families (:data:`FAMILIES`,
:class:`ThresholdParams`, :func:`pair_threshold`, :func:`make_threshold`), and the BoB NLP
(:func:`solve_bob`). Numba kernels for the simulation engine live in :mod:`.kernels`.
"""

from . import kernels
from .bob import (
    BobSolverError,
    PyomoCyipoptBridge,
    available_backends,
    bob_fallback_count,
    bob_upper_bound,
    build_bob_model,
    reset_bob_fallback_count,
    solve_bob,
)
from .concentration import (
    box_initial_count,
    eps_mu,
    mean_deviation_bound,
    monotonicity_initial_count,
    one_minus_eps_minus,
    one_plus_eps_plus,
    riemann_zeta,
    variance_lower_bound,
    variance_lower_initial_time,
    variance_upper_bound,
)
from .families import (
    EV_FAMILIES,
    FAMILIES,
    FAMILY_CODES,
    GLR_FAMILIES,
    ThresholdParams,
    ThresholdSpec,
    arm_state_from_samples,
    bob_constants,
    initial_count,
    make_threshold,
    new_arm_state,
    pair_threshold,
    student_log_ratio,
    student_quantile,
    update_arm_state,
)
from .lambert import lambert_wbar_0, lambert_wbar_m1, log_lambert_wbar_0

__all__ = [
    "kernels",
    "BobSolverError",
    "PyomoCyipoptBridge",
    "available_backends",
    "bob_fallback_count",
    "bob_upper_bound",
    "build_bob_model",
    "reset_bob_fallback_count",
    "solve_bob",
    "box_initial_count",
    "eps_mu",
    "mean_deviation_bound",
    "monotonicity_initial_count",
    "one_minus_eps_minus",
    "one_plus_eps_plus",
    "riemann_zeta",
    "variance_lower_bound",
    "variance_lower_initial_time",
    "variance_upper_bound",
    "EV_FAMILIES",
    "FAMILIES",
    "FAMILY_CODES",
    "GLR_FAMILIES",
    "ThresholdParams",
    "ThresholdSpec",
    "arm_state_from_samples",
    "bob_constants",
    "initial_count",
    "make_threshold",
    "new_arm_state",
    "pair_threshold",
    "student_log_ratio",
    "student_quantile",
    "update_arm_state",
    "lambert_wbar_0",
    "lambert_wbar_m1",
    "log_lambert_wbar_0",
]
