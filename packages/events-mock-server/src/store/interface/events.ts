import type { DeletionCounts, DeletionRequestRow, DeletionTargets } from './deletions.js';

/**
 * The events part of a store (C6, C7, C11, C91): batches stored with their dedup verdict, the service's own
 * tag events, what is stored and counted, and conversion deletions.
 */
export interface EventStore {
  /**
   * Read-only dedup lookup (test mode, C7: no dedup state changes): the earlier sighting within the window
   * of each key, by `dedupKey(eventName, eventId)`.
   */
  findEarlier(adAccountId: string, keys: readonly DedupKey[], since: number): Promise<Map<string, Earlier>>;
  /**
   * Stores one batch atomically (C6, C11): dedup check and insert happen in one transaction, so parallel
   * batches sharing event_ids store each (ad account, event_name, event_id) once, and a crash leaves all of
   * the batch or none of it. Resolves only once the batch is durable. Rejects when storage is unavailable,
   * with nothing stored.
   */
  commitBatch(batch: BatchWrite): Promise<BatchResult>;
  /**
   * The dedup verdict `commitBatch` would answer for the batch now, storing nothing and changing no dedup
   * state (test mode, C7): the same lookup and the same in-batch fold (`foldBatch`), read-only.
   */
  dryRunBatch(batch: DryRunBatch): Promise<BatchResult>;
  /** Records events of the service's own tracking tag for dedup (C6); returns how many were recorded. */
  recordTagEvents(events: readonly TagEventWrite[], dedupSince: number): Promise<number>;

  listEvents(filter: EventFilter): Promise<{ items: StoredEventRow[]; nextCursor: string | null }>;
  report(adAccountId: string): Promise<AccountReportData>;

  /**
   * C91, C124: removes, in one transaction, the account's stored events whose user_data carries one of the
   * targets in the field it names (`DeletionTargets`), their dedup sightings, and every kept request-log body
   * of the account that holds one of the targets (the whole body goes; the entry's summary stays).
   */
  deleteConversions(adAccountId: string, targets: DeletionTargets): Promise<DeletionCounts>;
  /**
   * C91, C121: a conversion deletion request made at `at` (ms), processed at once: `deleteConversions` and the
   * request's record in the same transaction, its id taken there from the store's counter (never given
   * twice, also across instances sharing the store and across restarts). Resolves with the record.
   */
  createDeletionRequest(
    adAccountId: string,
    targets: DeletionTargets,
    at: number,
  ): Promise<DeletionRequestRow>;
  /** The account's conversion deletion requests, newest first (C121). */
  listDeletionRequests(adAccountId: string): Promise<DeletionRequestRow[]>;
  /** One conversion deletion request of the account, by an id `isDeletionRequestId` accepts; else null. */
  getDeletionRequest(adAccountId: string, requestId: string): Promise<DeletionRequestRow | null>;
}

export interface DedupKey {
  eventName: string;
  eventId: string;
}

export function dedupKey(eventName: string, eventId: string): string {
  return `${eventName}\u0000${eventId}`;
}

/** The earlier sighting of a (ad account, event_name, event_id), for the duplicate warning of C6. */
export interface Earlier {
  source: 'api' | 'tag';
  /** Received time of an API event; event_time (in ms) of a tag event, when the tag saw it. */
  seenAt: number;
  /** event_time (Unix seconds) of the earlier event, named in the warning. */
  eventTime: number;
}

/** One processed event to store, in request order. */
export interface EventToStore {
  /** Index in the request's data array. */
  index: number;
  eventName: string;
  eventId: string;
  eventTime: number;
  usage: readonly string[];
  /**
   * The event as accepted (dropped values removed), serialized once; or, when those are exactly the bytes
   * the client sent, where they sit in the batch's `source`.
   */
  json: string | ByteSpan;
}

/** Bytes [start, end) of a batch's source. */
export interface ByteSpan {
  start: number;
  end: number;
}

export interface BatchWrite {
  adAccountId: string;
  requestId: string;
  receivedAt: number;
  /** Earliest sighting time that still deduplicates (receivedAt - window, C6). */
  dedupSince: number;
  events: readonly EventToStore[];
  /**
   * The request body, when events' `json` are spans of it: the store decodes each event's text where it
   * runs (the store thread), and the event loop makes no string per event.
   */
  source?: Uint8Array;
  /** Failed events: counted per event name and reason code, never stored (C11). */
  failures: readonly { eventName: string; codes: readonly string[] }[];
}

/** What a dry run of a batch needs (C7): its account, times and events. */
export type DryRunBatch = Pick<BatchWrite, 'adAccountId' | 'receivedAt' | 'dedupSince' | 'events'>;

/** Bytes as a Buffer over the same memory (no copy): what a message from another thread gives is a Uint8Array. */
export function asBuffer(u: Uint8Array): Buffer {
  return Buffer.isBuffer(u) ? u : Buffer.from(u.buffer, u.byteOffset, u.byteLength);
}

/**
 * How a store reads the JSON text of a batch's events: an event's own text, or its span of the batch's
 * source (the source is wrapped once per batch, not once per event).
 */
export function eventJsonOf(b: Pick<BatchWrite, 'source'>): (e: EventToStore) => string {
  const src = b.source ? asBuffer(b.source) : null;
  return (e) => {
    if (typeof e.json === 'string') return e.json;
    if (!src) throw new Error(`event ${e.index} is a span of a batch without a source`);
    return src.toString('utf8', e.json.start, e.json.end);
  };
}

export interface BatchResult {
  /** Request index -> the earlier sighting, for every event that turned out to be a duplicate. */
  duplicates: Map<number, Earlier>;
}

export interface TagEventWrite {
  adAccountId: string;
  eventName: string;
  eventId: string;
  eventTime: number;
}

export interface EventFilter {
  adAccountId?: string;
  eventName?: string;
  eventId?: string;
  /** Received at or after (ms). */
  since?: number;
  /** Received before (ms). */
  until?: number;
  limit: number;
  cursor?: string;
}

export interface StoredEventRow {
  adAccountId: string;
  eventName: string;
  eventId: string;
  eventTime: number;
  receivedAt: number;
  requestId: string;
  usage: string[];
  /** `unique` until a later duplicate is folded into it, then `deduplicated` (C6, C11). */
  dedupStatus: 'unique' | 'deduplicated';
  duplicates: number;
  event: unknown;
}

export interface AccountReportData {
  stored: { eventName: string; usage: string[]; processed: number; duplicates: number }[];
  failed: { eventName: string; code: string; count: number }[];
}
