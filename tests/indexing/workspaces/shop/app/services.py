from app.core.db import Database, connect_database
from app.models import Product, load_products


def restock_product(db: Database, product: Product, count: int) -> None:
    db.execute_write("UPDATE stock SET count = count + ? WHERE sku = ?", count, product.sku)


def restock_all(count: int) -> None:
    db = connect_database()
    for product in load_products(db):
        restock_product(db, product, count)
