import { REQUEST_ERRORS, type RequestErrorKey } from '../generated/api.gen.js';

/** One entry of `details` in the service's error body (C2). */
export interface ErrorDetail {
  path?: string;
  problem?: string;
  [key: string]: unknown;
}

/** The error body every non-2xx answer of the service carries (C2). */
export interface ErrorBody {
  code: number;
  message: string;
  details?: ErrorDetail[];
}

/**
 * A request the service answered with an error: the HTTP status, the service's `{code, message, details}`,
 * the request-error key of C2 it matches (`rate_limited`, `unauthorized`, ...; null for an unlisted one), the
 * request id and, when given, Retry-After in seconds.
 */
export class EventsApiError extends Error {
  override readonly name = 'EventsApiError';
  readonly kind: RequestErrorKey | null;

  constructor(
    readonly status: number,
    readonly body: ErrorBody,
    readonly requestId: string | null,
    readonly retryAfterSeconds: number | null,
  ) {
    super(`${status} ${body.message}${detailText(body.details)}`);
    this.kind = errorKey(status, body.code, body.message);
  }

  get code(): number {
    return this.body.code;
  }

  get details(): ErrorDetail[] {
    return this.body.details ?? [];
  }
}

/** fetch failed: no answer came (connection refused or reset, DNS, CORS in a browser, an abort). */
export class EventsConnectionError extends Error {
  override readonly name = 'EventsConnectionError';
  constructor(override readonly cause: unknown) {
    super(`no answer from the service: ${(cause as Error)?.message ?? String(cause)}`);
  }
}

/** An event that cannot be sent at all, found before any request (C56: alone over the byte limit). */
export class EventsLocalError extends Error {
  override readonly name = 'EventsLocalError';
  constructor(
    readonly kind: RequestErrorKey,
    message: string,
  ) {
    super(message);
  }
}

export type SendError = EventsApiError | EventsConnectionError | EventsLocalError;

function detailText(details: ErrorDetail[] | undefined): string {
  if (!details?.length) return '';
  return `: ${details.map((d) => [d.path, d.problem].filter(Boolean).join(' ')).join('; ')}`;
}

/**
 * The C2 key of an answer: the row whose status, code and message it carries (two rows share 404 and code
 * 2 and differ by message); else the first row of that status and code.
 */
export function errorKey(status: number, code: number, message?: string): RequestErrorKey | null {
  const rows = Object.entries(REQUEST_ERRORS).filter(([, e]) => e.status === status && e.code === code);
  const exact = rows.find(([, e]) => e.message === message) ?? rows[0];
  return exact ? (exact[0] as RequestErrorKey) : null;
}

/** Reads an error body; a body that is not the service's shape still gives a typed error. */
export function toErrorBody(status: number, text: string): ErrorBody {
  try {
    const b = JSON.parse(text) as Partial<ErrorBody>;
    if (typeof b?.code === 'number' && typeof b.message === 'string')
      return {
        code: b.code,
        message: b.message,
        ...(Array.isArray(b.details) ? { details: b.details } : {}),
      };
  } catch {}
  return { code: status, message: text.slice(0, 200) || `HTTP ${status}` };
}
