"""A Protocol method has no body to slice."""

from typing import Protocol


class Sink(Protocol):
    def write(self, data: str) -> int: ...
