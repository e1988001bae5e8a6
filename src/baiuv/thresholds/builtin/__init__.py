"""The built-in threshold families, one module per family or per GLR/EV-GLR pair (D395:
a family is one module; the kernels and :mod:`baiuv.thresholds.families` dispatch through
tables built from the registry).

A module names the registry records it implements (``NAMES``; each record's ``module``
names it back) and holds:

* ``value(code, fparams, table, t, n_a, n_b, state_a, state_b)``: the ``numba.njit``
  threshold of one pair (``+inf`` before the initial times), the branch of
  :func:`baiuv.thresholds.kernels.pair_threshold_kernel` under the family's code, with the
  signature of a registered family's kernel;
* optionally ``upper_bound(code, fparams, table, n_a, n_b, state_a, state_b)``: the
  branch of :func:`baiuv.thresholds.kernels.pair_upper_bound` (D348), and
  ``update_state(code, fparams, state, n, mean, var)``: the per-arm state update of a
  stateful family (:func:`baiuv.thresholds.kernels.update_state`);
* ``initial_count(name, K, lid, params)``: the smallest per-arm count with a finite
  threshold at ``ln(1/delta) = lid``;
* ``constants(name, fp, K, lid, params, n_table)``: writes the family's slots of the
  spec's ``fparams`` (layout :mod:`baiuv.thresholds.layout`) and returns its ``table``;
* ``lower_bound(name, fp, table)``: ``(P_LB_MODE, P_LB_NMIN)`` of the stopping check's
  lower bounds (D254);
* optionally ``reference(name, spec, n_a, n_b, state_a, state_b, lid, params, backend,
  on_failure)``: the validated Python value of :func:`baiuv.thresholds.pair_threshold`
  where it is not the kernel's (exact Student quantiles, the BoB solver); ``USES_N_TABLE``
  when ``constants`` reads ``n_table``.

The numba branches are dispatched by :mod:`baiuv.thresholds._dispatch`, written from the
registry by :mod:`baiuv.thresholds.generate_dispatch`.
"""
