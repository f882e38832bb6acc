def validate(x):
    return x


def normalize(x):
    return x


def store(x):
    return x


STEPS = [validate, normalize]
FINAL = (store,)


def run(x):
    for step in STEPS:
        x = step(x)
    return FINAL[0](x)


run(1)
