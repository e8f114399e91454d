export interface ApiError {
  status: number;
  message: string;
}

export async function fetchJson<T>(path: string, init?: RequestInit): Promise<T> {
  const response = await fetch(`/api${path}`, {
    ...init,
    headers: { "Content-Type": "application/json", ...(init?.headers ?? {}) },
  });
  if (!response.ok) {
    const error: ApiError = { status: response.status, message: await response.text() };
    throw error;
  }
  return (await response.json()) as T;
}
