"""Invoices: lines, VAT and totals."""

from __future__ import annotations

from dataclasses import dataclass, field

from billing.db import save_invoice
from billing.money import Money
from billing.provider import charge_card

VAT_RATE_PERCENT = 21


@dataclass
class InvoiceLine:
    description: str
    unit_price: Money
    quantity: int = 1


@dataclass
class Invoice:
    number: str
    lines: list[InvoiceLine] = field(default_factory=list)

    def subtotal(self) -> Money:
        total = Money(0)
        for line in self.lines:
            total = total + Money(line.unit_price.cents * line.quantity)
        return total

    def vat(self) -> Money:
        return Money(self.subtotal().cents * VAT_RATE_PERCENT // 100)

    def total(self) -> Money:
        return self.subtotal() + self.vat()


def finalize(invoice: Invoice, card_token: str) -> None:
    save_invoice(invoice.number, invoice.total().cents)
    charge_card(card_token, invoice.total().cents, idempotency_key=invoice.number)
