"""The one database connection every part of the shop goes through."""

import sqlite3


class Database:
    def __init__(self, path: str) -> None:
        self.path = path
        self.conn = sqlite3.connect(path)

    def fetch_rows(self, sql: str, *args: object) -> list[tuple]:
        cursor = self.conn.execute(sql, args)
        return cursor.fetchall()

    def execute_write(self, sql: str, *args: object) -> None:
        with self.conn:
            self.conn.execute(sql, args)


def connect_database(path: str = "shop.db") -> Database:
    return Database(path)
