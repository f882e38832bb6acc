from calc.engine import compute


def test_compute_mean():
    assert compute("mean", [1, 3]) == 2
