from app.core import Database, connect_database
from app.models import load_products
from app.services import restock_all


def product_page(db: Database) -> str:
    items = load_products(db)
    return "\n".join(f"{p.sku}: {p.price_cents / 100:.2f}" for p in items)


def restock_view() -> str:
    restock_all(10)
    return product_page(connect_database())
