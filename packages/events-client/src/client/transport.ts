import { ADMIN_OPERATIONS, type AdminOperationId } from '../generated/admin.gen.js';
import { CLIENT_OPERATIONS, type ClientOperationId, RESPONSE_HEADERS } from '../generated/api.gen.js';
import { nextDelayMs, type RetryOptions, retryAfterSeconds, sleep } from './backoff.js';
import { EventsApiError, EventsConnectionError, type SendError, toErrorBody } from './errors.js';

/** What every request needs: where, who, how to fetch, how to retry. */
export interface TransportOptions {
  /** The service's origin; '' for the origin of the page that calls (a page the server serves). */
  baseUrl: string;
  /** Sent as `Authorization: Bearer`; absent when a session cookie authenticates (C64). */
  token?: string;
  /** The session's CSRF token, for the operations whose cookie alternative requires it (C71). */
  csrfToken?: () => string | null;
  /** Merged into every fetch (a browser's `credentials`, `referrerPolicy`). */
  init?: RequestInit;
  /** The platform fetch by default; pass another (a proxy agent, a test double of the platform's). */
  fetch?: typeof globalThis.fetch;
  retry: Required<RetryOptions>;
  /** Extra headers on every request (a user agent, tracing). */
  headers?: Record<string, string>;
  signal?: AbortSignal;
  random?: () => number;
  /** Called before each wait, for progress reporting. */
  onRetry?: (info: RetryInfo) => void;
}

/** A sender's operation or an admin one (C106): both tables have the shape the transport reads. */
export type OperationId = ClientOperationId | AdminOperationId;

export function operationOf(id: OperationId) {
  return id in CLIENT_OPERATIONS
    ? CLIENT_OPERATIONS[id as ClientOperationId]
    : ADMIN_OPERATIONS[id as AdminOperationId];
}

export interface RetryInfo {
  operationId: OperationId;
  attempt: number;
  delayMs: number;
  status: number | null;
}

export interface CallInput {
  params: Record<string, string>;
  query?: Record<string, string>;
  /** The JSON body, already serialized (batches are joined from serialized events, C56). */
  body?: string;
}

export type CallResult =
  | { ok: true; status: number; headers: Headers; text: string; attempts: number; requestId: string | null }
  | { ok: false; error: SendError; attempts: number };

/** The URL of a call: path parameters encoded, the query as given (its order kept). */
export function url(baseUrl: string, operationId: OperationId, input: CallInput): string {
  const op = operationOf(operationId);
  let path: string = op.path;
  for (const name of op.pathParams) {
    const v = input.params[name];
    if (v === undefined) throw new TypeError(`${operationId}: path parameter ${name} is missing`);
    path = path.replace(`{${name}}`, encodeURIComponent(v));
  }
  const q = new URLSearchParams(input.query ?? {}).toString();
  return `${baseUrl.replace(/\/+$/, '')}${path}${q ? `?${q}` : ''}`;
}

/**
 * One call with the retries of C55: a retryable status (the spec's, per operation) or a failed fetch is
 * retried after the server's hint or a backoff, until maxAttempts or the deadline; anything else is final.
 */
export async function call(
  o: TransportOptions,
  operationId: OperationId,
  input: CallInput,
): Promise<CallResult> {
  const op = operationOf(operationId);
  const retryable: readonly number[] = op.retryable;
  const target = url(o.baseUrl, operationId, input);
  const doFetch = o.fetch ?? globalThis.fetch;
  const started = Date.now();
  const headers: Record<string, string> = { ...o.headers, accept: 'application/json' };
  if (o.token !== undefined) headers.authorization = `Bearer ${o.token}`;
  const csrf = op.csrfHeader === null ? null : o.csrfToken?.();
  if (op.csrfHeader !== null && csrf) headers[op.csrfHeader] = csrf;
  if (input.body !== undefined) headers['content-type'] = 'application/json';
  for (let attempt = 1; ; attempt++) {
    let error: SendError;
    let responseHeaders: Headers | undefined;
    let status: number | null = null;
    try {
      const res = await doFetch(target, {
        ...o.init,
        method: op.method,
        headers,
        ...(input.body !== undefined ? { body: input.body } : {}),
        ...(o.signal ? { signal: o.signal } : {}),
      });
      const text = await res.text();
      const requestId = res.headers.get(RESPONSE_HEADERS.requestId);
      if (res.status === op.success)
        return { ok: true, status: res.status, headers: res.headers, text, attempts: attempt, requestId };
      status = res.status;
      responseHeaders = res.headers;
      error = new EventsApiError(
        res.status,
        toErrorBody(res.status, text),
        requestId,
        retryAfterSeconds(res.headers),
      );
      if (!retryable.includes(res.status)) return { ok: false, error, attempts: attempt };
    } catch (e) {
      if (o.signal?.aborted) return { ok: false, error: new EventsConnectionError(e), attempts: attempt };
      error = new EventsConnectionError(e);
    }
    if (attempt >= o.retry.maxAttempts) return { ok: false, error, attempts: attempt };
    const delayMs = nextDelayMs(attempt, responseHeaders, o.retry, o.random);
    if (Date.now() + delayMs - started > o.retry.deadlineMs) return { ok: false, error, attempts: attempt };
    o.onRetry?.({ operationId, attempt, delayMs, status });
    try {
      await sleep(delayMs, o.signal);
    } catch {
      return { ok: false, error, attempts: attempt };
    }
  }
}
