import calc.ops as ops
from calc import ops as ops2
from calc.ops import mul as times


def compute():
    a = ops.add(1, 2)
    b = times(a, 3)
    return ops2.sub(b, 1)


compute()
