import { LIMITS } from '@org/events-types';
import { requestError } from '../core/request-error.js';
import { HEADERS } from '../generated/routes.gen.js';
import type { ServerContext } from './context.js';

/** Seconds a client waits after a 503 before retrying (C2). */
export const STORAGE_RETRY_AFTER_SECONDS = LIMITS.storage_retry_after_seconds.value;

/**
 * Runs a store call; any failure is row 503 of C2 with Retry-After. The store's transactions guarantee that
 * nothing of the request was stored when it fails.
 */
export async function withStore<T>(ctx: ServerContext, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (e) {
    ctx.metrics.storageErrors.inc();
    const err = e as { code?: unknown; message?: unknown };
    const reason = typeof err.code === 'string' ? err.code : String(err.message ?? e).slice(0, 120);
    const re = requestError(
      'storage_unavailable',
      'storage',
      { reason },
      { [HEADERS.RetryAfter]: String(STORAGE_RETRY_AFTER_SECONDS) },
    );
    (re as { cause?: unknown }).cause = e;
    throw re;
  }
}
