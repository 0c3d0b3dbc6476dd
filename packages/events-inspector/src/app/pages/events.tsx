import { useMemo } from 'preact/hooks';
import { usePagedList } from '../api/paged-list.js';
import { ExportLinks } from '../components/export-links.js';
import { FilterForm } from '../components/filter-form.js';
import { EVENT_FILTER_KEYS, type EventFilters, fromQuery, listQuery, toQuery } from '../lib/filters.js';
import { dateTimeOf } from '../lib/format.js';

/** Stored events (the operation admin/events/list), newest first, a page at a time. */
export function EventsPage({ query }: { query: string }) {
  const filters = useMemo(() => fromQuery(query, EVENT_FILTER_KEYS), [query]);
  const listed = useMemo(() => listQuery('admin/events/list', filters), [filters]);
  const { rows, error, hasMore, more } = usePagedList('admin/events/list', listed);

  const apply = (v: EventFilters) => {
    location.hash = `#/events${toQuery(v, EVENT_FILTER_KEYS)}`;
  };
  return (
    <section>
      <div class="title-row">
        <h1>Stored events</h1>
        <span class="spacer" />
        <ExportLinks operation="admin/events/export" filters={filters} />
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
      {hasMore && (
        <button type="button" onClick={more}>
          Load older
        </button>
      )}
    </section>
  );
}
