"""while / else with break."""


def first_multiple(items: list[int], k: int) -> int:
    idx = 0
    found = -1
    while idx < len(items):
        if items[idx] % k == 0:
            found = items[idx]
            break
        idx += 1
    else:
        found = 0
    return found * 10
