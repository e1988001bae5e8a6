"""What the identifier says is true: its guarantee comes from the threshold family's registry
record (decision D264), huge finite values are refused before they can overflow a statistic
(D261), and the first compile is announced once per process (D264)."""

import dataclasses
import math

import numpy as np
import pytest

from baiuv import BestArmIdentifier, registry, warmup
from baiuv.report.paper_refs import LABELS
from baiuv.simulation.identify import MAX_ABS_VALUE
from baiuv.simulation.identify_summary import format_summary, guarantee_text

#: Where the paper proves each built-in δ-correct family, by LaTeX label (the source).
PROVED_BY = {
    "student": "lem:delta_correct_student_thresholds",
    "box": "lem:delta_correct_box_thresholds",
    "kl": "cor:delta_correct_Kinf_thresholds",
    "bob": "cor:delta_correct_Kinf_thresholds",
    "ev-student": "lem:delta_correct_student_thresholds_ev",
    "ev-box": "lem:delta_correct_box_thresholds_ev",
    "ev-bob": "cor:delta_correct_Kinf_thresholds_ev",
}


def test_every_builtin_family_records_its_proof_in_printed_numbering():
    for name, fam in registry.THRESHOLD_FAMILIES.items():
        if name in PROVED_BY:
            assert fam.delta_correct and fam.proof == LABELS[PROVED_BY[name]], name
            assert ":" not in fam.proof  # "Lemma 5", never a LaTeX label
        else:
            assert name in ("heuristic", "ev-heuristic-student")
            assert not fam.delta_correct and fam.proof == "", name


def test_a_family_not_delta_correct_cannot_name_a_proof():
    with pytest.raises(ValueError, match="proof"):
        registry.ThresholdFamily(
            name="x", code=0, rules=("GLR",), delta_correct=False, proof="Lemma 5"
        )


def identifier(threshold="bob", sampling="tci"):
    return BestArmIdentifier(2, 0.1, sampling, threshold, strict=False, rng=0)


@pytest.mark.parametrize(
    "threshold,sampling,expected",
    [
        ("bob", "tci", "delta-correct (Corollary 7 of the paper)"),
        ("box", "tci", "delta-correct (Lemma 5 of the paper)"),
        ("ev-student", "ev-tci", "delta-correct (Lemma 50 of the paper)"),
        ("heuristic", "tci", "no guarantee"),
        ("ev-heuristic-student", "ev-tci", "no guarantee"),
    ],
)
def test_the_guarantee_statement_follows_the_record(threshold, sampling, expected):
    s = identifier(threshold, sampling).summary()
    assert guarantee_text(s).startswith(expected)
    assert s["guarantee"]["delta_correct"] == (expected != "no guarantee")


def test_the_guarantee_is_read_from_the_record_not_the_name(monkeypatch):
    """The same name with a record that says 'not δ-correct' loses its guarantee; a
    registered δ-correct family without a proof in the paper says so."""
    box = registry.THRESHOLD_FAMILIES["box"]
    monkeypatch.setitem(
        registry.THRESHOLD_FAMILIES,
        "box",
        dataclasses.replace(box, delta_correct=False, proof=""),
    )
    s = identifier("box").summary()
    assert s["guarantee"] == {"delta_correct": False, "proof": None}
    assert guarantee_text(s).startswith("no guarantee: the box threshold")
    monkeypatch.setitem(registry.THRESHOLD_FAMILIES, "box", dataclasses.replace(box, proof=""))
    s = identifier("box").summary()
    assert "registry record, not a result of the paper" in guarantee_text(s)


# ----------------------------------------------------------------------- huge values
@pytest.mark.parametrize("big", [1e308, -1e308, 1.7e308, -1.7e308, 1.0000001e50])
def test_observe_refuses_a_value_that_could_overflow(big):
    idf = identifier()
    idf.observe(0, 1.0)
    before = (idf.counts, idf.means, idf.variances)
    with pytest.raises(ValueError, match=r"too large: \|value\| must be at most 1e\+50"):
        idf.observe(0, big)
    after = (idf.counts, idf.means, idf.variances)
    assert all(np.array_equal(u, v) for u, v in zip(before, after, strict=True))


@pytest.mark.parametrize("big", [1e308, 1.7e308])
def test_observe_many_refuses_huge_values_naming_the_row(big):
    idf = identifier()
    arms = np.arange(2000) % 2
    values = np.where(np.arange(2000) // 2 % 2 == 0, big, -big)
    values[:7] = 0.5
    with pytest.raises(ValueError, match=r"values\[7\]: value .* too large"):
        idf.observe_many(arms, values)
    assert idf.n_samples == 0
    values[:] = 1.0
    values[5] = math.inf
    with pytest.raises(
        ValueError, match=r"values\[5\]: value must be finite, got inf \(written as inf"
    ):
        idf.observe_many(arms, values)


@pytest.mark.parametrize(
    "sampling,threshold",
    [("tci", f) for f in ("bob", "box", "kl", "student", "heuristic")]
    + [("ev-tci", f) for f in ("ev-bob", "ev-box", "ev-student")],
)
def test_values_at_the_bound_keep_every_statistic_finite_and_exact(sampling, threshold):
    """Rows of +-1e50 (the largest accepted) against a brute-force computation on the
    rescaled rows: finite and right. The families whose thresholds depend on the counts
    only (not KL/BoB, whose ``R`` of Theorem 6 adds a constant to the squared scale) stop
    where the identifier fed the rows +-1 stops (the GLR statistics are scale-free)."""
    g = np.random.default_rng(3)
    n = 4000
    arms = np.arange(n) % 2
    signs = np.where(g.random(n) < np.where(arms == 0, 0.7, 0.3), 1.0, -1.0)
    big = BestArmIdentifier(2, 0.1, sampling, threshold, strict=False, rng=0)
    unit = BestArmIdentifier(2, 0.1, sampling, threshold, strict=False, rng=0)
    used = big.observe_many(arms, signs * MAX_ABS_VALUE)
    if threshold.removeprefix("ev-") not in ("kl", "bob"):
        assert unit.observe_many(arms, signs) == used
        assert (big.done, big.recommendation) == (unit.done, unit.recommendation)
        assert big.done
    a, x = arms[:used], signs[:used]
    for k in range(2):
        m = x[a == k].mean()
        assert big.means[k] == pytest.approx(m * MAX_ABS_VALUE, rel=1e-9)
        v = ((x[a == k] - m) ** 2).mean()
        assert big.variances[k] == pytest.approx(v * MAX_ABS_VALUE**2, rel=1e-9)
    assert np.all(np.isfinite(big.means)) and np.all(np.isfinite(big.variances))
    glr = [v for v in big.summary()["glr"] if v is not None]
    assert not any(math.isnan(v) for v in glr)


# ----------------------------------------------------------------------- first compile
def test_the_first_identifier_announces_the_compile_once(monkeypatch, capsys):
    calls = []
    monkeypatch.setattr(warmup, "warm_up", lambda: calls.append(1))
    monkeypatch.setattr(warmup, "_first_use_checked", False)
    monkeypatch.setattr(warmup, "kernels_ready", lambda: False)
    identifier()
    identifier()
    err = capsys.readouterr().err
    assert err.count("compiling the numerical kernels") == 1 and calls == [1]
    assert "baiuv warmup" in err and len(err.splitlines()) == 1
    monkeypatch.setattr(warmup, "_first_use_checked", False)
    monkeypatch.setattr(warmup, "kernels_ready", lambda: True)  # cached: nothing said
    identifier()
    assert capsys.readouterr().err == "" and calls == [1]


def test_labels_name_the_arms_of_the_summary():
    idf = identifier()
    idf.observe_many(np.arange(8) % 2, np.array([1.0, 0.0, 1.2, 0.1, 0.9, -0.1, 1.1, 0.2]))
    text = format_summary(idf.summary(), ["control", "treatment"])
    assert "empirical best arm: control (arm 0)" in text
