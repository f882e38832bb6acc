"""One memo with a cycle guard for the resolver's recursive questions.

Evaluation is recursive through other modules' facts (a class's bases, a function's
returns, a variable's assignments), and the repository may be circular (``a = b``,
``b = a``; a class listed among its own bases). Each question is asked once per resolver
and answered from a table thereafter; while it is being answered, asking it again
(a cycle) gets the question's *guard* answer — typically "nothing known" — instead of
recursing forever.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Hashable
from operator import attrgetter
from typing import Any, TypeVar

_T = TypeVar("_T", bound=Callable[..., Any])
_MISSING = object()


def memo(table: str, guard: Any = None, *, guard_for: Callable[..., Any] | None = None,
         key: Callable[..., Hashable] | None = None,
         retry_after_error: bool = False) -> Callable[[_T], _T]:
    """Memoize a method in the instance's dict attribute ``table``, keyed by the tuple of
    its positional arguments, or by ``key(*args)`` when given (for arguments that are not
    hashable, or do not change the answer). A call made while the same key is being
    computed returns ``guard`` (``guard_for(*args)`` when given); a result of None is
    remembered like any other. When the computation raises
    (a RecursionError on deeply nested code), the guard stays as the answer, unless
    ``retry_after_error``: then the question is asked afresh next time."""
    get_table = attrgetter(table)

    def decorate(fn: _T) -> _T:
        @functools.wraps(fn)
        def method(self: Any, *args: Any) -> Any:
            memo_table = get_table(self)
            k = args if key is None else key(*args)
            got = memo_table.get(k, _MISSING)
            if got is not _MISSING:
                return got
            memo_table[k] = guard if guard_for is None else guard_for(*args)
            try:
                got = memo_table[k] = fn(self, *args)
            except BaseException:
                if retry_after_error:
                    del memo_table[k]
                raise
            return got

        return method  # type: ignore[return-value]

    return decorate
