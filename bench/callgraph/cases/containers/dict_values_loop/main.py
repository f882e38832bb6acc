def red():
    return "r"


def blue():
    return "b"


COLORS = {"red": red, "blue": blue}


def paint_all():
    for name, fn in COLORS.items():
        fn()


def paint_values():
    for fn in COLORS.values():
        fn()


paint_all()
paint_values()
