def a():
    return "a"


def b():
    return "b"


def c():
    return "c"


fns = [a, b]
fns[0] = c
fns[0]()
fns[1]()
