def leaf():
    return "leaf"


def make():
    def adder(x):
        return leaf

    return adder


make()(1)()
