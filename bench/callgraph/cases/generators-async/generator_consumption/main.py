def transform(i):
    return i * 10


def produce(n):
    for i in range(n):
        yield transform(i)


def consume():
    total = 0
    for v in produce(3):
        total += v
    return total


consume()
