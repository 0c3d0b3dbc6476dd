import { exportHref, type Filters } from '../lib/filters.js';

/** The NDJSON and CSV export buttons of a list, carrying its current filters (the cookie authenticates). */
export function ExportLinks<K extends string>(props: {
  list: 'requests' | 'events';
  filters: Filters<K>;
  keys: readonly K[];
}) {
  const { list, filters, keys } = props;
  return (
    <>
      <a class="button" href={exportHref(list, 'ndjson', filters, keys)} download>
        Export NDJSON
      </a>
      <a class="button" href={exportHref(list, 'csv', filters, keys)} download>
        Export CSV
      </a>
    </>
  );
}
