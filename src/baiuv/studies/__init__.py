"""The artifact's own studies, beyond the paper's experiments (:mod:`baiuv.experiments`),
with the same shape: check the configuration, run, summarise, render Markdown tables,
state the claims checked in the reproduction report, and export the study's record
``SPEC``:

* :mod:`.delta_correct` -- empirical error rates of every rule and threshold against
  ``delta``;
* :mod:`.asymptotic` -- the regime ``delta -> 0``: ``E[tau_delta]/log(1/delta)`` against the
  characteristic times of Theorem ``thm:upper_bound_sample_complexity_algorithm`` and the
  lower bound of Lemma ``lem:lower_bound_sample_complexity``, with its fits
  (:mod:`.asymptotic_fits`); claims and record in :mod:`.asymptotic_claims`;
* :mod:`.audit` -- a delta-correctness audit of the heuristic threshold over many
  instances, algorithms and initial sample sizes ``n0``; its tables and claims in
  :mod:`.audit_report`;
* :mod:`.ev_remedies` -- remedies for the EV-GLR rules' errors and what they cost, with
  :mod:`.ev_mechanism` (a tested model of why they err), :mod:`.ev_paired` (their costs as
  paired ratios) and :mod:`.ev_truncation` (the runs that reach ``max_samples``).

A study may import the paper's experiments, not the other way round.
"""

from baiuv._extras import require

require(__name__, "pandas")  # the extra 'pipeline'
