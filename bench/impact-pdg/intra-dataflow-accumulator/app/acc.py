"""Loop-carried accumulator."""


def weighted_sum(values: list[int], weight: int) -> int:
    total = 0
    count = 0
    for v in values:
        total = total + v * weight
        count += 1
    mean = total // count if count else 0
    return total + mean
