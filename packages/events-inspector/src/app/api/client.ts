// Every call goes to the page's own origin with the session cookie (set by POST /admin/session); the admin
// token is sent once, in the login body, and never kept by the page or put in a URL.

/** The API's error body ({code, message, details}) with the HTTP status. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly details: { path: string; problem: string }[] = [],
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** Where the admin API is: the origin the page was served from (the page lives at /inspector/). */
export const API_BASE = '';

async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  const init: RequestInit = { method, credentials: 'same-origin', headers: { accept: 'application/json' } };
  if (body !== undefined) {
    init.headers = { accept: 'application/json', 'content-type': 'application/json' };
    init.body = JSON.stringify(body);
  }
  const res = await fetch(`${API_BASE}${path}`, init);
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  let parsed: unknown = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = null;
  }
  if (!res.ok) {
    const e = (parsed ?? {}) as { message?: string; details?: { path: string; problem: string }[] };
    throw new ApiError(res.status, e.message ?? `HTTP ${res.status}`, e.details ?? []);
  }
  return parsed as T;
}

export const api = {
  get: <T>(path: string) => call<T>('GET', path),
  post: <T>(path: string, body: unknown) => call<T>('POST', path, body),
  del: (path: string) => call<void>('DELETE', path),
};

/** The first detail's problem, else the message: what a form shows under itself. */
export function describeError(e: unknown): string {
  if (e instanceof ApiError) {
    const d = e.details[0];
    return d ? `${e.message} ${d.path}: ${d.problem}` : e.message;
  }
  return e instanceof Error ? e.message : String(e);
}
