import { useEffect, useMemo, useState } from 'preact/hooks';
import { admin } from '../api/client.js';
import { usePagedList } from '../api/paged-list.js';
import type { RequestSummary } from '../api/types.js';
import { ExportLinks } from '../components/export-links.js';
import { FilterForm } from '../components/filter-form.js';
import {
  fromQuery,
  listQuery,
  matchesFilters,
  REQUEST_FILTER_KEYS,
  type RequestFilters,
  toQuery,
} from '../lib/filters.js';
import { timeOf } from '../lib/format.js';

/** Rows kept while the stream adds more: a page left open all day stays small. */
const MAX_ROWS = 2000;
type Live = 'connecting' | 'live' | 'reconnecting';

/**
 * Requests to the events endpoint, newest first: the pages of admin/requests/list, then every new request as
 * the server logs it (EventSource on admin/requests/stream), kept when it matches the filters.
 */
export function RequestsPage({ query }: { query: string }) {
  const filters = useMemo(() => fromQuery(query, REQUEST_FILTER_KEYS), [query]);
  const listed = useMemo(() => listQuery('admin/requests/list', filters), [filters]);
  // Rows that arrived on the stream while a page loaded stay on top, once.
  const { rows, setRows, error, hasMore, more } = usePagedList('admin/requests/list', listed, merge);
  const [live, setLive] = useState<Live>('connecting');
  const [accounts, setAccounts] = useState<string[]>([]);

  const remember = (ids: string[]) => setAccounts((prev) => [...new Set([...prev, ...ids])].sort());
  useEffect(() => remember(rows.map((r) => r.ad_account_id)), [rows]);

  useEffect(() => {
    const stream = new EventSource(
      admin.url('admin/requests/stream', { query: listQuery('admin/requests/stream', filters) }),
    );
    stream.onopen = () => setLive('live');
    stream.onerror = () => setLive('reconnecting');
    stream.addEventListener('request', (e) => {
      const s = JSON.parse((e as MessageEvent<string>).data) as RequestSummary;
      remember([s.ad_account_id]);
      if (matchesFilters(s, filters)) setRows((prev) => merge([s], prev));
    });
    return () => stream.close();
  }, [filters]);

  const apply = (v: RequestFilters) => {
    location.hash = `#/requests${toQuery(v, REQUEST_FILTER_KEYS)}`;
  };

  return (
    <section>
      <div class="title-row">
        <h1>Requests</h1>
        <span class={`live ${live}`} data-live={live}>
          {live === 'live' ? '● live' : live === 'connecting' ? '○ connecting' : '○ reconnecting'}
        </span>
        <span class="spacer" />
        <ExportLinks operation="admin/requests/export" filters={filters} />
      </div>
      <FilterForm
        key={query}
        values={filters}
        onApply={apply}
        fields={[
          { key: 'ad_account_id', label: 'Ad account', list: 'accounts' },
          { key: 'status', label: 'HTTP status', placeholder: 'any, e.g. 400', pattern: '[1-5][0-9]{2}' },
          {
            key: 'outcome',
            label: 'Events',
            options: [
              ['', 'any'],
              ['failed', 'with failed events'],
              ['warned', 'with warnings'],
            ],
          },
          { key: 'event_name', label: 'Event name' },
          { key: 'client_request_id', label: 'Client request id', placeholder: "the sender's x-request-id" },
          {
            key: 'test',
            label: 'Test mode',
            options: [
              ['', 'any'],
              ['true', 'test only'],
              ['false', 'live only'],
            ],
          },
        ]}
      >
        <datalist id="accounts">
          {accounts.map((a) => (
            <option key={a} value={a} />
          ))}
        </datalist>
      </FilterForm>
      <AccountTotals rows={rows} />
      {error && <p class="error">{error}</p>}
      <table class="requests">
        <thead>
          <tr>
            <th>Received</th>
            <th>Ad account</th>
            <th>Status</th>
            <th class="n">Events</th>
            <th class="n">Processed</th>
            <th class="n">Failed</th>
            <th class="n">Warned</th>
            <th>Event names</th>
            <th>Token</th>
            <th class="n">ms</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.request_id} data-request-id={r.request_id} class={rowClass(r)}>
              <td>
                <a href={`#/requests/${encodeURIComponent(r.request_id)}`}>{timeOf(r.received_at)}</a>
                {r.test && <span class="badge test">test</span>}
              </td>
              <td>{r.ad_account_id}</td>
              <td>
                <span class={`status s${Math.floor(r.status / 100)}`}>{r.status}</span>
                {r.error && <span class="muted small"> {r.error.message}</span>}
              </td>
              <td class="n">{r.events}</td>
              <td class="n processed">{r.processed}</td>
              <td class="n failed">{r.failed}</td>
              <td class="n warned">{r.warned}</td>
              <td>{r.event_names.join(', ')}</td>
              <td class="muted">{r.token_id ?? '-'}</td>
              <td class="n muted">{r.duration_ms}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {rows.length === 0 && !error && (
        <p class="muted empty">No requests yet. Send events and they appear here.</p>
      )}
      {hasMore && (
        <button type="button" onClick={more}>
          Load older
        </button>
      )}
    </section>
  );
}

/** Processed, failed and warned events of the listed requests, per ad account. */
function AccountTotals({ rows }: { rows: RequestSummary[] }) {
  const totals = new Map<string, { requests: number; processed: number; failed: number; warned: number }>();
  for (const r of rows) {
    const t = totals.get(r.ad_account_id) ?? { requests: 0, processed: 0, failed: 0, warned: 0 };
    t.requests += 1;
    t.processed += r.processed;
    t.failed += r.failed;
    t.warned += r.warned;
    totals.set(r.ad_account_id, t);
  }
  if (!totals.size) return null;
  return (
    <div class="totals">
      {[...totals].map(([account, t]) => (
        <a key={account} class="total card" href={`#/requests?ad_account_id=${encodeURIComponent(account)}`}>
          <strong>{account}</strong>
          <span>{t.requests} requests</span>
          <span class="processed">{t.processed} processed</span>
          <span class="failed">{t.failed} failed</span>
          <span class="warned">{t.warned} warned</span>
        </a>
      ))}
    </div>
  );
}

function rowClass(r: RequestSummary): string {
  if (r.status >= 400 || r.failed > 0) return 'bad';
  if (r.warned > 0) return 'warn';
  return '';
}

/** `first` then `rest`, each request once (the stream and a page may both hold one), newest first. */
function merge(first: RequestSummary[], rest: RequestSummary[]): RequestSummary[] {
  const seen = new Set<string>();
  const out: RequestSummary[] = [];
  for (const r of [...first, ...rest]) {
    if (seen.has(r.request_id)) continue;
    seen.add(r.request_id);
    out.push(r);
  }
  return out.sort((a, b) => b.received_at - a.received_at).slice(0, MAX_ROWS);
}
