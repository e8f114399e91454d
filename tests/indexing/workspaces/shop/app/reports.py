from app.core.db import connect_database


def sales_report() -> list[tuple]:
    return connect_database().fetch_rows("SELECT * FROM sales")
