"""Billing: money arithmetic, invoices, and the payment provider client."""
