import { useEffect, useMemo, useState } from 'preact/hooks';
import { api, describeError } from '../api/client.js';
import type { Page, StoredEvent } from '../api/types.js';
import { ExportLinks } from '../components/export-links.js';
import { FilterForm } from '../components/filter-form.js';
import { EVENT_FILTER_KEYS, type EventFilters, fromQuery, toQuery } from '../lib/filters.js';
import { dateTimeOf } from '../lib/format.js';
import { useApiCall } from '../session.js';

const PAGE = 50;

/** Stored events (GET /admin/events), newest first, a page at a time. */
export function EventsPage({ query }: { query: string }) {
  const filters = useMemo(() => fromQuery(query, EVENT_FILTER_KEYS), [query]);
  const [rows, setRows] = useState<StoredEvent[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const run = useApiCall();

  const load = async (from: string | null) => {
    const r = await run(() =>
      api.get<Page<StoredEvent>>(
        `/admin/events${toQuery(filters, EVENT_FILTER_KEYS, { limit: PAGE, cursor: from })}`,
      ),
    );
    if (!r.ok) return setError(describeError(r.error));
    setError(null);
    setRows((prev) => (from ? [...prev, ...r.value.items] : r.value.items));
    setCursor(r.value.next_cursor ?? null);
  };
  useEffect(() => {
    setRows([]);
    load(null);
  }, [filters]);

  const apply = (v: EventFilters) => {
    location.hash = `#/events${toQuery(v, EVENT_FILTER_KEYS)}`;
  };
  return (
    <section>
      <div class="title-row">
        <h1>Stored events</h1>
        <span class="spacer" />
        <ExportLinks list="events" filters={filters} keys={EVENT_FILTER_KEYS} />
      </div>
      <FilterForm
        key={query}
        values={filters}
        onApply={apply}
        fields={[
          { key: 'ad_account_id', label: 'Ad account' },
          { key: 'event_name', label: 'Event name' },
          { key: 'event_id', label: 'Event id' },
        ]}
      />
      {error && <p class="error">{error}</p>}
      <table class="events">
        <thead>
          <tr>
            <th>Received</th>
            <th>Ad account</th>
            <th>Event name</th>
            <th>Event id</th>
            <th>Dedup</th>
            <th>Request</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((e) => (
            <tr key={`${e.ad_account_id}/${e.event_id}/${e.request_id}`}>
              <td>{dateTimeOf(e.received_at * 1000).slice(0, 19)}</td>
              <td>{e.ad_account_id}</td>
              <td>{e.event_name}</td>
              <td>
                <details>
                  <summary>
                    <code>{e.event_id}</code>
                  </summary>
                  <pre class="json small">{JSON.stringify(e.event, null, 2)}</pre>
                </details>
              </td>
              <td>
                {e.dedup_status}
                {e.duplicates > 0 && <span class="muted"> ({e.duplicates} later)</span>}
              </td>
              <td>
                <a href={`#/requests/${encodeURIComponent(e.request_id)}`}>
                  <code>{e.request_id.slice(0, 8)}</code>
                </a>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {rows.length === 0 && !error && <p class="muted empty">No stored events match.</p>}
      {cursor && (
        <button type="button" onClick={() => load(cursor)}>
          Load older
        </button>
      )}
    </section>
  );
}
