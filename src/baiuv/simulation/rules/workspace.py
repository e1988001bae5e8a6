"""The workspace of the sampling rules: a float64 array ``ws`` of ``K`` columns and the
scalars ``scal``, owned by one run (or one identifier) and kept between steps, of the size
``Workspace(rows, rows_per_arm, scalars)`` of the rule's registry record
(:class:`baiuv.registry.Workspace`), zero at the start of a run.

Each built-in rule's module names its rows and scalars, declares its size
(``WORKSPACE``, its record's) and initialises them (``init_*``): :mod:`.tas`,
:mod:`.dkm`, :mod:`.fws`, :mod:`.tracking` (the ``fixed`` baseline), :mod:`.tci` (none);
``uniform`` keeps none. :func:`init_workspace` allocates a workspace and runs the
built-in rule's initialisation by its ``RULE_*`` code (D390: each rule owns its
workspace, as a registered rule does)."""

from __future__ import annotations

import numpy as np
from numba import njit

from baiuv.registry import RULE_DKM, RULE_FIXED, RULE_FWS, RULE_TAS, RULE_TCI

from . import dkm, fws, tas, tci, tracking
from .dkm import init_dkm
from .fws import init_fws
from .tas import init_tas
from .tracking import W_SUMW, init_tracking

__all__ = ["BUILTIN_SIZES", "W_SUMW", "init_workspace", "new_workspace"]

#: The built-in rules' workspace sizes, by ``RULE_*`` code (their modules' ``WORKSPACE``).
BUILTIN_SIZES = {
    RULE_FIXED: tracking.WORKSPACE,
    RULE_TAS: tas.WORKSPACE,
    RULE_TCI: tci.WORKSPACE,
    RULE_DKM: dkm.WORKSPACE,
    RULE_FWS: fws.WORKSPACE,
}
_TAS = tuple(tas.WORKSPACE)
_DKM = tuple(dkm.WORKSPACE)
_FWS = tuple(fws.WORKSPACE)
_FIXED = tuple(tracking.WORKSPACE)
_NONE = tuple(tci.WORKSPACE)  # TCI's, and uniform's


@njit(cache=True, inline="always")
def new_workspace(K, size):
    """A zero workspace ``(ws, scal)`` of ``size = (rows, rows_per_arm, scalars)`` for
    ``K`` arms: ``ws`` of ``rows + rows_per_arm * K`` rows of ``K``, ``scal`` of
    ``scalars``."""
    return np.zeros((size[0] + size[1] * K, K)), np.zeros(size[2])


@njit(cache=True)
def init_workspace(counts, params, size, rule):
    """The workspace ``(ws, scal)`` of the sampling rule ``rule`` (its ``RULE_*`` code)
    after the initialisation phase (``counts`` the counts then, ``params`` the rule's
    parameters): a built-in rule's, of the size its module declares, initialised by it
    (``init_tas``, ``init_dkm``, ``init_fws``, ``init_tracking``; zero for ``uniform``
    and TCI); otherwise (``RULE_CUSTOM``, a rule registered with its own step kernel)
    zero, of the ``size = (rows, rows_per_arm, scalars)`` of its record."""
    K = counts.shape[0]
    if rule == RULE_TAS:
        ws, scal = new_workspace(K, _TAS)
        init_tas(ws, scal, counts, params)
    elif rule == RULE_DKM:
        ws, scal = new_workspace(K, _DKM)
        init_dkm(ws, scal, counts, params)
    elif rule == RULE_FWS:
        ws, scal = new_workspace(K, _FWS)
        init_fws(ws, scal, counts, params)
    elif rule == RULE_FIXED:
        ws, scal = new_workspace(K, _FIXED)
        init_tracking(ws, scal, counts, params)
    elif rule >= 0:  # uniform, TCI: none
        ws, scal = new_workspace(K, _NONE)
    else:
        ws, scal = new_workspace(K, size)
    return ws, scal
