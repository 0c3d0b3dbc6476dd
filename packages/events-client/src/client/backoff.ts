import { RESPONSE_HEADERS } from '../generated/api.gen.js';

/** How retries are spaced and bounded (C55). */
export interface RetryOptions {
  /** Requests per batch at most, the first included (default 10). */
  maxAttempts?: number;
  /** Milliseconds from a batch's first attempt after which no new attempt starts (default 120 000). */
  deadlineMs?: number;
  /** First backoff without a server hint, doubled per attempt (default 500 ms). */
  baseDelayMs?: number;
  /** Longest backoff without a server hint (default 8000 ms). */
  maxDelayMs?: number;
}

export const RETRY_DEFAULTS: Required<RetryOptions> = {
  maxAttempts: 10,
  deadlineMs: 120_000,
  baseDelayMs: 500,
  maxDelayMs: 8_000,
};

function seconds(headers: Headers | undefined, name: string): number | null {
  const v = headers?.get(name);
  if (v === null || v === undefined || v.trim() === '') return null;
  const n = Number(v);
  if (Number.isFinite(n) && n >= 0) return n;
  // Retry-After may also be an HTTP date (RFC 9110 10.2.3).
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, (at - Date.now()) / 1000);
}

/** Retry-After in seconds, when the answer gives it. */
export function retryAfterSeconds(headers: Headers | undefined): number | null {
  return seconds(headers, RESPONSE_HEADERS.retryAfter);
}

/**
 * The wait before the next attempt (C55): the largest server hint (Retry-After, x-ratelimit-reset), else an
 * exponential backoff; plus a jitter of up to a quarter of it (at least 100 ms).
 */
export function nextDelayMs(
  attempt: number,
  headers: Headers | undefined,
  o: Required<RetryOptions>,
  random: () => number = Math.random,
): number {
  const hints = [retryAfterSeconds(headers), seconds(headers, RESPONSE_HEADERS.reset)].filter(
    (x): x is number => x !== null,
  );
  const base =
    hints.length > 0
      ? Math.max(...hints) * 1000
      : Math.min(o.maxDelayMs, o.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(base + random() * Math.max(100, base / 4));
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
