import { ApiClient, fetchJson } from "./api";

export class Cart {
  private items: string[] = [];

  add(sku: string): void {
    this.items.push(sku);
  }

  async checkout(client: ApiClient): Promise<number> {
    const result = await fetchJson<number>("/checkout");
    return result.status;
  }
}
