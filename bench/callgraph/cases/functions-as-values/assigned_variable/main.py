def primary():
    return 1


def secondary():
    return 2


handler = primary
handler()


def choose(flag):
    fn = secondary if flag else primary
    return fn()


choose(True)
choose(False)
