def weight(item):
    return item[1]


def rank(items):
    return sorted(items, key=lambda it: weight(it))


rank([("a", 2), ("b", 1)])
