import { dedupKey, type Earlier, type EventToStore } from '../interface/events.js';

/** What the fold of one batch decided (C6), for a store to write or, in a dry run (C7), only to answer. */
export interface BatchFold<H> {
  /** Request index -> the earlier sighting, for every event that is a duplicate. */
  duplicates: Map<number, Earlier>;
  /** First sightings, in request order: what a live batch stores. */
  fresh: EventToStore[];
  /** Duplicates of a sighting before this batch: the sighting each one folded into, in request order. */
  intoEarlier: H[];
  /** Duplicates of an event of this batch: the index in `fresh` of the first one, in request order. */
  intoFresh: number[];
}

/**
 * The one in-batch verdict of C6, pure: each event in request order is a duplicate of the earliest sighting
 * of its key before the batch (`earlier`, looked up by the store within the window), else of the first event
 * of this batch with its key (seen when the batch was received), else a first sighting. Every store's live
 * commit and dry run answer with it (PostgreSQL's live commit folds in its SQL function, C46, held equal by
 * the conformance suite).
 */
export function foldBatch<H>(
  events: readonly EventToStore[],
  earlier: ReadonlyMap<string, H>,
  sightingOf: (hit: H) => Earlier,
  receivedAt: number,
): BatchFold<H> {
  const duplicates = new Map<number, Earlier>();
  const fresh: EventToStore[] = [];
  const intoEarlier: H[] = [];
  const intoFresh: number[] = [];
  // Keys first seen in this batch, by their index in `fresh`; built only once a batch has a second event.
  let inBatch: Map<string, number> | undefined;
  for (const e of events) {
    const key = dedupKey(e.eventName, e.eventId);
    const first = inBatch?.get(key);
    if (first !== undefined) {
      const f = fresh[first] as EventToStore;
      duplicates.set(e.index, { source: 'api', seenAt: receivedAt, eventTime: f.eventTime });
      intoFresh.push(first);
      continue;
    }
    const hit = earlier.get(key);
    if (hit !== undefined) {
      duplicates.set(e.index, sightingOf(hit));
      intoEarlier.push(hit);
      continue;
    }
    if (events.length > 1) {
      inBatch ??= new Map();
      inBatch.set(key, fresh.length);
    }
    fresh.push(e);
  }
  return { duplicates, fresh, intoEarlier, intoFresh };
}

/** An Earlier as it is: the sightings a read-only lookup (`findEarlier`) answers. */
export const asSighting = (e: Earlier): Earlier => e;
