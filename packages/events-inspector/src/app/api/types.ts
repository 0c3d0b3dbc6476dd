// The admin API as the inspector reads it: the shapes of issue 13's shared HTTP contract (snake_case, like
// the rest of the API). Kept here rather than imported from @org/events-types so the page's bundle holds
// only what it draws; the browser test checks them against the real server.

export interface RequestError {
  code: number | string;
  message: string;
}

export interface RequestSummary {
  request_id: string;
  /** Unix milliseconds. */
  received_at: number;
  ad_account_id: string;
  token_id: string | null;
  test: boolean;
  status: number;
  duration_ms: number;
  events: number;
  processed: number;
  failed: number;
  warned: number;
  event_names: string[];
  error: RequestError | null;
}

export interface MatchQuality {
  identifiers: { field: string; present: boolean; well_formed: boolean }[];
  missing_recommended: string[];
  score: number;
}

export interface RequestItem {
  index: number;
  event: unknown;
  status: 'processed' | 'failed';
  error_message: string | null;
  warning_message: string | null;
  fields: string[];
  duplicate_of: { request_id: string; event_id: string; received_at: number } | null;
  match_quality: MatchQuality | null;
}

export interface RequestDetail extends RequestSummary {
  body_truncated: boolean;
  items: RequestItem[];
}

export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

export interface StoredEvent {
  ad_account_id: string;
  event_name: string;
  event_id: string;
  /** Unix seconds. */
  received_at: number;
  request_id: string;
  usage: string[];
  dedup_status: string;
  duplicates: number;
  event: unknown;
}

export interface AccountReport {
  ad_account_id: string;
  stored: { event_name: string; usage: string[]; processed: number; duplicates: number }[];
  failed: { event_name: string; code: string; count: number }[];
  timeline?: TimelineBucket[];
}

export interface TimelineBucket {
  /** Unix seconds, start of the hour. */
  start: number;
  processed: number;
  failed: Record<string, number>;
}

export type FaultKind = 'rate_limited' | 'unavailable' | 'latency';

export interface FaultSpec {
  ad_account_id?: string;
  token_id?: string;
  kind: FaultKind;
  count?: number;
  fraction?: number;
  latency_ms?: number;
  retry_after_seconds?: number;
}

export interface Fault extends FaultSpec {
  id: string;
  remaining: number | null;
  matched: number;
  created_at: number;
}
