"""Stopping thresholds of the GLR and EV-GLR stopping rules (Section
sec:calibration_stopping_rules and Appendix app:thresholds of the paper).

Public API: Lambert helpers (:func:`lambert_wbar_m1`, :func:`lambert_wbar_0`), concentration
terms (:mod:`.concentration`), threshold families (:data:`FAMILIES`,
:class:`ThresholdParams`, :func:`pair_threshold`, :func:`make_threshold`), and the BoB NLP
(:func:`solve_bob`). Numba kernels for the simulation engine live in :mod:`.kernels`.

Names are imported on first use (:mod:`baiuv._deferred`, decision D105).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from baiuv._deferred import deferred_attributes

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

__getattr__, __dir__ = deferred_attributes(
    __name__,
    {
        "kernels": ".kernels",
        "BobSolverError": ".bob",
        "PyomoCyipoptBridge": ".bob",
        "available_backends": ".bob",
        "bob_fallback_count": ".bob",
        "bob_upper_bound": ".bob",
        "build_bob_model": ".bob",
        "reset_bob_fallback_count": ".bob",
        "solve_bob": ".bob",
        "box_initial_count": ".concentration",
        "eps_mu": ".concentration",
        "mean_deviation_bound": ".concentration",
        "monotonicity_initial_count": ".concentration",
        "one_minus_eps_minus": ".concentration",
        "one_plus_eps_plus": ".concentration",
        "riemann_zeta": ".concentration",
        "variance_lower_bound": ".concentration",
        "variance_lower_initial_time": ".concentration",
        "variance_upper_bound": ".concentration",
        "EV_FAMILIES": ".families",
        "FAMILIES": ".families",
        "FAMILY_CODES": ".families",
        "GLR_FAMILIES": ".families",
        "ThresholdParams": ".families",
        "ThresholdSpec": ".families",
        "arm_state_from_samples": ".families",
        "bob_constants": ".families",
        "initial_count": ".families",
        "make_threshold": ".families",
        "new_arm_state": ".families",
        "pair_threshold": ".families",
        "student_log_ratio": ".families",
        "student_quantile": ".families",
        "update_arm_state": ".families",
        "lambert_wbar_0": ".lambert",
        "lambert_wbar_m1": ".lambert",
        "log_lambert_wbar_0": ".lambert",
    },
    globals(),
)

if TYPE_CHECKING:  # static analysers and IDEs see the real names
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
