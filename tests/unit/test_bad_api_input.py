"""The public API refuses bad input with a ValueError naming the argument.

One table across modules: NaN/inf, wrong shapes, wrong lengths, non-positive variances or
counts, ties where a unique best arm is required, out-of-range delta/beta/K, unknown
names. Plus a property: any single non-finite entry anywhere in an otherwise valid
instance is refused by ``characteristic_time``, ``optimal_allocation`` and
``glr_statistics``, with the argument named.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from baiuv import BestArmIdentifier, characteristic_time, glr_statistics, optimal_allocation
from baiuv.thresholds import (
    FAMILIES,
    ThresholdParams,
    make_threshold,
    pair_threshold,
    solve_bob,
    student_log_ratio,
)

MU = [1.0, 0.8, 0.5]
S2 = [1.0, 0.5, 0.25]
NAN, INF = math.nan, math.inf


def _ct(**kw):
    args = {"mu": MU, "sigma2": S2} | kw
    return lambda: characteristic_time(args.pop("mu"), args.pop("sigma2"), **args)


def _w(**kw):
    args = {"mu": MU, "sigma2": S2} | kw
    return lambda: optimal_allocation(args.pop("mu"), args.pop("sigma2"), **args)


def _glr(**kw):
    args = {"counts": [3, 4, 5], "means": MU, "variances": S2} | kw
    return lambda: glr_statistics(
        args.pop("counts"), args.pop("means"), args.pop("variances"), **args
    )


def _mk(name="student", K=3, delta=0.1):
    return lambda: make_threshold(name, K, delta)


def _pair(**kw):
    args = {"n_a": 5, "n_b": 7, "K": 3, "delta": 0.1} | kw
    return lambda: pair_threshold("student", **args)


def _idf(*args, **kw):
    args = args or (3, 0.1)
    return lambda: BestArmIdentifier(*args, **kw)


def _bob(counts=(5, 7), C=(0.1, 0.2), D=(0.5, 0.6), E=3.0):
    return lambda: solve_bob(list(counts), list(C), list(D), E, backend="exact")


# (id, call, regex the ValueError message must match: it names the argument)
CASES = [
    ("ct_mu_nan", _ct(mu=[1.0, NAN, 0.5]), r"\bmu\b.*finite"),
    ("ct_mu_inf", _ct(mu=[INF, 0.8, 0.5]), r"\bmu\b.*finite"),
    ("ct_sigma2_nan", _ct(sigma2=[1.0, 0.5, NAN]), r"\bsigma2\b.*finite"),
    ("ct_sigma2_zero", _ct(sigma2=[1.0, 0.0, 0.25]), r"\bsigma2\b.*> 0"),
    ("ct_sigma2_negative", _ct(sigma2=[1.0, -0.5, 0.25]), r"\bsigma2\b"),
    ("ct_lengths_differ", _ct(sigma2=[1.0, 0.5]), r"\bmu\b.*\bsigma2\b.*same length"),
    ("ct_mu_2d", _ct(mu=[[1.0, 0.8, 0.5]]), r"\bmu\b.*1-D"),
    ("ct_one_arm", _ct(mu=[1.0], sigma2=[1.0]), r"\bmu\b.*at least 2"),
    ("ct_tie", _ct(mu=[1.0, 1.0, 0.5]), r"\bmu\b.*unique best arm"),
    ("ct_mu_strings", _ct(mu=["a", "b", "c"]), r"\bmu\b"),
    ("ct_beta_one", _ct(beta=1.0), r"\bbeta\b"),
    ("ct_beta_nan", _ct(beta=NAN), r"\bbeta\b"),
    ("ct_method", _ct(method="newton"), r"\bmethod\b"),
    ("w_tie", _w(mu=[0.3, 0.9, 0.9]), r"\bmu\b.*unique best arm"),
    ("w_sigma2_inf", _w(sigma2=[1.0, INF, 0.25]), r"\bsigma2\b.*finite"),
    ("w_wrong_shape", _w(sigma2=np.ones((3, 1))), r"\bsigma2\b.*1-D"),
    ("glr_counts_nan", _glr(counts=[3, NAN, 5]), r"\bcounts\b.*finite"),
    ("glr_counts_zero", _glr(counts=[3, 0, 5]), r"\bcounts\b.*> 0"),
    ("glr_means_inf", _glr(means=[1.0, -INF, 0.5]), r"\bmeans\b.*finite"),
    ("glr_variances_zero", _glr(variances=[1.0, 0.0, 0.5]), r"\bvariances\b.*> 0"),
    ("glr_lengths", _glr(means=[1.0, 0.5]), r"\bcounts\b.*\bmeans\b.*same length"),
    ("glr_2d", _glr(counts=np.ones((3, 2))), r"\bcounts\b.*1-D"),
    ("thr_family", _mk(name="studnet"), r"\bfamily\b.*one of"),
    ("thr_K_one", _mk(K=1), r"\bK\b.*>= 2"),
    ("thr_delta_zero", _mk(delta=0.0), r"\bdelta\b.*\(0, 1\)"),
    ("thr_delta_one", _mk(delta=1.0), r"\bdelta\b.*\(0, 1\)"),
    ("thr_delta_nan", _mk(delta=NAN), r"\bdelta\b"),
    ("pair_n_zero", _pair(n_a=0), r"\bn_a\b"),
    ("pair_n_nan", _pair(n_b=NAN), r"\bn_b\b"),
    ("pair_t_nan", _pair(t=NAN), r"\bt\b"),
    # numbers given as strings or bools are refused, not converted (range in the message)
    ("ct_mu_numeric_strings", _ct(mu=["1.0", "0.8", "0.5"]), r"\bmu\b.*real numbers"),
    ("ct_sigma2_bools", _ct(sigma2=[True, True, True]), r"\bsigma2\b.*real numbers"),
    ("ct_mixed_bool", _ct(mu=[1.0, True, 0.5]), r"\bmu\b.*real numbers"),
    ("ct_beta_string", _ct(beta="0.5"), r"\bbeta\b.*\(0, 1\)"),
    ("ct_beta_bool", _ct(beta=True), r"\bbeta\b.*\(0, 1\)"),
    ("w_mu_strings", _w(mu=["1", "0.5", "0"]), r"\bmu\b.*real numbers"),
    ("glr_counts_bools", _glr(counts=[True, True, True]), r"\bcounts\b.*real numbers"),
    ("glr_means_strings", _glr(means=["1", "0.8", "0.5"]), r"\bmeans\b.*real numbers"),
    ("thr_delta_string", _mk(delta="0.1"), r"\bdelta\b.*\(0, 1\)"),
    ("thr_delta_bool", _mk(delta=True), r"\bdelta\b.*\(0, 1\)"),
    ("thr_K_string", _mk(K="3"), r"\bK\b.*>= 2"),
    ("thr_K_bool", _mk(K=True), r"\bK\b.*>= 2"),
    ("thr_K_float", _mk(K=2.5), r"\bK\b.*>= 2"),
    ("thr_params_s_string", lambda: ThresholdParams(s="2"), r"\bs\b.*> 1"),
    ("thr_params_gamma_bool", lambda: ThresholdParams(gamma=True), r"\bgamma\b.*> 1"),
    ("thr_params_union_str", lambda: ThresholdParams(kl_union_over_pairs="no"), r"kl_union"),
    ("thr_student_delta_str", lambda: student_log_ratio(5, "0.1"), r"\bdelta\b.*\(0, 1\)"),
    ("pair_n_bool", _pair(n_a=True), r"\bn_a\b.*>= 1"),
    ("pair_n_string", _pair(n_b="7"), r"\bn_b\b.*>= 1"),
    ("pair_t_string", _pair(t="9"), r"\bt\b.*>= 1"),
    ("bob_E_string", _bob(E="x"), r"\bE\b.*> 0"),
    ("bob_E_bool", _bob(E=True), r"\bE\b.*> 0"),
    ("bob_E_zero", _bob(E=0.0), r"\bE\b.*> 0"),
    ("bob_D_above_one", _bob(D=(2.0, 0.5)), r"\bD\b.*\(0, 1\]"),
    ("bob_D_zero", _bob(D=(0.0, 0.5)), r"\bD\b.*\(0, 1\]"),
    ("bob_C_strings", _bob(C=("0.1", "0.2")), r"\bC\b.*real numbers"),
    ("bob_counts_three", _bob(counts=(5, 7, 9)), r"\bcounts\b.*exactly 2"),
    ("bob_counts_bools", _bob(counts=(True, True)), r"\bcounts\b.*real numbers"),
    ("idf_delta_string", _idf(3, "0.1"), r"\bdelta\b.*\(0, 1\)"),
    ("idf_delta_bool", _idf(3, True), r"\bdelta\b.*\(0, 1\)"),
    ("idf_n_arms_string", _idf("3", 0.1), r"\bn_arms\b.*>= 2"),
    ("idf_n_arms_bool", _idf(True, 0.1), r"\bn_arms\b.*>= 2"),
    ("idf_beta_string", _idf(beta="0.5"), r"\bbeta\b.*\(0, 1\)"),
    ("idf_n0_bool", _idf(n0=True), r"\bn0\b.*>= 2"),
    ("idf_n0_string", _idf(n0="2"), r"\bn0\b.*>= 2"),
    ("idf_max_samples_float", _idf(max_samples=100.5), r"\bmax_samples\b"),
    ("idf_max_samples_below_init", _idf(max_samples=5), r"\bmax_samples\b.*n0 \* n_arms"),
    ("idf_lazy_bool", _idf(lazy_ratio=True), r"\blazy_ratio\b.*> 1"),
    ("idf_fws_exponent_str", _idf(fws_exponent="0.9"), r"\bfws_exponent\b.*> 0"),
    ("idf_hedge_bool", _idf(hedge_delta0=True), r"\bhedge_delta0\b.*> 0"),
    ("idf_strict_int", _idf(strict=1), r"\bstrict\b"),
    ("idf_sampling", _idf(sampling="tsc"), r"\bsampling\b.*one of"),
    ("idf_threshold_family", _idf(sampling="ev-tci", threshold="bob"), r"\bthreshold\b.*ev-bob"),
]


@pytest.mark.parametrize("call,pattern", [pytest.param(c, p, id=i) for i, c, p in CASES])
def test_bad_input_is_refused_naming_the_argument(call, pattern):
    with pytest.raises(ValueError, match=pattern):
        call()


def test_table_covers_every_threshold_family_name_check():
    for name in FAMILIES:
        make_threshold(name, 3, 0.1)  # valid names are accepted


@given(
    which=st.sampled_from(["mu", "sigma2"]),
    index=st.integers(0, 2),
    bad=st.sampled_from([NAN, INF, -INF]),
)
def test_any_non_finite_entry_is_refused(which, index, bad):
    mu, s2 = list(MU), list(S2)
    (mu if which == "mu" else s2)[index] = bad
    for fn in (characteristic_time, optimal_allocation):
        with pytest.raises(ValueError, match=rf"\b{which}\b"):
            fn(mu, s2)
    name = "means" if which == "mu" else "variances"
    with pytest.raises(ValueError, match=rf"\b{name}\b"):
        glr_statistics([2, 3, 4], mu, s2)
