import type { DirectoryData } from './directory-data.js';

// The storage interface imports nothing of the modules that implement it (issue 36: those import this).

/** The users a conversion deletion request names: SHA-256 hex digests of e-mails, and click ids (EPIKs). */
export interface DeletionTargets {
  emailHashes: readonly string[];
  clickIds: readonly string[];
}

/**
 * What a deletion removed: stored events (and with them their dedup sightings and their outbox entries,
 * pending or settled, so a deleted event is never delivered and never holds its account's delivery), and
 * request-log bodies.
 */
export interface DeletionCounts {
  events: number;
  outboxEntries: number;
  requestBodies: number;
}

/**
 * A conversion deletion request as the store keeps it (C91, C121): what it did and when, never its targets.
 * Written in the transaction of its deletion.
 */
export interface DeletionRequestRow {
  /** Digits only, at most 18, never given twice (C121). */
  requestId: string;
  adAccountId: string;
  status: 'PENDING' | 'SUBMITTED';
  /** Milliseconds since the epoch, as every store time. */
  createdAt: number;
  /** Null until processed; this service processes a request when it is created (C91). */
  processedAt: number | null;
  removed: DeletionCounts;
}

/**
 * The one storage interface of the server (C11). Handlers only see this, so a server database (Postgres...)
 * can be added later as another implementation without touching them. Every method is async for that
 * reason, even though the embedded SQLite implementation answers synchronously.
 *
 * Times are milliseconds since the epoch unless a name says otherwise.
 */
export interface Store {
  /** Short name for logs and /readyz: `sqlite:file`, `sqlite:memory`. */
  readonly description: string;
  /** Answers when the store can serve requests; rejects otherwise (/readyz, C12). */
  ping(): Promise<void>;
  /** Flushes and closes; after it, every call rejects. */
  close(): Promise<void>;

  /** Replaces accounts, apps, users and tokens with the config's (C8); stored data is kept. */
  replaceDirectory(data: DirectoryData): Promise<void>;
  loadDirectory(): Promise<DirectoryData>;

  listCustomEventTypes(adAccountId: string): Promise<CustomEventTypeRow[]>;
  /** Registers a custom event type unless the name exists (case-insensitively) or the cap is reached (C10). */
  createCustomEventType(
    adAccountId: string,
    row: CustomEventTypeRow,
    maxPerAccount: number,
  ): Promise<
    { ok: true; row: CustomEventTypeRow } | { ok: false; reason: 'exists' | 'cap'; existing?: string }
  >;
  deleteCustomEventType(adAccountId: string, name: string): Promise<boolean>;
  /**
   * C91: removes, in one transaction, the account's stored events whose user_data carries one of the e-mail
   * hashes (`em`) or click ids, their dedup sightings, and every kept request-log body of the account that
   * holds one of the targets (the whole body goes; the entry's summary stays).
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
   * Deletes stored events, dedup state, failure counters, the request log, the timeline and the conversion
   * deletion requests (not their id counter, C121); keeps accounts, tokens, custom event types (C12, C60).
   */
  reset(): Promise<void>;

  /**
   * Appends request log entries in one transaction (C60), adds the timeline counts of live requests (C63),
   * then applies the retention: at most `maxEntries` entries, none received before `now - maxAgeMs`, no
   * timeline hour before `timelineSince`. Resolves with the sequence number of each entry, in order.
   */
  appendRequests(entries: readonly RequestLogWrite[], retention: RequestLogRetention): Promise<number[]>;
  /** A page of the request log, newest first, without bodies and items (C61). */
  listRequests(filter: RequestLogFilter): Promise<{ items: RequestLogSummary[]; nextCursor: string | null }>;
  /** The newest entry of a request id received at or after `notBefore`, with body and items; else null. */
  getRequest(requestId: string, notBefore: number): Promise<RequestLogEntry | null>;
  /** Timeline counters of an account from `since` (Unix seconds, an hour start) on, oldest first (C63). */
  timeline(adAccountId: string, since: number): Promise<TimelineCount[]>;
}

/** The earlier sighting of a duplicate, as the log keeps it; its request id is looked up when read (C60). */
export interface LoggedDuplicate {
  eventName: string;
  eventId: string;
  source: 'api' | 'tag';
  /** When the earlier event was received (api) or seen by the tag (ms). */
  seenAt: number;
}

/** One event of a logged request and its answer (C60). */
export interface RequestLogItem {
  index: number;
  status: 'processed' | 'failed';
  errorMessage: string | null;
  warningMessage: string | null;
  /** Paths of the fields its problems name, relative to the event. */
  fields: string[];
  duplicateOf: LoggedDuplicate | null;
}

/** The summary of a logged request (C60). */
export interface RequestLogSummary {
  /** Order of logging; the keyset of paging. */
  seq: number;
  /** The service's own id of the request (its x-pinterest-rid): the log's key (C118). */
  requestId: string;
  /** The x-request-id its client sent, when plain; several requests may share one (C118). */
  clientRequestId: string | null;
  receivedAt: number;
  adAccountId: string;
  tokenId: string | null;
  test: boolean;
  status: number;
  durationMs: number;
  events: number;
  processed: number;
  failed: number;
  warned: number;
  eventNames: string[];
  error: RequestLogError | null;
}

/**
 * The request-level error of a refused request (C2): the code and message; the details the client received
 * only where the full entry is read (C96).
 */
export interface RequestLogError {
  code: number;
  message: string;
  details?: { path: string; problem: string }[];
}

/** A logged request with its body (null when not kept) and items. */
export interface RequestLogEntry extends RequestLogSummary {
  body: string | null;
  bodyTruncated: boolean;
  items: RequestLogItem[];
}

/**
 * An entry to write. Its `items` may leave out processed events with no message, field or duplicate: the
 * stores keep only the others and restore those from the counts when read.
 */
export interface RequestLogWrite extends Omit<RequestLogEntry, 'seq' | 'body'> {
  /**
   * The body as received: bytes (decoded, or kept compressed, by the store, off the event loop where it
   * has a thread of its own), or text; null when not kept.
   */
  body: Uint8Array | string | null;
  /** Counts of a live 200 for the report timeline (C63): processed events and failed ones per code. */
  timeline: { processed: number; failedCodes: Record<string, number> } | null;
}

export interface RequestLogRetention {
  maxEntries: number;
  /** Total bytes of kept bodies. */
  maxBytes: number;
  maxAgeMs: number;
  now: number;
  /** Unix seconds: timeline hours before this are deleted. */
  timelineSince: number;
}

export interface RequestLogFilter {
  adAccountId?: string;
  clientRequestId?: string;
  status?: number;
  outcome?: 'failed' | 'warned';
  eventName?: string;
  test?: boolean;
  /** Received at or after (ms); the route folds the retention age in. */
  since?: number;
  /** Received before (ms). */
  until?: number;
  limit: number;
  cursor?: string;
}

/** One counter of the timeline: `code` '' counts processed events, any other a failure reason. */
export interface TimelineCount {
  start: number;
  code: string;
  count: number;
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

export interface CustomEventTypeRow {
  name: string;
  mappedEventName: string;
  /** Unix seconds. */
  createdAt: number;
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
