// Every call goes to the page's own origin with the session cookie (set by POST /admin/session); the admin
// token is sent once, in the login body, and never kept by the page or put in a URL. Calls that change state
// also send the session's CSRF token (C71), kept in this module's memory only, and ask for the referrer
// policy same-origin: the page is served with no-referrer, under which the Fetch standard sends `Origin: null`
// on a same-origin POST (Chromium sends the origin anyway), and the server wants the page's origin.
import { SECURITY_SCHEMES } from '@org/events-types';

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

/** The header of the session's CSRF token, as the spec names it (the `admin_csrf` scheme, C71). */
const CSRF_HEADER = (() => {
  const scheme = SECURITY_SCHEMES.find((s) => s.name === 'admin_csrf');
  if (!scheme || !('parameter' in scheme)) throw new Error('spec: the admin_csrf security scheme is missing');
  return scheme.parameter.name;
})();

let csrfToken: string | null = null;

/** Keeps (or forgets, with null) the CSRF token of the current session, answered by /admin/session. */
export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}

async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  const init: RequestInit = { method, credentials: 'same-origin', headers };
  if (body !== undefined) {
    headers['content-type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  if (method !== 'GET' && method !== 'HEAD') {
    if (csrfToken !== null) headers[CSRF_HEADER] = csrfToken;
    init.referrerPolicy = 'same-origin';
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
