// The request log filters of C61 against a model: for any entries and any combination of filters, the store
// answers exactly the entries the filter admits, newest first, whatever the page size (fast-check).
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import type { RequestLogFilter, RequestLogWrite } from '../src/store/interface/request-log.js';
import { SqliteStore } from '../src/store/sqlite/sqlite-store.js';

const NAMES = ['checkout', 'lead', 'page visit', 'a\nb'];

const entryArb = fc.record({
  account: fc.constantFrom('111', '222'),
  status: fc.constantFrom(200, 400, 401, 429),
  test: fc.boolean(),
  failed: fc.nat(2),
  warned: fc.nat(2),
  names: fc.uniqueArray(fc.constantFrom(...NAMES), { maxLength: 3 }),
  second: fc.nat(20),
  // C118: client ids repeat across requests, or are absent.
  client: fc.constantFrom(null, 'trace-1', 'trace-2'),
});

const filterArb = fc.record(
  {
    adAccountId: fc.constantFrom('111', '222', '333'),
    clientRequestId: fc.constantFrom('trace-1', 'trace-2', 'trace-3'),
    status: fc.constantFrom(200, 400, 401, 429),
    outcome: fc.constantFrom('failed' as const, 'warned' as const),
    eventName: fc.constantFrom(...NAMES, 'a b', 'check'),
    test: fc.boolean(),
    since: fc.nat(20).map((s) => s * 1000),
    until: fc.nat(20).map((s) => s * 1000),
  },
  { requiredKeys: [] },
);

describe('C61 request log filters (property)', () => {
  test('the store answers what the model admits, newest first, across pages', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(entryArb, { maxLength: 25 }),
        filterArb,
        fc.integer({ min: 1, max: 7 }),
        async (entries, filter, pageSize) => {
          const store = new SqliteStore({ path: ':memory:' });
          try {
            const writes: RequestLogWrite[] = entries.map((e, i) => ({
              requestId: `r${i}`,
              clientRequestId: e.client,
              receivedAt: e.second * 1000,
              adAccountId: e.account,
              tokenId: null,
              test: e.test,
              status: e.status,
              durationMs: 1,
              events: 3,
              processed: 3 - e.failed,
              failed: e.failed,
              warned: e.warned,
              eventNames: e.names,
              error: null,
              body: null,
              bodyTruncated: false,
              items: [],
              timeline: null,
            }));
            await store.appendRequests(writes, {
              maxEntries: 1000,
              maxBytes: 1e9,
              maxAgeMs: 1e12,
              now: 0,
              timelineSince: 0,
            });
            const admitted = writes
              .filter(
                (w) =>
                  (filter.adAccountId === undefined || w.adAccountId === filter.adAccountId) &&
                  (filter.clientRequestId === undefined || w.clientRequestId === filter.clientRequestId) &&
                  (filter.status === undefined || w.status === filter.status) &&
                  (filter.outcome !== 'failed' || w.failed > 0) &&
                  (filter.outcome !== 'warned' || w.warned > 0) &&
                  (filter.eventName === undefined ||
                    w.eventNames
                      .map((n) => n.replaceAll('\n', ' '))
                      .includes(filter.eventName.replaceAll('\n', ' '))) &&
                  (filter.test === undefined || w.test === filter.test) &&
                  (filter.since === undefined || w.receivedAt >= filter.since) &&
                  (filter.until === undefined || w.receivedAt < filter.until),
              )
              .map((w) => w.requestId)
              .reverse();
            const got: string[] = [];
            let cursor: string | null | undefined;
            do {
              const f: RequestLogFilter = { ...filter, limit: pageSize, ...(cursor ? { cursor } : {}) };
              const page = await store.listRequests(f);
              got.push(...page.items.map((i) => i.requestId));
              cursor = page.nextCursor;
            } while (cursor);
            expect(got).toEqual(admitted);
          } finally {
            await store.close();
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});
