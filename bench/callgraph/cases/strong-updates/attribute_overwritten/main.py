def first():
    return 1


def second():
    return 2


class Box:
    pass


def use():
    box = Box()
    box.fn = first
    box.fn = second
    return box.fn()


use()
