def low():
    return 1


def high():
    return 2


def rank(fn):
    return fn()


def keep(fn):
    return fn is not None


def call(fn):
    return fn()


FNS = [high, low]
for f in sorted(FNS, key=rank):
    f()
for g in filter(keep, FNS):
    g()
results = list(map(call, FNS))
