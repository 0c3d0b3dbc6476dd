import type { DeletionAnswer, OutboxBatch, UpstreamResult } from '../store/interface/outbox.js';

/** Where a batch of accepted events goes (C100): an upstream Conversions API, or a NATS JetStream stream. */
export interface Sink {
  readonly name: string;
  readonly kind: 'conversions_api' | 'nats';
  /** Most events of one delivery. */
  readonly batchSize: number;
  /**
   * Batches of one account sent before the first of them is answered (C128): in order, on one connection.
   * 1: each waits for the answer to the one before.
   */
  readonly inFlight: number;
  /**
   * Delivers one account's batch; resolves with the outcome and never rejects. `ok` only once the receiver
   * acknowledged every event of it (C100: marked delivered only then). A batch of a conversion deletion
   * request (`batch.deletion`, C127) goes to the receiver's deletion route; a sink without one refuses it.
   */
  deliver(batch: OutboxBatch, signal: AbortSignal): Promise<SinkOutcome>;
  /** Time (ms) before which the receiver asked not to be sent anything (rate limits), or 0. */
  pausedUntil(): number;
  close(): Promise<void>;
}

export type SinkOutcome =
  | {
      ok: true;
      results?: (UpstreamResult | null)[];
      /** What the receiver answered to a deletion request (C127). */
      deletion?: Omit<DeletionAnswer, 'entryId'>;
    }
  | {
      ok: false;
      /**
       * For the outbox entry, `/admin/delivery` and the log: the status line and a short body excerpt with
       * anything like a credential taken out (sanitize.ts); never the token.
       */
      error: string;
      /** What `/readyz` says: `HTTP 503`, `ECONNREFUSED`, `timeout`; never the upstream's own text. */
      summary: string;
      /** The receiver's own wait (Retry-After, x-ratelimit-reset), in ms. */
      retryAfterMs?: number;
      /**
       * The receiver refused the batch itself (an HTTP 4xx other than 408 and 429): sending it again gets
       * the same answer, so its entries go dead at once for an operator to look at and requeue.
       */
      permanent?: true;
    };
