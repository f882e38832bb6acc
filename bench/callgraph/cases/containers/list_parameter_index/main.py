def first():
    return 1


def second():
    return 2


STEPS = [first, second]


def run(i):
    return STEPS[i]()


run(0)
run(1)
