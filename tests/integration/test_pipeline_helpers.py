"""The comparison used by the pipeline tests notices any difference (it must be able to fail)
and skips exactly the documented timing files (decision D131)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from pipeline_helpers import assert_same_results, copy_repo, run_snakemake, tree_state


def _write(root, name, df):
    p = root / "results" / name
    p.parent.mkdir(parents=True, exist_ok=True)
    df.to_parquet(p)


def _frame(x=1.0):
    return pd.DataFrame({"a": [x, 2.0], "w": [np.array([0.5, 0.5]), np.array([0.25, 0.75])]})


def test_equal_results_pass_and_timing_files_are_ignored(tmp_path):
    for run, wall in (("a", [1.0, 2.0]), ("b", [7.0, 9.0])):
        _write(tmp_path / run, "x/t.parquet", _frame())
        _write(tmp_path / run, "timings/x/t.parquet", pd.DataFrame({"wall_time": wall}))
        _write(tmp_path / run, "timings/threshold_costs.parquet", pd.DataFrame({"python_s": wall}))
    assert assert_same_results(tmp_path / "a", tmp_path / "b") == 1
    # a timing column inside a result file is a difference
    other = _frame()
    other["wall_time"] = [7.0, 9.0]
    _write(tmp_path / "b", "x/t.parquet", other)
    with pytest.raises(AssertionError, match="x/t.parquet"):
        assert_same_results(tmp_path / "a", tmp_path / "b")


def test_text_and_figure_differences_fail(tmp_path):
    for run, text in (("a", "| 1.00 |"), ("b", "| 1.01 |")):
        (tmp_path / run / "results" / "tables").mkdir(parents=True)
        (tmp_path / run / "results" / "tables" / "t.md").write_text(text)
    with pytest.raises(AssertionError, match="t.md"):
        assert_same_results(tmp_path / "a", tmp_path / "b")
    (tmp_path / "b" / "results" / "tables" / "t.md").write_text("| 1.00 |")
    for run, data in (("a", b"%PDF-1"), ("b", b"%PDF-2")):
        (tmp_path / run / "figures").mkdir()
        (tmp_path / run / "figures" / "f.pdf").write_bytes(data)
    with pytest.raises(AssertionError, match="f.pdf"):
        assert_same_results(tmp_path / "a", tmp_path / "b")


def test_partial_temporary_files_are_not_outputs(tmp_path):
    _write(tmp_path / "a", "t.parquet", _frame())
    _write(tmp_path / "b", "t.parquet", _frame())
    (tmp_path / "b" / "results" / ".u.parquet.k2j3h4.tmp").write_bytes(b"PAR1 half")
    assert assert_same_results(tmp_path / "a", tmp_path / "b") == 1


def test_one_ulp_difference_fails(tmp_path):
    _write(tmp_path / "a", "t.parquet", _frame(1.0))
    _write(tmp_path / "b", "t.parquet", _frame(np.nextafter(1.0, 2.0)))
    with pytest.raises(AssertionError):
        assert_same_results(tmp_path / "a", tmp_path / "b")


def test_array_cell_difference_fails(tmp_path):
    _write(tmp_path / "a", "t.parquet", _frame())
    df = _frame()
    df.at[1, "w"] = np.array([0.25, 0.7500000001])
    _write(tmp_path / "b", "t.parquet", df)
    with pytest.raises(AssertionError):
        assert_same_results(tmp_path / "a", tmp_path / "b")


def test_missing_file_fails(tmp_path):
    _write(tmp_path / "a", "t.parquet", _frame())
    _write(tmp_path / "a", "u.parquet", _frame())
    _write(tmp_path / "b", "t.parquet", _frame())
    with pytest.raises(AssertionError, match="u.parquet"):
        assert_same_results(tmp_path / "a", tmp_path / "b")


def test_copy_repo_has_sources_but_no_generated_files(tmp_path):
    dst = copy_repo(tmp_path / "r")
    assert (dst / "Snakefile").is_file() and (dst / "src" / "baiuv" / "__init__.py").is_file()
    assert not (dst / "results").exists() and not (dst / ".venv").exists()
    assert not any((dst / "figures").iterdir())
    assert not list(dst.rglob("__pycache__"))
    assert tree_state(dst, "results", "figures") == {}


def test_under_restricts_the_comparison_to_one_folder(tmp_path):
    _write(tmp_path / "a", "sim/t.parquet", _frame())
    _write(tmp_path / "b", "sim/t.parquet", _frame())
    _write(tmp_path / "b", "other/u.parquet", _frame(3.0))  # outside: ignored
    assert assert_same_results(tmp_path / "a", tmp_path / "b", under="results/sim") == 1
    with pytest.raises(AssertionError, match="u.parquet"):
        assert_same_results(tmp_path / "a", tmp_path / "b")
    _write(tmp_path / "b", "sim/v.parquet", _frame())  # inside: must be in both
    with pytest.raises(AssertionError, match="v.parquet"):
        assert_same_results(tmp_path / "a", tmp_path / "b", under="results/sim")


def test_snakemake_is_refused_in_a_test_without_the_pipeline_marker(tmp_path):
    """Every test that runs Snakemake is left out of ``-m "not slow"``: ``run_snakemake``
    refuses to start it from a test that is not marked ``pipeline``."""
    with pytest.raises(AssertionError, match="mark it with @pytest.mark.pipeline"):
        run_snakemake(tmp_path, "--version")
