def leaf():
    return 1


def inner_gen():
    yield leaf()
    yield leaf()


def outer_gen():
    yield from inner_gen()
    yield 0


def drain():
    return list(outer_gen())


drain()
