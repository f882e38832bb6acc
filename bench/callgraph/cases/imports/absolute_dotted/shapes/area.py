PI = 3.14


def _sq(n):
    return n * n


def square(n):
    return _sq(n)


def circle(r):
    return PI * _sq(r)
