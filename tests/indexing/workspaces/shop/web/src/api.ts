export interface ApiResponse<T> {
  status: number;
  body: T;
}

export async function fetchJson<T>(url: string): Promise<ApiResponse<T>> {
  const response = await fetch(url);
  return { status: response.status, body: (await response.json()) as T };
}

export class ApiClient {
  constructor(private readonly baseUrl: string) {}

  getProducts(): Promise<ApiResponse<string[]>> {
    return fetchJson<string[]>(`${this.baseUrl}/products`);
  }
}
