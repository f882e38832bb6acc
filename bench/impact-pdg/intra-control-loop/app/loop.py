"""Nested loop + if controllers of a statement."""


def count_hits(rows: list[int], limit: int) -> int:
    hits = 0
    seen = 0
    for r in rows:
        seen += 1
        if r > limit:
            hits += 1
    return hits
