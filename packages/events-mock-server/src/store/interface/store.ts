import type { DirectoryStore } from './directory.js';
import type { EventStore } from './events.js';
import type { Outbox } from './outbox.js';
import type { RequestLogStore } from './request-log.js';

// The storage interface imports nothing of the modules that implement it (issue 36: those import this), nor
// anything of what they share (store/common/).

/** What a store is as a whole, beside the parts: its name, its health, its end, and a reset of its data. */
export interface StoreLifecycle {
  /** Short name for logs and /readyz: `sqlite:file`, `sqlite:memory`. */
  readonly description: string;
  /** Answers when the store can serve requests; rejects otherwise (/readyz, C12). */
  ping(): Promise<void>;
  /** Flushes and closes; after it, every call rejects. */
  close(): Promise<void>;
  /**
   * Deletes stored events, dedup state, failure counters, the request log, the timeline, the outbox and the
   * conversion deletion requests (not their id counter, C121); keeps accounts, tokens, custom event types
   * (C12, C60).
   */
  reset(): Promise<void>;
}

/**
 * The one storage interface of the server (C11), composed of its parts (issue 36): events, the request log,
 * the directory and the delivery outbox, each with its own conformance suite, and the lifecycle. Every store
 * keeps all of them, the outbox included (C100: it is written in the batch transaction, so it cannot live
 * anywhere else). Handlers see this, and code that needs one part takes that part, so a server database
 * (PostgreSQL...) is another implementation without touching them. Every method is async for that reason,
 * even though the embedded SQLite implementation answers synchronously.
 *
 * Times are milliseconds since the epoch unless a name says otherwise.
 */
export interface Store extends StoreLifecycle, EventStore, RequestLogStore, DirectoryStore, Outbox {}

/** Thrown when a cursor does not come from a previous page. */
export class BadCursorError extends Error {
  override name = 'BadCursorError';
}

/**
 * A batch whose commit may or may not have happened (C74): it was handed to the database and the answer was
 * lost (the connection broke after the commit was sent, or the failure does not prove a rollback). Every
 * other store failure is certain: nothing of the batch was stored.
 */
export class CommitOutcomeUnknownError extends Error {
  override name = 'CommitOutcomeUnknownError';
  constructor(override readonly cause: unknown) {
    super(`commit outcome unknown: ${(cause as Error)?.message ?? String(cause)}`);
  }
}
