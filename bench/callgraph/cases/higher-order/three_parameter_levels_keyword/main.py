def leaf():
    return "leaf"


def level3(cb):
    return cb()


def level2(callback):
    return level3(cb=callback)


def level1(f):
    return level2(f)


level1(leaf)
