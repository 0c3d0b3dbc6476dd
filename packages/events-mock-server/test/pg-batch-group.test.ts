// C83: batches waiting while a PostgreSQL call runs go together into the next call, per account; every
// batch of a call settles with it. No database: the call is a function the test answers by hand.
import { describe, expect, test } from 'vitest';
import type { BatchResult, BatchWrite } from '../src/store/interface/events.js';
import { BatchGrouper, groupParams, splitResults } from '../src/store/pg/batch-group.js';

const batch = (account: string, request: string, ids: string[]): BatchWrite => ({
  adAccountId: account,
  requestId: request,
  receivedAt: 1000,
  dedupSince: 0,
  events: ids.map((id, i) => ({
    index: i + 10,
    eventName: 'checkout',
    eventId: id,
    eventTime: 1,
    usage: ['reporting'],
    json: `{"id":"${id}"}`,
  })),
  failures: [],
});

function manualCalls() {
  const calls: { requests: string[]; answer(r: BatchResult[] | Error): void }[] = [];
  const run = (group: BatchWrite[]) =>
    new Promise<BatchResult[]>((resolve, reject) => {
      calls.push({
        requests: group.map((b) => b.requestId),
        answer: (r) => (r instanceof Error ? reject(r) : resolve(r)),
      });
    });
  return { calls, run };
}

const empty = (): BatchResult => ({ duplicates: new Map() });

describe('BatchGrouper (C83)', () => {
  test('one call at a time; the batches that waited go in the next call, per account, oldest first', async () => {
    const { calls, run } = manualCalls();
    const g = new BatchGrouper(run, 1, 1000);
    const settled: string[] = [];
    const submit = (b: BatchWrite) => g.submit(b).then(() => settled.push(b.requestId));
    const all = [
      submit(batch('A', 'r1', ['a'])),
      submit(batch('A', 'r2', ['b'])),
      submit(batch('B', 'r3', ['c'])),
      submit(batch('A', 'r4', ['d'])),
    ];
    expect(calls.map((c) => c.requests)).toEqual([['r1']]);
    calls[0]?.answer([empty()]);
    await new Promise((r) => setImmediate(r));
    expect(settled).toEqual(['r1']);
    expect(calls.map((c) => c.requests)).toEqual([['r1'], ['r2', 'r4']]);
    calls[1]?.answer([empty(), empty()]);
    await new Promise((r) => setImmediate(r));
    expect(calls.map((c) => c.requests)).toEqual([['r1'], ['r2', 'r4'], ['r3']]);
    calls[2]?.answer([empty()]);
    await Promise.all(all);
    expect(settled).toEqual(['r1', 'r2', 'r4', 'r3']);
  });

  test('a group holds at most the event cap; a failed call fails each of its batches with its error', async () => {
    const { calls, run } = manualCalls();
    const g = new BatchGrouper(run, 1, 3);
    const first = g.submit(batch('A', 'r1', ['a']));
    const second = g.submit(batch('A', 'r2', ['b', 'c']));
    const third = g.submit(batch('A', 'r3', ['d']));
    const fourth = g.submit(batch('A', 'r4', ['e']));
    calls[0]?.answer([empty()]);
    await first;
    await new Promise((r) => setImmediate(r));
    expect(calls.map((c) => c.requests)).toEqual([['r1'], ['r2', 'r3']]);
    const down = new Error('database down');
    calls[1]?.answer(down);
    await expect(second).rejects.toBe(down);
    await expect(third).rejects.toBe(down);
    await new Promise((r) => setImmediate(r));
    expect(calls.map((c) => c.requests)).toEqual([['r1'], ['r2', 'r3'], ['r4']]);
    calls[2]?.answer([empty()]);
    await expect(fourth).resolves.toEqual(empty());
  });

  test('parameters run batch after batch; duplicates come back to their batch and request index', () => {
    const group = [batch('A', 'r1', ['a', 'b']), batch('A', 'r2', ['a'])];
    expect(groupParams(group)).toEqual([
      'A',
      ['r1', 'r2'],
      [1000, 1000],
      [0, 0],
      [1, 1, 2],
      ['checkout', 'checkout', 'checkout'],
      ['a', 'b', 'a'],
      [1, 1, 1],
      ['reporting', 'reporting', 'reporting'],
      '{"id":"a"}\u001e{"id":"b"}\u001e{"id":"a"}',
      [],
      [],
    ]);
    const results = splitResults(group, [
      { dup_pos: 3, dup_source: 'api', dup_seen_at: 1000, dup_event_time: 1 },
    ]);
    expect(results.map((r) => Object.fromEntries(r.duplicates))).toEqual([
      {},
      { 10: { source: 'api', seenAt: 1000, eventTime: 1 } },
    ]);
  });
});
