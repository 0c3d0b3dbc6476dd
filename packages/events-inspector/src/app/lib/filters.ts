// Filters of the lists as the admin API takes them: the page keeps them in its URL hash (so a reload or a
// shared link shows the same list), turns them into the query string of GET /admin/requests, the stream and
// the export links, and applies them to requests that arrive live.
import type { RequestSummary } from '../api/types.js';

/** Query parameters of GET /admin/requests (and its export), in the order they are written. */
export const REQUEST_FILTER_KEYS = [
  'ad_account_id',
  'status',
  'outcome',
  'event_name',
  'test',
  'since',
  'until',
] as const;
/** Query parameters of GET /admin/events (and its export). */
export const EVENT_FILTER_KEYS = ['ad_account_id', 'event_name', 'event_id', 'since', 'until'] as const;

export type RequestFilterKey = (typeof REQUEST_FILTER_KEYS)[number];
export type EventFilterKey = (typeof EVENT_FILTER_KEYS)[number];
export type Filters<K extends string> = Partial<Record<K, string>>;
export type RequestFilters = Filters<RequestFilterKey>;
export type EventFilters = Filters<EventFilterKey>;

/** `?a=1&b=2` of the non-empty values (trimmed) of `keys`, then `extra`; '' when there is none. */
export function toQuery<K extends string>(
  filters: Filters<K>,
  keys: readonly K[],
  extra: Record<string, string | number | null | undefined> = {},
): string {
  const q = new URLSearchParams();
  for (const k of keys) {
    const v = filters[k]?.trim();
    if (v) q.set(k, v);
  }
  for (const [k, v] of Object.entries(extra))
    if (v !== null && v !== undefined && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}

/** The filters named in a query string; unknown parameters and empty values are dropped. */
export function fromQuery<K extends string>(search: string, keys: readonly K[]): Filters<K> {
  const q = new URLSearchParams(search.startsWith('?') ? search.slice(1) : search);
  const out: Filters<K> = {};
  for (const k of keys) {
    const v = q.get(k)?.trim();
    if (v) out[k] = v;
  }
  return out;
}

/**
 * Whether a request that arrived on the stream belongs in the list under these filters: the same rules the
 * API applies to GET /admin/requests, so a live row never appears that a reload would not show.
 */
export function matchesFilters(s: RequestSummary, f: RequestFilters): boolean {
  const v = (k: RequestFilterKey) => f[k]?.trim() || undefined;
  const account = v('ad_account_id');
  if (account !== undefined && s.ad_account_id !== account) return false;
  const status = v('status');
  if (status !== undefined && String(s.status) !== status) return false;
  const outcome = v('outcome');
  if (outcome === 'failed' && s.failed === 0) return false;
  if (outcome === 'warned' && s.warned === 0) return false;
  const name = v('event_name');
  if (name !== undefined && !s.event_names.includes(name)) return false;
  const test = v('test');
  if (test !== undefined && String(s.test) !== test) return false;
  const since = v('since');
  if (since !== undefined && s.received_at < Number(since) * 1000) return false;
  const until = v('until');
  if (until !== undefined && s.received_at >= Number(until) * 1000) return false;
  return true;
}

/** The export link of a list: its filters and the format; the session cookie authenticates the download. */
export function exportHref<K extends string>(
  list: 'requests' | 'events',
  format: 'ndjson' | 'csv',
  filters: Filters<K>,
  keys: readonly K[],
): string {
  const q = toQuery(filters, keys, { format });
  return `/admin/${list}/export${q}`;
}
