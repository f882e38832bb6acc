"""Storage backend."""


class Ledger:
    def __init__(self) -> None:
        self.rows: list[int] = []

    def append(self, amount: int) -> int:
        cents = amount * 100
        self.rows.append(cents)
        return len(self.rows)


def audit(amount: int) -> bool:
    return amount >= 0
