import { fetchJson } from "./api";

export interface CartItem {
  sku: string;
  quantity: number;
  unitCents: number;
}

export class Cart {
  private items: CartItem[] = [];

  add(item: CartItem): void {
    this.items.push(item);
  }

  totalCents(): number {
    return this.items.reduce((sum, item) => sum + item.unitCents * item.quantity, 0);
  }

  async checkout(cardToken: string): Promise<{ invoice: string }> {
    return fetchJson("/checkout", { method: "POST", body: JSON.stringify({ items: this.items, cardToken }) });
  }
}
