class Timer:
    def __init__(self):
        self.ticks = 0

    def tick(self):
        self.ticks += 1
        return self.ticks


def repeat(callback, n):
    for _ in range(n):
        callback()


t = Timer()
repeat(t.tick, 3)
m = t.tick
m()
