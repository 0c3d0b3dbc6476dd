import { exportHref, type Filters } from '../lib/filters.js';

/** The NDJSON and CSV export buttons of a list, carrying its current filters (the cookie authenticates). */
export function ExportLinks(props: {
  operation: 'admin/requests/export' | 'admin/events/export';
  filters: Filters<string>;
}) {
  const { operation, filters } = props;
  return (
    <>
      <a class="button" href={exportHref(operation, 'ndjson', filters)} download>
        Export NDJSON
      </a>
      <a class="button" href={exportHref(operation, 'csv', filters)} download>
        Export CSV
      </a>
    </>
  );
}
