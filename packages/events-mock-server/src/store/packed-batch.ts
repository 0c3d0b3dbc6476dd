import { type EventColumns, recordAt, toColumns } from './event-columns.js';
import type { BatchWrite, EventToStore } from './store.js';

/** A batch as it crosses to the store thread: its events as columns (event-columns.ts), usage names joined. */
export interface PackedBatch extends Omit<BatchWrite, 'events'> {
  packed: EventColumns & {
    /** Each event's usage names joined by a comma ('' for none): names never hold one (C10). */
    usage: string[];
  };
}

export function packBatch(b: BatchWrite): PackedBatch {
  const usage = b.events.map((e) => (e.usage.length ? e.usage.join(',') : ''));
  const { events, ...rest } = b;
  return { ...rest, packed: { ...toColumns(events), usage } };
}

export function unpackBatch(pb: PackedBatch): BatchWrite {
  const { packed: p, ...rest } = pb;
  const n = p.index.length;
  const events: EventToStore[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const usage = p.usage[i] as string;
    events[i] = { ...recordAt(p, i), usage: usage === '' ? [] : usage.split(',') };
  }
  return { ...rest, events };
}
