"""The experiments, one module each, all with one shape: check the configuration, run (or
compute), summarise, render Markdown tables, state the claims checked in the reproduction
report (in a module of their own for the largest: ``*_claims``).

The paper's experiments:

* :mod:`.characteristic_times` -- complexity ratio sweeps and the named instances
  (Appendix ``app:sss_exp_characteristic_times``);
* :mod:`.thresholds` -- threshold curves, initial times, evaluation costs (Section
  ``ssec:simulations_stopping_thresholds``, Appendix ``app:sss_exp_thresholds``); claims
  in :mod:`.threshold_claims`;
* :mod:`.stopping_times` -- error rates and stopping times of the sampling rules (Section
  ``ssec:experiments``; its runs simulated by :func:`.stopping_times.run_shard`); claims in
  :mod:`.stopping_claims`;
* :mod:`.threshold_params` -- the thresholds' hyper-parameters (η0, η1), s and γ against
  Appendix ``app:ss_implementation_details``'s statements; claims in :mod:`.threshold_claims`;
* :mod:`.fhn_n0` -- FHN1/FHN2 across their initial sample size ``n0`` (Appendix
  ``app:ss_implementation_details``), with its claims.

The artifact's own studies, beyond the paper's experiments:

* :mod:`.bob_slope` -- the slope of the BoB threshold in ``ln(1/delta)`` against KL's;
* :mod:`baiuv.studies.delta_correct` -- empirical error rates of every rule and threshold against
  ``delta``;
* :mod:`baiuv.studies.asymptotic` -- the regime ``delta -> 0``: ``E[tau_delta]/log(1/delta)`` against the
  characteristic times of Theorem ``thm:upper_bound_sample_complexity_algorithm`` and the
  lower bound of Lemma ``lem:lower_bound_sample_complexity``; claims in
  :mod:`baiuv.studies.asymptotic_claims`;
* :mod:`baiuv.studies.audit` -- a delta-correctness audit of the heuristic threshold over many
  instances, algorithms and initial sample sizes ``n0``;
* :mod:`baiuv.studies.ev_remedies` -- remedies for the EV-GLR rules' errors and what they cost, with
  :mod:`baiuv.studies.ev_mechanism`, a tested model of why they err.

Each calls the simulation engine (:mod:`baiuv.simulation.engine`) and the model
(:mod:`baiuv.model`), never the pipeline.
"""

from baiuv._extras import require

require(__name__, "pandas")  # the extra 'pipeline'
