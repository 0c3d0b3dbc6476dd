import type { Database as Db, Statement } from 'better-sqlite3';
import type {
  OutboxBatch,
  OutboxClaim,
  OutboxEntryStatus,
  OutboxOutcome,
  OutboxRoute,
  OutboxState,
  OutboxStats,
} from './outbox.js';
import { type OutboxStatusRow, statsOf, toEntryStatus } from './outbox-rows.js';

/**
 * The outbox of C100 in the SQLite file: synchronous, used by SqliteStore inside its own transactions.
 * Claims run with BEGIN IMMEDIATE, so claims of other processes on the same file are serialized.
 */
export class SqliteOutbox {
  readonly #db: Db;
  readonly #s: ReturnType<typeof prepare>;
  /** Sinks of every account, and sinks of named accounts; empty: nothing is written. */
  #all: string[] = [];
  #byAccount = new Map<string, string[]>();
  #any = false;

  constructor(db: Db) {
    this.#db = db;
    this.#s = prepare(db);
  }

  route(routes: readonly OutboxRoute[]): void {
    this.#all = routes.filter((r) => r.adAccounts === null).map((r) => r.sink);
    this.#byAccount = new Map();
    for (const r of routes)
      for (const a of r.adAccounts ?? []) this.#byAccount.set(a, [...(this.#byAccount.get(a) ?? []), r.sink]);
    this.#any = routes.length > 0;
  }

  /**
   * Inside the batch transaction: one entry per stored event and covering sink, one statement per sink (the
   * event seqs go as one JSON array). Does nothing while no sink is routed.
   */
  write(adAccountId: string, requestId: string, createdAt: number, eventSeqs: readonly number[]): void {
    if (!this.#any || eventSeqs.length === 0) return;
    const sinks = this.#byAccount.get(adAccountId);
    const seqs = JSON.stringify(eventSeqs);
    for (const sink of sinks ? [...this.#all, ...sinks] : this.#all)
      this.#s.write.run(sink, adAccountId, requestId, createdAt, createdAt, seqs);
  }

  claim(c: OutboxClaim): OutboxBatch[] {
    const s = this.#s;
    return this.#db
      .transaction(() => {
        const batches: OutboxBatch[] = [];
        for (const account of s.accounts.pluck().all(c.sink) as string[]) {
          if (batches.length >= c.maxBatches) break;
          const head = s.head.get(c.sink, account) as { next_at: number; lease_until: number | null };
          // C100 ordering: an account waits while its oldest entry is leased or waits for its retry.
          if (head.next_at > c.now || (head.lease_until !== null && head.lease_until > c.now)) continue;
          const rows = s.take.all(c.sink, account, c.batchSize) as {
            id: number;
            attempts: number;
            event_name: string;
            event_id: string;
            event: string;
          }[];
          if (!rows.length) continue;
          const first = (rows[0] as { id: number }).id;
          const last = (rows[rows.length - 1] as { id: number }).id;
          s.lease.run(c.owner, c.now + c.leaseMs, c.sink, account, first, last);
          batches.push({
            sink: c.sink,
            adAccountId: account,
            entries: rows.map((r) => ({
              id: r.id,
              eventName: r.event_name,
              eventId: r.event_id,
              event: r.event,
              attempts: r.attempts,
            })),
          });
        }
        return batches;
      })
      .immediate();
  }

  settle(owner: string, o: OutboxOutcome): void {
    const s = this.#s;
    this.#db
      .transaction(() => {
        if (o.kind === 'released') {
          s.release.run(JSON.stringify(o.ids), owner);
          return;
        }
        if (o.kind === 'failed') {
          s.failed.run({
            max: o.maxAttempts,
            now: o.now,
            error: o.error,
            retryAt: o.retryAt,
            ids: JSON.stringify(o.ids),
            owner,
          });
          return;
        }
        o.ids.forEach((id, i) => {
          const r = o.results?.[i];
          s.delivered.run(o.now, r ? JSON.stringify(r) : null, id, owner);
        });
      })
      .immediate();
  }

  requeueDead(now: number, sink: string | undefined): number {
    return this.#s.requeue.run(now, sink ?? null, sink ?? null).changes;
  }

  stats(): OutboxStats[] {
    const rows = this.#s.stats.all() as { sink: string; state: OutboxState; n: number; first: number }[];
    return statsOf(rows, (r) => this.#s.createdAt.pluck().get(r.first) as number);
  }

  prune(deliveredBefore: number): number {
    return this.#s.prune.run(deliveredBefore).changes;
  }

  ofRequest(requestId: string): OutboxEntryStatus[] {
    return (this.#s.ofRequest.all(requestId) as OutboxStatusRow[]).map(toEntryStatus);
  }
}

function prepare(db: Db) {
  const p = (sql: string): Statement => db.prepare(sql);
  return {
    write: p(
      `INSERT INTO outbox (sink, ad_account_id, event_seq, request_id, created_at, state, attempts, next_at)
       SELECT ?, ?, value, ?, ?, 'pending', 0, ? FROM json_each(?)`,
    ),
    accounts: p("SELECT DISTINCT ad_account_id FROM outbox WHERE sink = ? AND state = 'pending'"),
    head: p(
      "SELECT next_at, lease_until FROM outbox WHERE sink = ? AND state = 'pending' AND ad_account_id = ? ORDER BY id LIMIT 1",
    ),
    take: p(
      `SELECT o.id, o.attempts, e.event_name, e.event_id, e.event FROM outbox o JOIN events e ON e.seq = o.event_seq
       WHERE o.sink = ? AND o.state = 'pending' AND o.ad_account_id = ? ORDER BY o.id LIMIT ?`,
    ),
    lease: p(
      `UPDATE outbox SET lease_owner = ?, lease_until = ?
       WHERE sink = ? AND state = 'pending' AND ad_account_id = ? AND id BETWEEN ? AND ?`,
    ),
    delivered: p(
      `UPDATE outbox SET state = 'delivered', attempts = attempts + 1, settled_at = ?, result = ?,
         last_error = NULL, lease_owner = NULL, lease_until = NULL
       WHERE id = ? AND lease_owner = ? AND state = 'pending'`,
    ),
    failed: p(
      `UPDATE outbox SET attempts = attempts + 1,
         state = CASE WHEN attempts + 1 >= @max THEN 'dead' ELSE 'pending' END,
         settled_at = @now, last_error = @error, next_at = @retryAt, lease_owner = NULL, lease_until = NULL
       WHERE id IN (SELECT value FROM json_each(@ids)) AND lease_owner = @owner AND state = 'pending'`,
    ),
    release: p(
      `UPDATE outbox SET lease_owner = NULL, lease_until = NULL
       WHERE id IN (SELECT value FROM json_each(?)) AND lease_owner = ? AND state = 'pending'`,
    ),
    requeue: p(
      `UPDATE outbox SET state = 'pending', attempts = 0, next_at = ?, settled_at = NULL
       WHERE state = 'dead' AND (? IS NULL OR sink = ?)`,
    ),
    stats: p(
      "SELECT sink, state, count(*) AS n, min(id) AS first FROM outbox WHERE state IN ('pending', 'dead') GROUP BY sink, state",
    ),
    createdAt: p('SELECT created_at FROM outbox WHERE id = ?'),
    prune: p("DELETE FROM outbox WHERE state = 'delivered' AND settled_at < ?"),
    ofRequest: p(
      `SELECT o.sink, e.event_name, e.event_id, o.state, o.attempts, o.last_error, o.next_at, o.settled_at, o.result
       FROM outbox o JOIN events e ON e.seq = o.event_seq WHERE o.request_id = ? ORDER BY o.id`,
    ),
  };
}
