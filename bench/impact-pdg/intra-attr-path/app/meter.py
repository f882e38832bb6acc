"""Attribute paths on self."""


class Meter:
    def __init__(self) -> None:
        self.total = 0
        self.peak = 0
        self.ticks = 0

    def record(self, amount: int) -> int:
        self.total += amount
        self.ticks += 1
        if self.total > self.peak:
            self.peak = self.total
        return self.peak
