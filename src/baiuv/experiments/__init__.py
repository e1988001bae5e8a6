"""Experiments beyond the paper's figures (issue 8).

* :mod:`baiuv.experiments.asymptotic` -- the asymptotic regime ``delta -> 0``:
  ``E[tau_delta]/log(1/delta)`` against the characteristic times of Theorem
  ``thm:upper_bound_sample_complexity_algorithm`` and the lower bound of Lemma
  ``lem:lower_bound_sample_complexity``;
* :mod:`baiuv.experiments.audit` -- a delta-correctness audit of the heuristic threshold
  over many instances, algorithms and initial sample sizes ``n0``.

Both only call the public simulation engine (:mod:`baiuv.simulation`).
"""

from baiuv.experiments.asymptotic import (
    THEORY,
    AsymptoticInstance,
    asymptotic_claims,
    asymptotic_instances,
    delta_label,
    fit_second_order,
    fit_slope,
    level_label,
    run_asymptotic_cell,
    slope_table,
    summarize_asymptotic,
    theoretical_constants,
    verdict_table,
)
from baiuv.experiments.audit import (
    AuditInstance,
    audit_cells,
    audit_claims,
    audit_instances,
    audit_summary,
    explain_flagged,
    instance_features,
    run_audit_shard,
    runs_to_resolve,
)

__all__ = [
    "THEORY",
    "AsymptoticInstance",
    "AuditInstance",
    "asymptotic_claims",
    "asymptotic_instances",
    "audit_cells",
    "audit_claims",
    "audit_instances",
    "audit_summary",
    "delta_label",
    "explain_flagged",
    "fit_second_order",
    "fit_slope",
    "instance_features",
    "level_label",
    "run_asymptotic_cell",
    "run_audit_shard",
    "runs_to_resolve",
    "slope_table",
    "summarize_asymptotic",
    "theoretical_constants",
    "verdict_table",
]
