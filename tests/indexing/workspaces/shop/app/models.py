from dataclasses import dataclass

from app.core.db import Database, connect_database


@dataclass
class Product:
    sku: str
    price_cents: int


def load_products(db: Database) -> list[Product]:
    return [Product(sku, cents) for sku, cents in db.fetch_rows("SELECT sku, cents FROM products")]


def default_products() -> list[Product]:
    return load_products(connect_database())
