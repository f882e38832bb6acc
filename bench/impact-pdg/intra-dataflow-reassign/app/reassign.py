"""Reaching definitions through reassignment."""


def reassign_sum(a: int, b: int) -> int:
    x = a + 1
    y = b * 2
    x = x + y
    z = b - 1
    x = x * 3
    return x
