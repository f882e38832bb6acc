"""Self-consistency vote over K sampled next-edit lists (``--samples K``, Ripple).

The vote is a **majority-filtered Borda count**:

1. *Membership* — an entity is kept iff at least half of the successful samples name it
   (``count * 2 >= n``; with one sample everything it names is kept).
2. *Order* — Borda: in a sample listing ``L`` entities, the one at 0-based rank ``r``
   earns ``L - r`` points; kept entities are sorted by total points, descending.
3. *Ties* — more samples naming the entity first, then the earlier position in the
   deterministic batch order (entities outside it after those inside), then the entity
   id. The result is therefore a pure function of the samples and the batch order.

Each kept entity carries the reason from the first sample (in call order) that named it.
"""

from __future__ import annotations

from collections.abc import Sequence


def majority_order(
    samples: Sequence[Sequence[dict[str, str]]], batch_order: Sequence[str] = ()
) -> list[dict[str, str]]:
    """Combine ``[[{"entity", "reason"}, ...], ...]`` into one ordered list."""
    n = len(samples)
    if n == 0:
        return []
    points: dict[str, int] = {}
    count: dict[str, int] = {}
    reason: dict[str, str] = {}
    for edits in samples:
        length = len(edits)
        for rank, edit in enumerate(edits):
            e = edit["entity"]
            points[e] = points.get(e, 0) + (length - rank)
            count[e] = count.get(e, 0) + 1
            reason.setdefault(e, edit["reason"])
    position = {e: i for i, e in reversed(list(enumerate(batch_order)))}
    far = len(position)
    kept = [e for e in points if count[e] * 2 >= n]
    kept.sort(key=lambda e: (-points[e], -count[e], position.get(e, far), e))
    return [{"entity": e, "reason": reason[e]} for e in kept]
