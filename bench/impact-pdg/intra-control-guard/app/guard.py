"""Guard clause with an early return."""


def apply_discount(amount: int, member: bool) -> int:
    if amount <= 0:
        return 0
    rate = 10 if member else 5
    cut = amount * rate // 100
    return amount - cut
