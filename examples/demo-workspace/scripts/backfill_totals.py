"""One-off script: recompute stored invoice totals."""

from billing.db import get_connection


def main() -> None:
    conn = get_connection()
    for number, total in conn.execute("SELECT number, total_cents FROM invoices"):
        print(number, total)


if __name__ == "__main__":
    main()
