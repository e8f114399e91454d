"""Exact money arithmetic in integer cents."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal


@dataclass(frozen=True)
class Money:
    cents: int
    currency: str = "EUR"

    @classmethod
    def from_decimal(cls, amount: str | Decimal, currency: str = "EUR") -> Money:
        value = Decimal(amount).quantize(Decimal("0.01"), rounding=ROUND_HALF_EVEN)
        return cls(int(value * 100), currency)

    def __add__(self, other: Money) -> Money:
        if other.currency != self.currency:
            raise ValueError(f"cannot add {other.currency} to {self.currency}")
        return Money(self.cents + other.cents, self.currency)

    def allocate(self, ratios: list[int]) -> list[Money]:
        """Split without losing a cent: the remainder goes to the first parts."""
        total = sum(ratios)
        shares = [self.cents * r // total for r in ratios]
        for i in range(self.cents - sum(shares)):
            shares[i] += 1
        return [Money(s, self.currency) for s in shares]

    def __str__(self) -> str:
        return f"{self.cents / 100:.2f} {self.currency}"
