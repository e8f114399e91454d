from app.core.db import Database, connect_database

__all__ = ["Database", "connect_database"]
