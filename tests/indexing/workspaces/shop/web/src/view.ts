import { ApiClient } from "./api";
import { Cart } from "./cart";

export function renderShop(client: ApiClient): Cart {
  const cart = new Cart();
  void client.getProducts();
  return cart;
}
