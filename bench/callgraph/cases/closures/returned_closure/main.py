def counter(start):
    count = start

    def step():
        nonlocal count
        count = bump(count)
        return count

    return step


def bump(n):
    return n + 1


c = counter(0)
c()
c()
