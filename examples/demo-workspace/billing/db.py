"""Database access for billing."""

from __future__ import annotations

import sqlite3
import threading

_local = threading.local()


def get_connection(path: str = "billing.db") -> sqlite3.Connection:
    conn = getattr(_local, "conn", None)
    if conn is None:
        conn = sqlite3.connect(path, timeout=30)
        conn.execute("PRAGMA journal_mode=WAL")
        _local.conn = conn
    return conn


def save_invoice(number: str, total_cents: int) -> None:
    conn = get_connection()
    with conn:
        conn.execute("INSERT INTO invoices (number, total_cents) VALUES (?, ?)", (number, total_cents))
