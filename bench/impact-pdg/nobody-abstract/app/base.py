"""An abstract method has no body to slice."""

from abc import ABC, abstractmethod


class Base(ABC):
    @abstractmethod
    def run(self, n: int) -> int:
        """Run the job."""
