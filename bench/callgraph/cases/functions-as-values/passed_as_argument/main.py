def apply(fn, value):
    return fn(value)


def inc(x):
    return x + 1


def dec(x):
    return x - 1


def pipeline(x):
    return apply(dec, apply(inc, x))


pipeline(1)
sorted([3, 1], key=inc)
list(map(dec, [1, 2]))
