r"""Exact, fast solver of the two-arm BoB and EV-BoB programs (no general NLP solver).

Corollary ``cor:delta_correct_Kinf_thresholds`` (BoB, GLR stopping rule) and Corollary
``cor:delta_correct_Kinf_thresholds_ev`` (EV-BoB, EV-GLR stopping rule), Appendix
``app:ss_Kinf_thresholds``, define the threshold of a pair of arms ``c in {1, 2}`` as the
optimal value of

.. math::

    \max\ \tfrac12 \sum_c N_c\, g(y_c) \quad\text{s.t.}\quad y_c \ge 0,\ x_c y_c \le C_c,\
    x_c \ge D_c,\ \tfrac12 \sum_c N_c f(x_c, y_c) \le E,

with :math:`f(x, y) = (1 + y) x - 1 - \ln x`, :math:`g(y) = \ln(1 + y)` (BoB) or
:math:`g(y) = y` (EV-BoB). The program is not convex (decision D30); the solver eliminates
``x`` exactly, cuts each arm's value/KL trade-off into pieces of known convexity
(:class:`.arms.Arm`, piece kinds :data:`.arms.A` ... :data:`.arms.EV_C2`) and enumerates a finite candidate set (:mod:`.enumeration`)
that provably contains a global maximiser; certified shortcuts (:mod:`.shortcuts`, decision D91) skip the
enumeration on the common inputs. The method and the proof of global optimality are in
``docs/bob-exact-proof.md``.
"""

from baiuv.thresholds.bob_exact.solver import (
    bob_exact,
    bob_exact_solution,
    solve_bob_exact,
    solve_bob_exact_solution,
)

__all__ = ["bob_exact", "bob_exact_solution", "solve_bob_exact", "solve_bob_exact_solution"]
