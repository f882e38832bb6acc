from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Money:
    amount: int
    currency: str = "EUR"

    @classmethod
    def zero(cls):
        return cls(0)

    def add(self, other):
        return replace(self, amount=self.amount + other.amount)


total = Money.zero().add(Money(5))
total.add(Money(1))
