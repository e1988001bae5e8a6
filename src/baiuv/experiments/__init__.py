"""The paper's experiments, one module each, all with one shape: check the configuration,
run (or compute), summarise, render Markdown tables, state the claims checked in the
reproduction report (in a module of their own for the largest: ``*_claims``), and export
the experiment's record ``SPEC`` (:mod:`.spec`, D370):

* :mod:`.characteristic_times` -- complexity ratio sweeps and the named instances
  (Appendix ``app:sss_exp_characteristic_times``);
* :mod:`.thresholds` -- threshold curves, initial times, evaluation costs (Section
  ``ssec:simulations_stopping_thresholds``, Appendix ``app:sss_exp_thresholds``); claims
  and record in :mod:`.threshold_claims`;
* :mod:`.bob_slope` -- the slope of the BoB threshold in ``ln(1/delta)`` against KL's (the
  paper's reading of its Figure ``fig:stopping_thresholds_evolutions_glrt``); its claim in
  :mod:`.threshold_claims`;
* :mod:`.threshold_params` -- the thresholds' hyper-parameters (η0, η1), s and γ against
  Appendix ``app:ss_implementation_details``'s statements; claims in
  :mod:`.threshold_param_claims`;
* :mod:`.stopping_times` -- error rates and stopping times of the sampling rules (Section
  ``ssec:experiments``; its runs simulated by :func:`.stopping_times.run_shard`); claims and
  record in :mod:`.stopping_claims` (the error-rate rows in :mod:`.stopping_error_claims`), the
  paper's stated settings in :mod:`.settings_claims`;
* :mod:`.fhn_n0` -- FHN1/FHN2 across their initial sample size ``n0`` (Appendix
  ``app:ss_implementation_details``), with its claims.

The artifact's own studies, beyond the paper's experiments, live in :mod:`baiuv.studies`
(D371: the paper's experiments before the studies).

Each calls the simulation engine (:mod:`baiuv.simulation.engine`) and the model
(:mod:`baiuv.model`), never the pipeline.
"""

from baiuv._extras import require

require(__name__, "pandas")  # the extra 'pipeline'
