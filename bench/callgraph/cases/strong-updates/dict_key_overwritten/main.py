def first():
    return 1


def second():
    return 2


table = {}
table["k"] = first
table["k"] = second
table["k"]()
