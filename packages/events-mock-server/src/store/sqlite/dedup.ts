import type { Database as Db, Statement } from 'better-sqlite3';
import { foldBatch } from '../common/dedup-fold.js';
import {
  type BatchResult,
  type DedupKey,
  type DryRunBatch,
  dedupKey,
  type Earlier,
} from '../interface/events.js';

/** The earliest sighting of a key within the window: a stored event (with its seq) or a tag event. */
export interface DedupRow {
  source: 'api' | 'tag';
  seen_at: number;
  event_time: number;
  event_seq: number | null;
}

/** A sighting as the duplicate warning of C6 names it. */
export const sightingOfRow = (r: DedupRow): Earlier => ({
  source: r.source,
  seenAt: r.seen_at,
  eventTime: r.event_time,
});

type Kind = 'lookup' | 'lookupTags';

/** One key in both tables at once: the common 1-event request pays one statement, no tag probe. */
const ONE_KEY_SQL = `SELECT event_name, event_id, 'api' AS source, received_at AS seen_at, event_time, seq AS event_seq
    FROM events WHERE ad_account_id = @account AND event_id = @id AND event_name = @name AND received_at >= @since
  UNION ALL
  SELECT event_name, event_id, 'tag' AS source, seen_at, event_time, NULL AS event_seq
    FROM tag_events WHERE ad_account_id = @account AND event_id = @id AND event_name = @name AND seen_at >= @since`;

/**
 * Every key of a batch in one statement: the event_ids travel as one JSON array of strings, read by json_each
 * as the outer loop (CROSS JOIN fixes the order), each probing the key index (account, event_id) once; the
 * caller keeps the rows whose event_name is the key's. Measured on 1000 keys: 0.13 ms, against 0.59 ms when
 * the keys travel as [event_id, event_name] pairs taken apart with `->>` in SQL.
 */
const MANY_KEYS_SQL: Record<Kind, string> = {
  lookup: `SELECT e.event_name, e.event_id, 'api' AS source, e.received_at AS seen_at, e.event_time, e.seq AS event_seq
    FROM json_each(@ids) AS k CROSS JOIN events AS e
    WHERE e.ad_account_id = @account AND e.event_id = k.value AND e.received_at >= @since`,
  lookupTags: `SELECT t.event_name, t.event_id, 'tag' AS source, t.seen_at, t.event_time, NULL AS event_seq
    FROM json_each(@ids) AS k CROSS JOIN tag_events AS t
    WHERE t.ad_account_id = @account AND t.event_id = k.value AND t.seen_at >= @since`,
};

/**
 * The dedup lookup of C6 on one connection: the writer's, inside its batch transaction, or a read-only
 * connection of the event loop (test mode, C7), which WAL lets read beside the writer thread without a
 * thread hop. One statement per batch (two when tag events were ever recorded), each prepared once.
 */
export class DedupLookup {
  readonly #anyTag: Statement;
  readonly #oneKey: Statement;
  readonly #many: Record<Kind, Statement>;

  constructor(db: Db) {
    this.#anyTag = db.prepare('SELECT 1 FROM tag_events LIMIT 1');
    this.#oneKey = db.prepare(ONE_KEY_SQL);
    this.#many = {
      lookup: db.prepare(MANY_KEYS_SQL.lookup),
      lookupTags: db.prepare(MANY_KEYS_SQL.lookupTags),
    };
  }

  /** The earliest sighting within the window of each of the keys (stored events and tag events), by dedupKey. */
  rows(adAccountId: string, keys: readonly DedupKey[], since: number): Map<string, DedupRow> {
    const out = new Map<string, DedupRow>();
    if (keys.length === 1) {
      const k = keys[0] as DedupKey;
      const found = this.#oneKey.all({
        account: adAccountId,
        id: k.eventId,
        name: k.eventName,
        since,
      }) as DedupRow[];
      let first: DedupRow | undefined;
      for (const r of found) if (!first || r.seen_at < first.seen_at) first = r;
      if (first) out.set(dedupKey(k.eventName, k.eventId), first);
      return out;
    }
    // Most deployments never record tag events: one cheap probe saves a lookup per chunk. (Asked per call,
    // not cached, because another connection or process on the same file may record some.)
    const tags = this.#anyTag.get() !== undefined;
    const wanted = new Set<string>();
    const ids = new Set<string>();
    for (const k of keys) {
      ids.add(k.eventId);
      wanted.add(dedupKey(k.eventName, k.eventId));
    }
    // A row of the same event_id under another event_name is another key (C6); each event_id is probed once.
    const keep = (r: DedupRow & { event_name: string; event_id: string }) => {
      const k = dedupKey(r.event_name, r.event_id);
      if (!wanted.has(k)) return;
      const cur = out.get(k);
      if (!cur || r.seen_at < cur.seen_at) out.set(k, r);
    };
    const args = { ids: JSON.stringify([...ids]), account: adAccountId, since };
    type Found = DedupRow & { event_name: string; event_id: string };
    for (const r of this.#many.lookup.all(args) as Found[]) keep(r);
    if (tags) for (const r of this.#many.lookupTags.all(args) as Found[]) keep(r);
    return out;
  }

  /** The dedup verdict of a batch, read-only (C7): the live commit's lookup and fold, nothing written. */
  dryRun(b: DryRunBatch): BatchResult {
    const rows = this.rows(b.adAccountId, b.events, b.dedupSince);
    return { duplicates: foldBatch(b.events, rows, sightingOfRow, b.receivedAt).duplicates };
  }

  /** The same, as the Store interface answers it. */
  earlier(adAccountId: string, keys: readonly DedupKey[], since: number): Map<string, Earlier> {
    const out = new Map<string, Earlier>();
    for (const [k, r] of this.rows(adAccountId, keys, since)) out.set(k, sightingOfRow(r));
    return out;
  }
}
