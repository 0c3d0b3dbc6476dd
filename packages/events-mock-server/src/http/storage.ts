import { LIMITS } from '@org/events-types';
import { requestError } from '../core/request-error.js';
import { HEADERS } from '../generated/routes.gen.js';
import { CommitOutcomeUnknownError } from '../store/interface/store.js';
import type { ServerContext } from './context.js';

/** Seconds a client waits after a 503 before retrying (C2). */
export const STORAGE_RETRY_AFTER_SECONDS = LIMITS.storage_retry_after_seconds.value;

/**
 * Runs a store call; any failure is a 503 of C2 with Retry-After. The store's transactions guarantee that
 * nothing of the request was stored when it fails, unless the store says the outcome of its commit is
 * unknown (the connection broke after the commit was sent): then the 503 says the batch may have been
 * stored and that a retry with the same event_ids is safe (C74).
 */
export async function withStore<T>(ctx: ServerContext, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (e) {
    ctx.metrics.storageErrors.inc();
    if (e instanceof CommitOutcomeUnknownError)
      throw unavailable('storage_commit_unknown', 'storage', e.cause);
    throw unavailable('storage_unavailable', 'storage', e);
  }
}

/**
 * The 503 of C2 for a dependency that failed (the store, C48; the shared limiter, C51): Retry-After, and
 * the driver's code or the start of its message as the reason; the error is kept as the cause for the log.
 */
export function unavailable(
  problem: 'storage_unavailable' | 'storage_commit_unknown' | 'limits_unavailable',
  path: string,
  e: unknown,
): Error {
  const err = e as { code?: unknown; message?: unknown };
  const reason = typeof err.code === 'string' ? err.code : String(err.message ?? e).slice(0, 120);
  const re = requestError(
    problem,
    path,
    { reason },
    { [HEADERS.RetryAfter]: String(STORAGE_RETRY_AFTER_SECONDS) },
  );
  (re as { cause?: unknown }).cause = e;
  return re;
}
