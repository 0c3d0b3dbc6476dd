/** The request log part of a store (C60-C63): every request to the events endpoint, and the timeline. */
export interface RequestLogStore {
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
  /**
   * False: write only, the deletes left to a later write (C130: at most about a second later); a store may
   * still apply them. Absent or true: applied with this write.
   */
  prune?: boolean;
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
