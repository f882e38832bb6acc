"""Only Alpha.process receives the changed value."""

from app.shapes import Alpha, Beta


def pick(x: int, flag: bool) -> int:
    a = Alpha()
    b = Beta()
    doubled = x * 2
    if flag:
        y = a.process(doubled)
    else:
        y = b.process(x)
    return y
