def add(a, b):
    return a + b


def make_adder(n):
    return lambda x: add(x, n)


adder = make_adder(2)
adder(5)
(lambda: add(1, 1))()
