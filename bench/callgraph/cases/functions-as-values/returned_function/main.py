def add(a, b):
    return a + b


def mul(a, b):
    return a * b


def make_op(kind):
    if kind == "add":
        return add
    return mul


op = make_op("add")
op(1, 2)
make_op("mul")(2, 3)
