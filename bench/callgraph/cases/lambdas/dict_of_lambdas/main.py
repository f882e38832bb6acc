def create():
    return "c"


def remove():
    return "r"


OPS = {"c": lambda: create(), "r": lambda: remove()}


def do_create():
    return OPS["c"]()


do_create()
