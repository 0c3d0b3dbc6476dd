import type { ConversionEvent } from '@org/events-types';
import type { RetryOptions } from './backoff.js';
import type { SendError } from './errors.js';
import type { SerializedEvent } from './serialized.js';

export interface ClientOptions {
  /** The service's origin, such as http://127.0.0.1:8080. */
  baseUrl: string;
  /** A conversion token (events only) or an OAuth token with ads:write. */
  token: string;
  /** The ad account events go to. */
  adAccountId: string;
  /** Batches in flight at once (default 4). */
  concurrency?: number;
  retry?: RetryOptions;
  /** Smaller batches than the spec's limits (C56); larger ones are cut to the limits. */
  maxBatchEvents?: number;
  maxBatchBytes?: number;
  /** The platform fetch by default. */
  fetch?: typeof globalThis.fetch;
  headers?: Record<string, string>;
}

export interface SendOptions {
  /** `?test=true`: the service validates without storing (C7). */
  test?: boolean;
  /** Check each event with @org/events-validators first; failed events are answered `invalid`, not sent. */
  validate?: boolean;
  /** Custom event names of the ad account, for local validation (C10). */
  customEventNames?: Iterable<string>;
  /** Hash raw user_data values with hashUserData (C5) before sending; digests pass through. */
  hash?: boolean;
  signal?: AbortSignal;
  /** Called after each batch ends (progress bars). */
  onBatch?: (b: BatchReport) => void;
  /** Called before each retry wait. */
  onRetry?: (info: { batch: number | null; attempt: number; delayMs: number; status: number | null }) => void;
}

/** C57: one per input event, in input order. */
export interface EventOutcome {
  index: number;
  status: 'processed' | 'failed' | 'invalid' | 'not_sent';
  errorMessage: string | null;
  warningMessage: string | null;
  /** The batch it went in (numbered from 0), or null when it was not put in one. */
  batch: number | null;
  /** Requests its batch took (0 when not put in one). */
  attempts: number;
  /** Why it was not sent: the service's error, no answer, or too large alone. */
  error: SendError | null;
}

export interface BatchReport {
  batch: number;
  events: number;
  attempts: number;
  ok: boolean;
  requestId: string | null;
}

/** An event object, or one already serialized (`SerializedEvent`, sent as it is). */
export type EventInput = ConversionEvent | Record<string, unknown> | SerializedEvent;
