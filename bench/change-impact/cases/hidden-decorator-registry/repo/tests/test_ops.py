from calc.ops import op_sum


def test_sum():
    assert op_sum([1, 2]) == 3
