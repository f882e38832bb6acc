def square(x):
    return x * x


sq = lambda v: square(v)  # noqa: E731
ident = lambda v: v  # noqa: E731
sq(3)
