def a():
    return "a"


def b():
    return "b"


def c():
    return "c"


FNS = [a, b, c]
FNS[1:3][0]()
FNS[-1:][0]()
