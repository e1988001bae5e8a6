"""Ask/tell best-arm identification for real experiments.

:class:`BestArmIdentifier` runs the sampling rules and the δ-correct GLR / EV-GLR stopping
rules of the paper on data that the *user* collects: it asks for an arm
(:meth:`~BestArmIdentifier.next_arm`), is told the observed value
(:meth:`~BestArmIdentifier.observe`), and stops when the GLR statistic of every challenger
exceeds its threshold (Section ``ssec:GLR_stopping_rule``, eqs. ``def_stopping_rule_glrt``
and ``def_stopping_rule_evglrt``). With a δ-correct threshold family (``student``, ``box``,
``kl``, ``bob`` for the GLR; ``ev-student``, ``ev-box``, ``ev-bob`` for the EV-GLR) the
recommended arm is the best one with probability at least ``1 - delta`` for Gaussian
observations with unknown means and variances, whatever the sampling rule (Lemmas 5, 49,
50 and 51, Theorem 6, Corollaries 7 and 52 of the paper; each family's record in
:data:`baiuv.registry.THRESHOLD_FAMILIES` names its own, :meth:`BestArmIdentifier.guarantee`).

Same code as the simulator
--------------------------
The identifier holds the run state of :func:`baiuv.simulation.rules.run_glr`
(:class:`~baiuv.simulation.rules.run_state.RunState`) and feeds each observation to it
with the loop's own steps, :func:`~baiuv.simulation.rules.run_state.observe_sample` and
:func:`~baiuv.simulation.rules.run_state.check_step` (the guard, the lazy grid and
:func:`~baiuv.simulation.rules.glr_stop_check` with the family's threshold kernel), in
one compiled call (:func:`baiuv.simulation.replay.ingest`; D350: one run state, one step,
three callers); it asks :func:`~baiuv.simulation.rules.select_arm` (or the rule's
registered step kernel) for the next arm. Its
coins (Top Two leader draw) come from its own ``numpy.random.Generator``; feeding it
``mu_a + sigma_a Z`` with ``Z`` drawn from that same generator reproduces
``simulate_run(..., rng=<generator with the same seed>)`` exactly (decision D72,
``tests/unit/test_identify.py``).

Protocol (decision D73)
-----------------------
* Initialisation: each arm is requested ``n0`` times, round robin (arm 0, 1, ..., K-1, 0,
  ...), as in the simulator; the stopping rule is first evaluated after ``n0 K`` samples.
* :meth:`next_arm` returns the oldest pending request, creating one if there is none
  (calling it twice without observing returns the same arm and draws no new coin);
  :meth:`next_arms` makes ``n`` more requests at once, with the pending ones counted as
  samples, answered later in any order (batches and delayed feedback,
  :mod:`baiuv.simulation.pending`).
* ``strict=True`` (default): :meth:`observe` accepts only a pending arm; an observation
  of another arm, or without a pending request, raises ``ValueError``.
  ``strict=False``: any arm may be observed at any time (e.g. data that arrive in an
  order the rule did not choose); an observation of a non-requested arm replaces the
  oldest pending request. The stopping rule, checked on the observations that have
  arrived, stays δ-correct because the thresholds hold uniformly over time for any
  adaptive sampling (Section 3, eq. (6) of the paper); only the sampling rule's
  guarantees on the sample complexity are lost.
* Degenerate statistics (decision D120): while some arm's observations are all equal
  (zero empirical variance) or a challenger's GLR statistic is ``nan``/``inf`` (e.g. two
  equal constant arms), :meth:`next_arm` asks for the least-sampled arm (forced
  exploration) and the stopping rule does not stop; the same guard
  (:func:`~baiuv.simulation.rules.degenerate_arm`) runs in the simulator's loop. With
  Gaussian observations this never happens.
* Every invalid call (``arm`` not an integer from 0 to ``K - 1``, ``value`` not a finite
  real number of magnitude at most :data:`MAX_ABS_VALUE` (decision D261), protocol violation, observation after the stop) raises ``ValueError`` and leaves
  the identifier unchanged.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from baiuv.registry import (
    ALGORITHMS,
    PARAMETERS,
    THRESHOLD_FAMILIES,
    selection,
)
from baiuv.simulation import replay, rules
from baiuv.simulation.data_shape import MAX_ABS_VALUE, ShapeCheck, checked_rows, value_problem
from baiuv.simulation.engine import (
    RunSettings,
    rule_params,
    threshold_spec,
)
from baiuv.simulation.epsilon import stopping_statistics, with_epsilon
from baiuv.simulation.ev_advice import heuristic_ev_warning
from baiuv.simulation.identify_summary import data_warnings_of, format_summary, guarantee_of
from baiuv.simulation.p_value import PValueTracker
from baiuv.simulation.pending import IdentifierError, Pending, choose_arms
from baiuv.simulation.rules import run_state
from baiuv.thresholds import EV_FAMILIES, GLR_FAMILIES
from baiuv.thresholds.kernels import STATE_SIZE, new_state

__all__ = [
    "MAX_ABS_VALUE",
    "SAMPLING_RULES",
    "BestArmIdentifier",
    "IdentifierError",
    "value_problem",
]

#: Sampling rules usable by the identifier: every GLR-based rule of the registry that does
#: not need the true instance (``selection("glr_algorithms")``), at import. Keys are lower case.
SAMPLING_RULES: dict[str, str] = {name.lower(): name for name in selection("glr_algorithms")}

_NO_CAP = 2**62


def _sampling_name(sampling: str) -> str:
    usable = {name.lower(): name for name in selection("glr_algorithms")}
    if not isinstance(sampling, str) or sampling.lower() not in usable:
        raise ValueError(f"sampling must be one of {sorted(usable)}, got {sampling!r}")
    return usable[sampling.lower()]


class BestArmIdentifier:
    """Fixed-confidence best-arm identification with unknown variances, ask/tell style.

    Parameters
    ----------
    n_arms : int
        Number of arms ``K >= 2``.
    delta : float
        Error probability in ``(0, 1)``: with a δ-correct threshold the recommendation is
        wrong with probability at most ``delta`` (Gaussian observations).
    sampling : str
        Sampling rule (case-insensitive): ``tci``/``ev-tci`` (β-EB-TCI, Top Two),
        ``tas``/``ev-tas`` (Track-and-Stop), ``dkm``/``ev-dkm``, ``fws``/``ev-fws``,
        ``uniform`` (round robin). The ``ev-`` rules plug in the empirical variances and
        use the EV-GLR stopping rule; the others use the GLR stopping rule with the
        unknown-variance transportation costs (Section ``sec:sampling_rules``).
    threshold : str
        Threshold family: ``bob`` (default; Corollary 7 of the paper),
        ``box``, ``kl``, ``student`` or ``heuristic`` (not proven δ-correct) for the GLR
        rules; ``ev-bob``, ``ev-box``, ``ev-student`` or ``heuristic`` for the ``ev-`` rules.
    n0 : int
        Initial requests per arm (``>= 2``; default: the registry's,
        :data:`baiuv.registry.PARAMETERS`).
    max_samples : int or None
        Budget (at least ``n0 * n_arms``): the identifier stops with
        ``stop_reason == "budget"`` after this many samples if the stopping rule has not
        fired (``None``: no budget).
    lazy_ratio : float or None
        ``> 1``: lazy stopping rule, evaluated only at the times ``ceil(n0 K ratio^k)``
        (decision D70); ``None``: after every sample.
    threshold_params : dict or None
        Keyword arguments of :class:`baiuv.thresholds.ThresholdParams` (``s``, ``gamma``,
        ``eta0``, ``eta1``, ``kl_union_over_pairs``) and values of the parameters that
        registered families declare (``ThresholdParams.from_mapping``).
    strict : bool
        Whether :meth:`observe` only accepts the requested arm (see the module docstring).
    epsilon : float
        Indifference zone ``>= 0``: the recommendation is within ``epsilon`` of the best
        with probability ``>= 1 - delta`` (``0``: the best; :mod:`baiuv.simulation.epsilon`).
        ``tci`` and ``ev-tci`` take their challenger with the ε-statistic (D323: the Top
        Two rules take their challenger with the run's sampling epsilon), so that a tie of
        the best arms stops; the other rules do not read it.
    rng : None, int, numpy.random.SeedSequence or numpy.random.Generator
        Source of the sampling rule's coins (``numpy.random.default_rng(rng)``; a
        ``Generator`` is used as is, not copied).
    beta, fws_exponent, hedge_delta0 : float
        The sampling rules' parameters (:data:`baiuv.registry.RULE_PARAMETERS`), keyword
        only, each defaulting to its registry value: ``beta`` the leader probability of the
        Top Two rules, ``fws_exponent`` and ``hedge_delta0`` the parameters of FWS and DKM
        (see :class:`baiuv.simulation.RunSettings`; a test checks every rule parameter of
        the registry is a keyword here).

    Examples
    --------
    >>> import numpy as np
    >>> from baiuv import BestArmIdentifier
    >>> rng = np.random.default_rng(0)
    >>> idf = BestArmIdentifier(2, 0.05, sampling="tci", threshold="box", rng=1)
    >>> while not idf.done:
    ...     arm = idf.next_arm()
    ...     idf.observe(arm, [0.5, 0.0][arm] + rng.standard_normal())
    >>> idf.recommendation, idf.stop_reason
    (0, 'glr')
    """

    def __init__(
        self,
        n_arms: int,
        delta: float,
        sampling: str = "tci",
        threshold: str = "bob",
        *,
        n0: int = PARAMETERS["n0"].default,
        max_samples: int | None = None,
        lazy_ratio: float | None = None,
        threshold_params: dict | None = None,
        strict: bool = True,
        epsilon: float = 0.0,
        rng: Any = None,
        beta: float = PARAMETERS["beta"].default,
        fws_exponent: float = PARAMETERS["fws_exponent"].default,
        hedge_delta0: float = PARAMETERS["hedge_delta0"].default,
    ) -> None:
        # the warm-up module imports this one in its functions
        from baiuv import warmup

        warmup.first_use()  # one line on stderr when the kernels must be compiled first
        if isinstance(n_arms, bool) or not isinstance(n_arms, numbers.Integral) or n_arms < 2:
            raise ValueError(f"n_arms must be an integer >= 2, got {n_arms!r}")
        name = _sampling_name(sampling)
        alg = ALGORITHMS[name]
        if not isinstance(threshold, str):
            raise ValueError(f"threshold must be a string, got {threshold!r}")
        allowed = EV_FAMILIES if alg.plug_in else GLR_FAMILIES
        if threshold not in allowed:
            hint = ""
            if alg.plug_in and f"ev-{threshold}" in EV_FAMILIES:
                hint = f" (the EV-GLR version of {threshold!r} is 'ev-{threshold}')"
            elif not alg.plug_in and threshold.startswith("ev-"):
                hint = f" (the GLR version of {threshold!r} is {threshold[3:]!r})"
            raise ValueError(
                f"threshold must be one of {list(allowed)} for sampling {sampling!r} "
                f"({alg.stopping} stopping rule), got {threshold!r}{hint}"
            )
        if max_samples is not None and (
            isinstance(max_samples, bool)
            or not isinstance(max_samples, numbers.Integral)
            or max_samples < 1
        ):
            raise ValueError(f"max_samples must be None or a positive integer, got {max_samples!r}")
        if (
            max_samples is not None
            and isinstance(n0, numbers.Integral)
            and isinstance(n_arms, numbers.Integral)
            and max_samples < n0 * n_arms
        ):
            raise ValueError(
                f"max_samples must be None or at least n0 * n_arms = {n0 * n_arms} (the "
                f"initial samples), got {max_samples!r}"
            )
        if not isinstance(strict, bool):
            raise ValueError(f"strict must be a bool, got {strict!r}")
        if threshold_params is not None and not isinstance(threshold_params, dict):
            raise ValueError(f"threshold_params must be a dict or None, got {threshold_params!r}")
        heuristic_ev_warning(alg.plug_in, threshold, n0)
        settings = RunSettings(
            delta=delta,
            threshold=threshold,
            n0=n0,
            max_samples=int(max_samples) if max_samples is not None else _NO_CAP,
            threshold_params=dict(threshold_params or {}),
            lazy_ratio=lazy_ratio,
            epsilon=epsilon,
            beta=beta,
            fws_exponent=fws_exponent,
            hedge_delta0=hedge_delta0,
        )
        try:
            self._rng = np.random.default_rng(rng)
        except (TypeError, ValueError) as exc:
            raise ValueError(
                f"rng must be None, an int, a SeedSequence or a Generator ({exc})"
            ) from None
        K = int(n_arms)
        try:
            spec = threshold_spec(
                threshold,
                K,
                settings.resolved_log_inv_delta,
                tuple(sorted(settings.threshold_params.items())),
            )
        except TypeError as exc:
            raise ValueError(f"threshold_params: {exc}") from None
        self._K = K
        self._settings = settings
        self._alg = alg
        self._sampling = name
        self._spec = with_epsilon(spec, settings.epsilon)  # a copy when epsilon > 0
        # a family registered with its own kernel: the stopping check is compiled for it
        self._thr_kernel = THRESHOLD_FAMILIES[threshold].threshold_kernel()
        self._params = rule_params(settings)
        alg.step_kernel()  # a registered kernel must import (checked here, used in next_arm)
        self._wfix = np.full(K, 1.0 / K)
        self._strict = strict
        self._max = settings.max_samples
        # the run state and its stopping rule: the simulator's (D350: one run state, one
        # step, three callers)
        states = np.empty((K, STATE_SIZE))
        for a in range(K):
            states[a] = new_state()
        stats = (np.zeros(K, dtype=np.int64), np.zeros(K), np.zeros(K), np.zeros(K))
        bounds = (-math.inf, math.inf, -1)
        self._run = run_state.new_run_state(stats, states, rules.new_zcache(K), bounds, 0)
        lazy = float(settings.lazy_ratio) if settings.lazy_ratio is not None else 0.0
        spec = self._spec
        t0 = float(settings.n0 * K)
        self._stop = run_state.stop_rule(spec.code, spec.fparams, spec.table, alg.plug_in, lazy, t0)
        self._Z = np.full(K, np.nan)
        self._thr = np.full(K, np.nan)
        self._ws: np.ndarray | None = None
        self._scal: np.ndarray | None = None
        self._best = -1
        self._forced = -1  # arm of the forced exploration while degenerate (D120), else -1
        self._shape = ShapeCheck(K)
        self._pending = Pending(K)
        self._done = False
        self._stop_reason: str | None = None
        self._recommendation: int | None = None
        self._checks = 0
        self._last_check_t = -1
        self._pv = PValueTracker(
            threshold, K, settings.resolved_log_inv_delta, settings.threshold_params
        )

    # ------------------------------------------------------------------ properties
    @property
    def _counts(self) -> np.ndarray:
        return self._run.counts

    @property
    def _means(self) -> np.ndarray:
        return self._run.means

    @property
    def _vars(self) -> np.ndarray:
        return self._run.variances

    @property
    def _states(self) -> np.ndarray:
        return self._run.states

    @property
    def n_arms(self) -> int:
        """Number of arms ``K``."""
        return self._K

    @property
    def delta(self) -> float:
        """Error probability ``delta`` (the recommendation is right with probability at
        least ``1 - delta``)."""
        return float(self._settings.resolved_delta)

    @property
    def sampling(self) -> str:
        """Name of the sampling rule (registry spelling, e.g. ``"EV-TCI"``)."""
        return self._sampling

    @property
    def threshold(self) -> str:
        """Threshold family."""
        return self._settings.threshold

    @property
    def stopping_rule(self) -> str:
        """``"GLR"`` or ``"EV-GLR"``."""
        return self._alg.stopping

    @property
    def epsilon(self) -> float:
        """Indifference zone (``0``: exact best-arm identification)."""
        return self._settings.epsilon

    @property
    def n_samples(self) -> int:
        """Number of observations so far (``t``)."""
        return int(self._counts.sum())

    @property
    def counts(self) -> np.ndarray:
        """Observations per arm (a copy)."""
        return self._counts.copy()

    @property
    def means(self) -> np.ndarray:
        """Empirical means (a copy; 0 for arms never observed)."""
        return self._means.copy()

    @property
    def variances(self) -> np.ndarray:
        """``1/N`` empirical variances (a copy), Section ``ssec:GLR_stopping_rule``."""
        return self._vars.copy()

    @property
    def pending(self) -> int | None:
        """Arm of the oldest pending request, or ``None``."""
        return self._pending.oldest

    @property
    def pending_arms(self) -> list[int]:
        """Arms of every pending request, oldest first (a copy)."""
        return list(self._pending.order)

    @property
    def in_initialisation(self) -> bool:
        """``True`` while some arm has fewer than ``n0`` observations."""
        return bool(self._counts.min() < self._settings.n0)

    @property
    def done(self) -> bool:
        """Whether the identifier has stopped (see :attr:`stop_reason`)."""
        return self._done

    @property
    def stop_reason(self) -> str | None:
        """``None`` while running; ``"glr"`` when every challenger's GLR statistic exceeds
        its threshold (the δ-correct stop); ``"budget"`` when ``max_samples`` was reached
        first (then the recommendation carries no guarantee)."""
        return self._stop_reason

    @property
    def recommendation(self) -> int | None:
        """The recommended arm once :attr:`done` (the empirical best arm at the stopping
        time, first index on ties), else ``None``."""
        return self._recommendation

    @property
    def empirical_best(self) -> int | None:
        """Current empirical best arm (``None`` before every arm is observed)."""
        if self._counts.min() < 1:
            return None
        return int(np.argmax(self._means))

    @property
    def p_value(self) -> float:
        """Anytime-valid p-value of "arm :attr:`p_value_recommendation` is not the best"
        (more than :attr:`epsilon` below it): the smallest δ at which the stopping rule would
        have stopped at a check so far (``1.0`` if none; :mod:`baiuv.simulation.p_value`)."""
        return self._pv.p_value

    @property
    def p_value_recommendation(self) -> int | None:
        """The empirical best arm at the check attaining :attr:`p_value` (or ``None``)."""
        return self._pv.recommendation

    @property
    def p_value_valid(self) -> bool:
        """Whether :attr:`p_value` is anytime-valid (``False``: family not δ-correct)."""
        return self._pv.valid

    # ------------------------------------------------------------------ ask / tell
    def next_arm(self) -> int:
        """The arm to observe next: the oldest pending request, created (as
        ``next_arms(1)``) if there is none.

        During initialisation the arm with the fewest observations (first index on ties:
        round robin); afterwards the sampling rule's choice
        (:func:`baiuv.simulation.rules.select_arm`, the simulator's code, or the step kernel
        the rule was registered with).

        Raises
        ------
        IdentifierError
            If the identifier has stopped.
        """
        if self._pending.total:
            return self._pending.oldest
        return self.next_arms(1)[0]

    def next_arms(self, n: int) -> list[int]:
        """``n`` more requests (a batch), added to the pending ones and returned in order.

        Each is the sampling rule's choice with the pending requests and the choices before
        it counted as samples (tracking rules track counts plus pending; Top Two draws its
        coin per request; the initial round robin counts pending requests), on the
        statistics of the observations that have arrived (:mod:`baiuv.simulation.pending`,
        D282: pending requests are counted as samples). Answer them with :meth:`observe`
        or :meth:`observe_many` in any order.

        Raises
        ------
        ValueError
            ``n`` not a positive integer, or more requests than ``max_samples`` allows
            (:class:`IdentifierError`; also after the stop).
        """
        if self._done:
            raise IdentifierError(
                f"the identifier has stopped (stop_reason={self._stop_reason!r}); "
                f"recommendation: arm {self._recommendation}"
            )
        if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 1:
            raise ValueError(f"n must be a positive integer, got {n!r}")
        left = self._max - self.n_samples - self._pending.total
        if n > left:
            raise IdentifierError(
                f"next_arms({n}): only {left} more requests fit in max_samples = {self._max} "
                f"({self.n_samples} observed, {self._pending.total} pending)"
            )
        arms = choose_arms(self, int(n))
        self._pending.add(arms)
        return arms

    def observe(self, arm: int, value: float) -> bool:
        """Record the observation ``value`` of ``arm`` and evaluate the stopping rule.

        Parameters
        ----------
        arm : int
            Arm index in ``[0, n_arms)``; with ``strict=True`` it must be a pending
            request (:meth:`next_arm`, :meth:`next_arms`); it answers the oldest of them.
        value : float
            Finite real observation, ``|value| <= 1e50`` (:data:`MAX_ABS_VALUE`, decision
            D261).

        Returns
        -------
        bool
            :attr:`done` after this observation.

        Raises
        ------
        ValueError
            Invalid ``arm`` or ``value`` (:class:`IdentifierError` for protocol
            violations); the identifier is then unchanged.
        """
        if self._done:
            raise IdentifierError(
                f"the identifier has stopped (stop_reason={self._stop_reason!r}); "
                "observations after the stopping time are not accepted"
            )
        if isinstance(arm, bool) or not isinstance(arm, numbers.Integral):
            raise ValueError(f"arm must be an integer in [0, {self._K}), got {arm!r}")
        if not (0 <= int(arm) < self._K):
            raise ValueError(f"arm must be in [0, {self._K}), got {arm!r}")
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise ValueError(f"value must be a finite real number, got {value!r}")
        x = float(value)
        problem = value_problem(x)
        if problem is not None:
            raise ValueError(problem)
        arm = int(arm)
        if self._strict:
            self._pending.check(np.array([arm]), one=True)
        self._shape.add(arm, x)
        self._consume(np.array([arm], dtype=np.int64), np.array([x]))
        return self._done

    def observe_many(self, arms: ArrayLike, values: ArrayLike) -> int:
        """Record the observations ``(arms[i], values[i])`` in order, in one compiled loop,
        up to the stopping time.

        The result is that of ``observe(arms[i], values[i])`` for ``i = 0, 1, ...`` until
        :attr:`done`: same stopping row, recommendation, statistics, data warnings and
        number of stopping-rule evaluations (:func:`baiuv.simulation.replay.ingest` runs
        the functions of :meth:`observe`; with a threshold family registered with its own
        kernel, :meth:`observe` itself records the rows one by one). The rows after the
        stopping row are not used. :attr:`p_value` counts the check of the last row
        consumed, not those before it in the batch (a larger, still valid p-value; D270).
        Each row answers a pending request as :meth:`observe` would (with ``strict=True``
        every row must, the batch being checked as a multiset first); the sampling rule's
        coins are not drawn (:meth:`next_arm` is not called).

        Parameters
        ----------
        arms : array_like of int, shape (n,)
            Arm indices in ``[0, n_arms)`` (an integer dtype).
        values : array_like of float, shape (n,)
            Finite real observations of magnitude at most :data:`MAX_ABS_VALUE` (an
            integer or floating dtype).

        Returns
        -------
        int
            Number of rows consumed: ``n`` if the identifier did not stop, else the
            position of the stopping row plus one.

        Raises
        ------
        ValueError
            Wrong shapes or dtypes, a value that is not finite or beyond
            :data:`MAX_ABS_VALUE`, or an arm outside ``[0, n_arms)``, naming the first such
            position; :class:`IdentifierError` after
            the stop, or with ``strict=True`` for a row that answers no pending request
            (naming it and its arm). Nothing changes then.
        """
        if self._done:
            raise IdentifierError(
                f"the identifier has stopped (stop_reason={self._stop_reason!r}); "
                "observations after the stopping time are not accepted"
            )
        a, x = checked_rows(arms, values, self._K)
        n = a.shape[0]
        if n == 0:
            return 0
        if self._strict:
            self._pending.check(a)
            if n == 1:
                self.observe(int(a[0]), float(x[0]))
                return 1
        pos = self._consume(a, x)
        self._shape.add_many(a[:pos], x[:pos])
        return pos

    def _consume(self, arms: np.ndarray, values: np.ndarray) -> int:
        """Feed the rows ``(arms[i], values[i])`` to the run state
        (:func:`baiuv.simulation.replay.ingest`: the rows and the simulator's two steps)
        until a stop, answering their pending requests; the sampling rule's workspace is
        built where the initialisation ends, and the p-value counts the check of the last
        row consumed (D270). Returns the number of rows consumed."""
        n = arms.shape[0]
        pos = 0
        check_first = False
        while pos < n or check_first:
            end, status = self._ingest(arms, values, pos, check_first)
            self._pending.answer(arms[pos:end].tolist())
            pos = end
            check_first = False
            if status == replay.STATUS_INIT_DONE:  # the workspace, then the first check
                self._ws, self._scal = self._init_workspace()
                check_first = True
            elif status != replay.STATUS_RAN_OUT:
                self._finish("glr" if status == replay.STATUS_GLR else "budget")
                break
        if self._last_check_t == self.n_samples and self._forced < 0 and pos:
            # the check of the last row consumed
            self._track_p_value(self.n_samples, self._stop_reason == "glr")
        return pos

    def _ingest(
        self, arms: np.ndarray, values: np.ndarray, start: int, check_first: bool
    ) -> tuple[int, int]:
        """One call of the compiled replay from row ``start`` (the built-in families' cached
        one, or the one compiled for a family's own kernel): the run state and the
        identifier's scalars updated; returns ``(end, status)``."""
        io = (
            int(self._settings.n0),
            int(self._max),
            int(self._best),
            int(self._forced),
            int(self._checks),
            int(self._last_check_t),
            bool(check_first),
        )
        args = ((arms, values, int(start)), self._run, self._stop, io, (self._Z, self._thr))
        if self._thr_kernel is None:
            run, res = replay.ingest(*args)
        else:
            run, res = replay.ingest_with(self._thr_kernel, *args)
        self._run = run
        end, status, best, forced, checks, last = (int(v) for v in res)
        self._best, self._forced, self._checks, self._last_check_t = best, forced, checks, last
        return end, status

    # ------------------------------------------------------------------ stopping
    def _track_p_value(self, t: int, stopped: bool) -> None:
        """The p-value after the check at ``t`` (:mod:`baiuv.simulation.p_value`)."""
        self._pv.update(t, self._counts, self._stop_stats(), self._best, self._states, stopped)

    def _init_workspace(self) -> tuple[np.ndarray, np.ndarray]:
        """The sampling rule's workspace, of the size its record declares."""
        alg = self._alg
        size = tuple(alg.workspace)
        plus = self._counts + self._pending.per_arm  # (D282: pending requests count as samples)
        return rules.init_workspace(plus, self._params, size, alg.rule)

    def _check_thresholds(self, t: int, fail: int, out: np.ndarray) -> None:
        """The thresholds the stopping check at ``t`` compares with, written to ``out``
        (:func:`~baiuv.simulation.rules.check_thresholds`; every challenger when
        ``fail < 0``)."""
        family = (self._spec.code, self._spec.fparams, self._spec.table)
        args = (family, (t, self._counts, self._best, self._states), fail, out)
        if self._thr_kernel is None:
            rules.check_thresholds_builtin(*args)
        else:
            rules.check_thresholds(self._thr_kernel, *args)

    def _finish(self, reason: str) -> None:
        self._done = True
        self._stop_reason = reason
        self._recommendation = int(self._best)
        self._pending.clear()  # (D284: the stop cancels the pending requests)

    def thresholds(self) -> np.ndarray:
        """Current threshold ``c_{hat a, a}(N_t, delta)`` of every challenger ``a`` (``nan``
        at the empirical best arm and before the end of initialisation; ``inf`` before
        the family's initial times)."""
        out = np.full(self._K, np.nan)
        if self.in_initialisation:
            return out
        self._check_thresholds(self.n_samples, -1, out)
        return out

    def glr(self) -> np.ndarray:
        """Current GLR (or EV-GLR) statistic of every arm against the empirical best arm
        (the challenger's mean shifted by ``-epsilon``; ``inf`` at the best arm, ``nan``
        before the end of initialisation)."""
        if self.in_initialisation:
            return np.full(self._K, np.nan)
        return self._stop_stats().copy()

    def _stop_stats(self) -> np.ndarray:
        args = (self._counts, self._means, self._vars, self._alg.plug_in, self._best)
        return stopping_statistics(self._Z, *args, self.epsilon)

    def summary(self) -> dict:
        """State of the identification as a plain dict (JSON-serialisable).

        Keys: ``n_arms, delta, sampling, stopping_rule, threshold, lazy_ratio, n0, strict,
        epsilon, n_samples, done, stop_reason, recommendation, empirical_best, counts, means,
        variances, glr, thresholds, margin`` (``glr - threshold`` per challenger; the rule
        stops when every margin is ``> 0``), ``checks`` (evaluations of the stopping rule),
        ``p_value, p_value_recommendation, p_value_valid`` (:attr:`p_value`).
        """
        glr = self.glr()
        thr = self.thresholds()
        with np.errstate(invalid="ignore"):  # inf - inf before the initial times
            margin = glr - thr

        def lst(x):
            return [None if np.isnan(v) else float(v) for v in x]

        return {
            "n_arms": self._K,
            "delta": self.delta,
            "sampling": self._sampling,
            "stopping_rule": self.stopping_rule,
            "threshold": self.threshold,
            "lazy_ratio": self._settings.lazy_ratio,
            "n0": int(self._settings.n0),
            "strict": self._strict,
            "epsilon": self.epsilon,
            "n_samples": self.n_samples,
            "done": self._done,
            "stop_reason": self._stop_reason,
            "recommendation": self._recommendation,
            "empirical_best": self.empirical_best,
            "counts": [int(c) for c in self._counts],
            "means": [float(m) for m in self._means],
            "variances": [float(v) for v in self._vars],
            "glr": lst(glr),
            "thresholds": lst(thr),
            "margin": lst(margin),
            "checks": self._checks,
            "p_value": self.p_value,
            "p_value_recommendation": self.p_value_recommendation,
            "p_value_valid": self.p_value_valid,
            "forced_exploration": self._forced >= 0 and not self._done,
            "guarantee": self.guarantee(),
            "warnings": self.data_warnings(),
        }

    def guarantee(self) -> dict:
        """What the threshold family's registry record says of the error probability:
        ``{"delta_correct": bool, "proof": str | None}`` (:func:`guarantee_of`), never read
        from the family's name."""
        return guarantee_of(self.threshold)

    def data_warnings(self) -> list[str]:
        """Plain-words warnings when the observations do not look Gaussian (decision D121):
        an arm whose observations are all equal, many ties (few distinct values, or one
        value for half of the observations), or a strong skew (``|skewness| >= 2``). The
        error guarantee assumes Gaussian observations. Empty when nothing is flagged."""
        return data_warnings_of(self._shape, self._K, self._forced >= 0 and not self._done)

    def format_summary(self, labels=None) -> str:
        """Human-readable :meth:`summary` (used by ``baiuv identify``), the arms named by
        ``labels`` (one per arm) if given."""
        return format_summary(self.summary(), labels)

    def __repr__(self) -> str:
        state = (
            f"stopped ({self._stop_reason}), arm {self._recommendation}"
            if self._done
            else "running"
        )
        return (
            f"BestArmIdentifier(n_arms={self._K}, delta={self.delta:g}, "
            f"sampling={self._sampling!r}, threshold={self.threshold!r}, "
            f"n_samples={self.n_samples}, {state})"
        )
