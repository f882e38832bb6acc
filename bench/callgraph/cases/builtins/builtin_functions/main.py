def describe(items):
    n = len(items)
    ordered = sorted(items)
    if isinstance(n, int):
        return str(n) + repr(ordered)
    return ""


describe([3, 1])
