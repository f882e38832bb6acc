def compose(f, g):
    def composed(x):
        return g(f(x))

    return composed


def double(x):
    return 2 * x


def negate(x):
    return -x


h = compose(double, negate)
h(4)
