import type { BatchResult, BatchWrite, Earlier } from '../interface/events.js';
import { joinedEventJson } from './batch-params.js';

/** One answer row of `events_commit_batches`: a duplicate, by its 1-based position in the event arrays. */
export interface DupRow {
  dup_pos: number;
  dup_source: 'api' | 'tag';
  dup_seen_at: number;
  dup_event_time: number;
}

/**
 * One call over a group of batches of one account (C83), as a named statement: each connection parses and
 * plans it once (C131).
 */
export const COMMIT_BATCHES = {
  name: 'events_commit_batches',
  text: 'SELECT * FROM events_commit_batches($1, $2::text[], $3::bigint[], $4::bigint[], $5::int[], $6::text[], $7::text[], $8::bigint[], $9::text[], $10::text, $11::text[], $12::text[])',
} as const;

/** The same call when sinks cover the account: their outbox entries written in its transaction (C100). */
export const COMMIT_BATCHES_TO = {
  name: 'events_commit_batches_to',
  text: 'SELECT * FROM events_commit_batches_to($13::text[], $1, $2::text[], $3::bigint[], $4::bigint[], $5::int[], $6::text[], $7::text[], $8::bigint[], $9::text[], $10::text, $11::text[], $12::text[])',
} as const;

/** The parameters of one call over batches of one account, events in order, batch after batch. */
export function groupParams(group: readonly BatchWrite[]): unknown[] {
  const batchOf: number[] = [];
  const names: string[] = [];
  const ids: string[] = [];
  const times: number[] = [];
  const usages: string[] = [];
  const failNames: string[] = [];
  const failCodes: string[] = [];
  const texts: string[] = [];
  group.forEach((b, n) => {
    for (const e of b.events) {
      batchOf.push(n + 1);
      names.push(e.eventName);
      ids.push(e.eventId);
      times.push(e.eventTime);
      usages.push(e.usage.join(','));
    }
    if (b.events.length) texts.push(joinedEventJson(b));
    for (const f of b.failures)
      for (const code of f.codes) {
        failNames.push(f.eventName);
        failCodes.push(code);
      }
  });
  return [
    group[0]?.adAccountId,
    group.map((b) => b.requestId),
    group.map((b) => b.receivedAt),
    group.map((b) => b.dedupSince),
    batchOf,
    names,
    ids,
    times,
    usages,
    texts.join('\u001e'),
    failNames,
    failCodes,
  ];
}

/** Each batch's result from the duplicates of the whole call: positions back to (batch, request index). */
export function splitResults(group: readonly BatchWrite[], rows: readonly DupRow[]): BatchResult[] {
  const results = group.map(() => ({ duplicates: new Map<number, Earlier>() }));
  const owner: { batch: number; index: number }[] = [];
  group.forEach((b, n) => {
    for (const e of b.events) owner.push({ batch: n, index: e.index });
  });
  for (const r of rows) {
    const o = owner[r.dup_pos - 1];
    if (!o) throw new Error(`duplicate at position ${r.dup_pos} of a call of ${owner.length} events`);
    results[o.batch]?.duplicates.set(o.index, {
      source: r.dup_source,
      seenAt: r.dup_seen_at,
      eventTime: r.dup_event_time,
    });
  }
  return results;
}

interface Waiting {
  batch: BatchWrite;
  resolve(r: BatchResult): void;
  reject(e: unknown): void;
}

/**
 * Groups batches that arrive while the database is busy (C83). At most `maxCalls` calls run at once; a batch
 * arriving when they all run waits, and when one ends, the oldest waiting batch and the next waiting ones of
 * its account (up to `maxEvents` events in all) go in one call, so one transaction and one commit serve
 * them all. Each batch's promise settles with that call: resolved only once the call committed, rejected
 * (every batch of the call, with the same error) when it did not.
 */
export class BatchGrouper {
  readonly #waiting: Waiting[] = [];
  #running = 0;

  constructor(
    private readonly run: (group: BatchWrite[]) => Promise<BatchResult[]>,
    private readonly maxCalls: number,
    private readonly maxEvents: number,
  ) {}

  submit(batch: BatchWrite): Promise<BatchResult> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ batch, resolve, reject });
      this.#pump();
    });
  }

  #pump(): void {
    while (this.#running < this.maxCalls && this.#waiting.length > 0) {
      const group = this.#take();
      this.#running++;
      this.run(group.map((w) => w.batch))
        .then(
          (results) => {
            for (const [i, w] of group.entries()) w.resolve(results[i] as BatchResult);
          },
          (e) => {
            for (const w of group) w.reject(e);
          },
        )
        .finally(() => {
          this.#running--;
          this.#pump();
        });
    }
  }

  /** The oldest waiting batch and the following ones of its account that fit. */
  #take(): Waiting[] {
    const first = this.#waiting.shift() as Waiting;
    const group = [first];
    let events = first.batch.events.length;
    for (let i = 0; i < this.#waiting.length; ) {
      const w = this.#waiting[i] as Waiting;
      if (
        w.batch.adAccountId === first.batch.adAccountId &&
        events + w.batch.events.length <= this.maxEvents
      ) {
        group.push(w);
        events += w.batch.events.length;
        this.#waiting.splice(i, 1);
      } else i++;
    }
    return group;
  }
}
