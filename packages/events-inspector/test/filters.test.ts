import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { RequestSummary } from '../src/app/api/types.js';
import {
  EVENT_FILTER_KEYS,
  exportHref,
  fromQuery,
  listQuery,
  matchesFilters,
  REQUEST_FILTER_KEYS,
  type RequestFilters,
  toQuery,
} from '../src/app/lib/filters.js';

const summary: RequestSummary = {
  request_id: 'r1',
  client_request_id: 'trace-9',
  received_at: 1_700_000_000_500,
  ad_account_id: '549755885175',
  token_id: 'demo-conversion',
  test: false,
  status: 200,
  duration_ms: 3,
  events: 2,
  processed: 1,
  failed: 1,
  warned: 0,
  event_names: ['checkout', 'page_visit'],
  error: null,
};

describe('filters and query strings', () => {
  it('writes the set filters in the order of the API, trimmed, and nothing when none is set', () => {
    expect(
      toQuery({ test: 'true', ad_account_id: ' 123 ', status: '', outcome: 'failed' }, REQUEST_FILTER_KEYS),
    ).toBe('?ad_account_id=123&outcome=failed&test=true');
    expect(toQuery({}, REQUEST_FILTER_KEYS)).toBe('');
    expect(toQuery({ event_name: 'add to cart&x=1' }, EVENT_FILTER_KEYS)).toBe(
      '?event_name=add+to+cart%26x%3D1',
    );
  });

  it('reads back what it wrote, and drops unknown parameters', () => {
    const value = fc.string({ minLength: 1 }).filter((s) => s.trim() === s && s.length > 0);
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom(...REQUEST_FILTER_KEYS), value), (f) => {
        expect(fromQuery(toQuery(f, REQUEST_FILTER_KEYS), REQUEST_FILTER_KEYS)).toEqual(f);
      }),
    );
    expect(fromQuery('?status=400&token=secret&cursor=x', REQUEST_FILTER_KEYS)).toEqual({ status: '400' });
  });

  it("export links carry the filters and the format in the spec's order, never a token", () => {
    expect(exportHref('admin/requests/export', 'csv', { ad_account_id: '1', outcome: 'failed' })).toBe(
      '/admin/requests/export?format=csv&ad_account_id=1&outcome=failed',
    );
    expect(exportHref('admin/events/export', 'ndjson', { outcome: 'failed' })).toBe(
      '/admin/events/export?format=ndjson',
    );
  });

  it("turns the URL's filters into the operation's typed query, leaving out what it would refuse", () => {
    expect(
      listQuery('admin/requests/list', {
        status: ' 400 ',
        since: '1700000000',
        outcome: 'failed',
        test: 'true',
        event_id: 'not a parameter of this list',
      }),
    ).toEqual({ status: 400, since: 1_700_000_000, outcome: 'failed', test: 'true' });
    expect(
      listQuery('admin/requests/list', { status: '4xx', outcome: 'lost', test: 'yes', until: '' }),
    ).toEqual({});
    expect(listQuery('admin/events/list', { event_id: 'o-1', status: '400' })).toEqual({ event_id: 'o-1' });
    expect(listQuery('admin/requests/stream', { ad_account_id: '7', status: '200' })).toEqual({
      ad_account_id: '7',
    });
  });
});

describe('matchesFilters (live rows)', () => {
  const cases: [RequestFilters, boolean][] = [
    [{}, true],
    [{ ad_account_id: '549755885175' }, true],
    [{ ad_account_id: '1' }, false],
    [{ client_request_id: 'trace-9' }, true],
    [{ client_request_id: 'trace-1' }, false],
    [{ status: '200' }, true],
    [{ status: '400' }, false],
    [{ outcome: 'failed' }, true],
    [{ outcome: 'warned' }, false],
    [{ event_name: 'page_visit' }, true],
    [{ event_name: 'lead' }, false],
    [{ test: 'false' }, true],
    [{ test: 'true' }, false],
    [{ since: '1700000000' }, true],
    [{ since: '1700000001' }, false],
    [{ until: '1700000001' }, true],
    [{ until: '1700000000' }, false],
    [{ status: ' ', event_name: '' }, true],
  ];
  it.each(cases)('%j -> %s', (f, expected) => {
    expect(matchesFilters(summary, f)).toBe(expected);
  });
});
