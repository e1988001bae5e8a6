"""The config grids (``baiuv.storage.grids.grid``), shared by the characteristic-time sweeps and the
threshold curves: explicit expected values for linear, log and integer grids."""

import numpy as np
import pytest

from baiuv.storage.grids import grid


def test_log_grid_values():
    got = grid({"min": 0.01, "max": 100.0, "num": 5, "scale": "log"})
    np.testing.assert_allclose(got, [0.01, 0.1, 1.0, 10.0, 100.0], rtol=1e-14, atol=0)
    assert got[0] == 0.01 and got[-1] == 100.0
    # scale defaults to log
    np.testing.assert_array_equal(grid({"min": 0.01, "max": 100.0, "num": 5}), got)


def test_linear_grid_values():
    got = grid({"min": 1.0, "max": 20.0, "num": 20, "scale": "linear"})
    np.testing.assert_array_equal(got, np.arange(1.0, 21.0))
    assert got.dtype == np.float64
    # a linear grid may start at 0 or below
    got = grid({"min": -1.0, "max": 1.0, "num": 5, "scale": "linear"})
    np.testing.assert_array_equal(got, [-1.0, -0.5, 0.0, 0.5, 1.0])
    np.testing.assert_array_equal(grid({"min": 3, "max": 3, "num": 1, "scale": "linear"}), [3.0])


def test_integer_grids_are_unique_rounded_values():
    got = grid({"min": 20, "max": 100000, "num": 40, "scale": "log"}, integer=True)
    expected = [20, 25, 31, 39, 48, 60, 74, 92, 115, 143, 178, 221, 275, 342, 425, 529, 659,
                819, 1019, 1268, 1577, 1962, 2441, 3037, 3778, 4701, 5848, 7275, 9051, 11260,
                14008, 17428, 21681, 26973, 33556, 41746, 51935, 64611, 80381, 100000]  # fmt: skip
    np.testing.assert_array_equal(got, expected)
    assert got.dtype == np.int64
    # rounding collapses duplicates (30 log points between 1 and 10)
    got = grid({"min": 1, "max": 10, "num": 30}, integer=True)
    np.testing.assert_array_equal(got, np.arange(1, 11))
    got = grid({"min": 10, "max": 1000, "num": 3}, integer=True)
    np.testing.assert_array_equal(got, [10, 100, 1000])
    got = grid({"min": 1, "max": 2, "num": 5, "scale": "linear"}, integer=True)
    np.testing.assert_array_equal(got, [1, 2])  # 1.25 -> 1, 1.5 -> 2 (half to even), 1.75 -> 2


@pytest.mark.parametrize(
    "spec, match",
    [
        ({"min": 1, "max": 2, "num": 3, "scale": "cubic"}, "scale"),
        ({"min": 2, "max": 1, "num": 3}, "min <= max"),
        ({"min": 1, "max": 2, "num": 0}, "num >= 1"),
        ({"min": 0, "max": 2, "num": 3, "scale": "log"}, "min > 0"),
    ],
)
def test_bad_grids_raise(spec, match):
    with pytest.raises(ValueError, match=match):
        grid(spec)
