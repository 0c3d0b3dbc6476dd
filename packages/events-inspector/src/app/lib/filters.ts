// Filters of the lists as the admin API takes them: the page keeps them in its URL hash (so a reload or a
// shared link shows the same list), turns them into the typed query of the list, the stream and the export
// operations (C107), and applies them to requests that arrive live.
import { ADMIN_OPERATIONS, type AdminOperationId, type AdminOperations } from '@org/events-client';
import { admin } from '../api/client.js';
import type { RequestSummary } from '../api/types.js';

type QueryKey<Id extends AdminOperationId> = keyof AdminOperations[Id]['query'];

/** Query parameters of GET /admin/requests (and its export), in the order they are written. */
export const REQUEST_FILTER_KEYS = [
  'ad_account_id',
  'client_request_id',
  'status',
  'outcome',
  'event_name',
  'test',
  'since',
  'until',
] as const satisfies readonly QueryKey<'admin/requests/list' | 'admin/requests/export'>[];
/** Query parameters of GET /admin/events (and its export). */
export const EVENT_FILTER_KEYS = [
  'ad_account_id',
  'event_name',
  'event_id',
  'since',
  'until',
] as const satisfies readonly QueryKey<'admin/events/list' | 'admin/events/export'>[];

export type RequestFilterKey = (typeof REQUEST_FILTER_KEYS)[number];
export type EventFilterKey = (typeof EVENT_FILTER_KEYS)[number];
export type Filters<K extends string> = Partial<Record<K, string>>;
export type RequestFilters = Filters<RequestFilterKey>;
export type EventFilters = Filters<EventFilterKey>;

/** `?a=1&b=2` of the non-empty values (trimmed) of `keys`, for the page's own URL; '' when there is none. */
export function toQuery<K extends string>(filters: Filters<K>, keys: readonly K[]): string {
  const q = new URLSearchParams();
  for (const k of keys) {
    const v = filters[k]?.trim();
    if (v) q.set(k, v);
  }
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
  const client = v('client_request_id');
  if (client !== undefined && s.client_request_id !== client) return false;
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

/**
 * The filters (text, from the page's URL) as the typed query of an admin operation, with the kinds its
 * table gives: an integer parameter only when the text is an integer, an enum one only when it is one of the
 * values; other filters and parameters the operation does not take are left out (C107).
 */
export function listQuery<Id extends AdminOperationId>(
  id: Id,
  filters: Filters<string>,
): AdminOperations[Id]['query'] {
  const out: Record<string, string | number | boolean> = {};
  for (const [name, kind] of Object.entries(ADMIN_OPERATIONS[id].query) as [string, string | string[]][]) {
    const v = filters[name]?.trim();
    if (!v) continue;
    if (Array.isArray(kind)) {
      if (kind.includes(v)) out[name] = v;
    } else if (kind === 'integer') {
      if (/^-?\d+$/.test(v)) out[name] = Number(v);
    } else if (kind === 'boolean') {
      if (v === 'true' || v === 'false') out[name] = v === 'true';
    } else out[name] = v;
  }
  // Built from the same table the type is generated from.
  return out as AdminOperations[Id]['query'];
}

/** The export link of a list: its filters and the format; the session cookie authenticates the download. */
export function exportHref(
  id: 'admin/requests/export' | 'admin/events/export',
  format: 'ndjson' | 'csv',
  filters: Filters<string>,
): string {
  return admin.url(id, { query: { ...listQuery(id, filters), format } });
}
