import type { AdminAnswer, AdminCallId, AdminOperations } from '@org/events-client';
import { useEffect, useRef, useState } from 'preact/hooks';
import { useApiCall } from '../session.js';
import { admin, describeError } from './client.js';

/** The admin lists read a page at a time: an answer of items and a cursor, a query taking limit and cursor. */
export type PagedListId = {
  [K in AdminCallId]: [AdminOperations[K]['query']] extends [never]
    ? never
    : AdminAnswer<K> extends { items: unknown[]; next_cursor?: string | null }
      ? AdminOperations[K]['query'] extends { limit?: number; cursor?: string }
        ? K
        : never
      : never;
}[AdminCallId];

type Query<Id extends PagedListId> = Omit<AdminOperations[Id]['query'], 'limit' | 'cursor'>;
type Row<Id extends PagedListId> = AdminAnswer<Id>['items'][number];

const PAGE = 50;

/**
 * One admin list, newest first, a page at a time (C107): the first page whenever the query changes, then
 * `more()` for the next. `combine` puts a page after the rows held (the requests page also merges rows its
 * live stream adds through `setRows`). A page answered for an earlier query is dropped.
 */
export function usePagedList<Id extends PagedListId>(
  id: Id,
  query: Query<Id>,
  combine: (held: Row<Id>[], page: Row<Id>[]) => Row<Id>[] = (held, page) => [...held, ...page],
) {
  const [rows, setRows] = useState<Row<Id>[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const generation = useRef(0);
  const run = useApiCall();

  const load = async (from: string | null) => {
    const mine = generation.current;
    const input = { query: { ...query, limit: PAGE, ...(from ? { cursor: from } : {}) } };
    // `input` has the query of `Id` by construction; TypeScript cannot follow a generic id into the
    // conditional input type.
    const r = await run(() => admin.call(id as PagedListId, input as never) as Promise<AdminAnswer<Id>>);
    if (mine !== generation.current) return;
    if (!r.ok) return setError(describeError(r.error));
    setError(null);
    setRows((held) => combine(held, r.value.items as Row<Id>[]));
    setCursor(r.value.next_cursor ?? null);
  };
  useEffect(() => {
    generation.current += 1;
    setRows([]);
    setCursor(null);
    setError(null);
    load(null);
  }, [id, query]);

  return {
    rows,
    setRows,
    error,
    hasMore: cursor !== null,
    more: () => (cursor ? load(cursor) : Promise.resolve()),
  };
}
