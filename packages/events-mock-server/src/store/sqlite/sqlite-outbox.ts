import type { Database as Db, Statement } from 'better-sqlite3';
import { deletionEntryRequestId } from '../common/conversion-deletion.js';
import {
  type ClaimedRow,
  type OutboxStatusRow,
  statsOf,
  toBatches,
  toEntryStatus,
} from '../common/outbox-rows.js';
import type {
  OutboxBatch,
  OutboxClaim,
  OutboxEntryStatus,
  OutboxExtension,
  OutboxOutcome,
  OutboxRoute,
  OutboxState,
  OutboxStats,
} from '../interface/outbox.js';

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
  /** The sinks that take conversion deletion requests (C127), of every account and of named accounts. */
  #deletionsAll: string[] = [];
  #deletionsByAccount = new Map<string, string[]>();

  /** The file's PRAGMA synchronous, restored after each claim and settlement. */
  readonly #synchronous: string;

  constructor(db: Db, synchronous: string) {
    this.#db = db;
    this.#s = prepare(db);
    this.#synchronous = synchronous;
  }

  /**
   * A claim or settlement commits without waiting for the disk (C114): after a power loss it may be
   * undone, and the entries it settled are delivered again (at least once, C100); a crash of the process
   * loses nothing (WAL). Events and their entries are still written with the file's own level.
   */
  #light<T>(work: () => T): T {
    if (this.#synchronous === 'NORMAL' || this.#synchronous === 'OFF') return work();
    this.#db.pragma('synchronous = NORMAL');
    try {
      return work();
    } finally {
      this.#db.pragma(`synchronous = ${this.#synchronous}`);
    }
  }

  route(routes: readonly OutboxRoute[]): void {
    this.#all = routes.filter((r) => r.adAccounts === null).map((r) => r.sink);
    this.#byAccount = new Map();
    for (const r of routes)
      for (const a of r.adAccounts ?? []) this.#byAccount.set(a, [...(this.#byAccount.get(a) ?? []), r.sink]);
    this.#any = routes.length > 0;
    this.#deletionsAll = routes.filter((r) => r.deletions && r.adAccounts === null).map((r) => r.sink);
    this.#deletionsByAccount = new Map();
    for (const r of routes)
      if (r.deletions)
        for (const a of r.adAccounts ?? [])
          this.#deletionsByAccount.set(a, [...(this.#deletionsByAccount.get(a) ?? []), r.sink]);
  }

  /** The sinks a conversion deletion request of the account is passed on to (C127). */
  deletionSinks(adAccountId: string): string[] {
    return [...this.#deletionsAll, ...(this.#deletionsByAccount.get(adAccountId) ?? [])];
  }

  /**
   * Inside a deletion's transaction (C127): an entry of the request per sink, after every entry of the
   * account written before it (ids never go back), holding the body to send.
   */
  writeDeletion(
    sinks: readonly string[],
    adAccountId: string,
    requestId: number,
    createdAt: number,
    body: string,
  ): void {
    for (const sink of sinks)
      this.#s.writeDeletion.run(
        sink,
        adAccountId,
        deletionEntryRequestId(requestId),
        createdAt,
        createdAt,
        requestId,
        body,
      );
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
    return this.#light(() =>
      this.#db
        .transaction(() => {
          // C100 ordering: an account waits while its oldest entry is leased or waits for its retry. Of the
          // accounts that do not, the one whose head is oldest goes first, so no account starves another.
          const heads = (s.accounts.pluck().all({ sink: c.sink }) as (string | null)[])
            .filter((a): a is string => a !== null)
            .map((account) => ({ account, ...(s.head.get(c.sink, account) as Head) }))
            .filter((h) => h.next_at <= c.now && (h.lease_until === null || h.lease_until <= c.now))
            .sort((a, b) => a.id - b.id)
            .slice(0, c.maxAccounts);
          const batches: OutboxBatch[] = [];
          for (const { account } of heads) {
            const rows = this.#take(c.sink, account, c.batchSize * c.batchesPerAccount);
            if (!rows.length) continue;
            s.lease.run(c.owner, c.now + c.leaseMs, JSON.stringify(rows.map((r) => r.id)), account);
            batches.push(...toBatches(c.sink, account, rows, c.batchSize));
          }
          return batches;
        })
        .immediate(),
    );
  }

  /**
   * C128: the next entries of an account the owner holds, after `afterId`, and its lease renewed; a claim
   * of the account from its head when the owner holds none of it any more. The head decides: held by the
   * owner (even past its lease: nobody else took it), or free and due; else null.
   */
  extend(c: OutboxExtension): OutboxBatch[] | null {
    const s = this.#s;
    return this.#light(() =>
      this.#db
        .transaction(() => {
          const head = s.head.get(c.sink, c.adAccountId) as Head | undefined;
          if (!head) return [];
          let after: number;
          if (head.lease_owner === c.owner) after = c.afterId;
          else if (head.next_at <= c.now && (head.lease_until === null || head.lease_until <= c.now))
            after = head.id - 1;
          else return null;
          const until = c.now + c.leaseMs;
          // What the owner still holds of the account: its entries up to the last it was given.
          s.renew.run(until, c.sink, c.adAccountId, c.owner, c.afterId);
          const rows = this.#take(c.sink, c.adAccountId, c.limit, after);
          if (rows.length) s.lease.run(c.owner, until, JSON.stringify(rows.map((r) => r.id)), c.adAccountId);
          return toBatches(c.sink, c.adAccountId, rows, c.batchSize);
        })
        .immediate(),
    );
  }

  /**
   * The oldest pending entries of an account with their events. An entry whose event is gone is removed as
   * it is met (files of version 4 may hold some: C112), so it never holds the account's head.
   */
  #take(sink: string, account: string, limit: number, after = 0): TakenRow[] {
    for (;;) {
      const rows = this.#s.take.all(sink, account, after, limit) as (TakenRow | OrphanRow)[];
      const orphans = rows.filter(isOrphan).map((r) => r.id);
      if (!orphans.length) return rows as TakenRow[];
      this.#s.forgetIds.run(JSON.stringify(orphans), account);
      const kept = rows.filter((r): r is TakenRow => !isOrphan(r));
      if (kept.length) return kept;
    }
  }

  /** Inside a deletion's transaction (C91, C112): every entry of the account's deleted events; how many. */
  forget(adAccountId: string, eventSeqs: string): number {
    return this.#s.forgetEvents.run(adAccountId, eventSeqs).changes;
  }

  settle(owner: string, outcomes: OutboxOutcome | readonly OutboxOutcome[]): void {
    const list: readonly OutboxOutcome[] = Array.isArray(outcomes) ? outcomes : [outcomes as OutboxOutcome];
    this.#light(() =>
      this.#db
        .transaction(() => {
          for (const o of list) this.#settleOne(owner, o);
        })
        .immediate(),
    );
  }

  #settleOne(owner: string, o: OutboxOutcome): void {
    const s = this.#s;
    const ids = JSON.stringify(o.ids);
    if (o.kind === 'released') {
      s.release.run(ids, o.adAccountId, owner);
      return;
    }
    if (o.kind === 'failed') {
      s.failed.run({
        max: o.maxAttempts,
        now: Math.ceil(o.now),
        error: o.error,
        retryAt: Math.ceil(o.retryAt),
        ids,
        account: o.adAccountId,
        owner,
      });
      this.#deletionStatusAfterFailure(o.adAccountId, ids);
      return;
    }
    // One statement per distinct upstream result: most batches are answered `processed` throughout.
    const byResult = new Map<string | null, number[]>();
    o.ids.forEach((id, i) => {
      const r = o.results?.[i];
      const key = r ? JSON.stringify(r) : null;
      const group = byResult.get(key);
      if (group) group.push(id);
      else byResult.set(key, [id]);
    });
    const now = Math.ceil(o.now);
    for (const [result, group] of byResult)
      s.delivered.run(now, result, JSON.stringify(group), o.adAccountId, owner);
    if (!o.deletions?.length) return;
    // C127: the upstream's answer kept on the request (only by the settlement that delivered its entry,
    // which still holds the body), the body dropped, the request's status said again.
    for (const d of o.deletions) {
      const at = { account: o.adAccountId, entry: d.entryId };
      s.deletionAnswered.run({
        ...at,
        status: d.status,
        processedAt: d.processedAt === null ? null : Math.ceil(d.processedAt),
        upstreamId: d.upstreamRequestId,
      });
      s.dropPayload.run(at);
    }
    s.deletionStatus.run({ 1: o.adAccountId, 2: JSON.stringify(o.deletions.map((d) => d.entryId)) });
  }

  /** After a failure (C127): a deletion request whose entry went dead says so (CANCELLED). */
  #deletionStatusAfterFailure(adAccountId: string, ids: string): void {
    this.#s.deletionStatus.run({ 1: adAccountId, 2: ids });
  }

  requeueDead(now: number, sink: string | undefined): number {
    return this.#db
      .transaction(() => {
        const n = this.#s.requeue.run({ 1: now, 2: sink ?? null }).changes;
        // Requeued entries of deletion requests: PENDING again (C127).
        if (n) this.#s.deletionsRequeued.run();
        return n;
      })
      .immediate();
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

interface Head {
  id: number;
  next_at: number;
  lease_owner: string | null;
  lease_until: number | null;
}

type TakenRow = ClaimedRow<number>;
type OrphanRow = { id: number; event: null; deletion_request_id: null };
/** An entry whose event is gone (C112); an entry of a deletion request names none and is no orphan (C127). */
const isOrphan = (r: TakenRow | OrphanRow): r is OrphanRow =>
  r.event === null && r.deletion_request_id === null;

function prepare(db: Db) {
  const p = (sql: string): Statement => db.prepare(sql);
  return {
    write: p(
      `INSERT INTO outbox (sink, ad_account_id, event_seq, request_id, created_at, state, attempts, next_at)
       SELECT ?, ?, value, ?, ?, 'pending', 0, ? FROM json_each(?)`,
    ),
    // The accounts with pending entries, one index probe each (a skip scan), however many entries they have.
    accounts: p(
      `WITH RECURSIVE a(acct) AS (
         SELECT (SELECT ad_account_id FROM outbox WHERE sink = @sink AND state = 'pending' ORDER BY ad_account_id LIMIT 1)
         UNION ALL
         SELECT (SELECT ad_account_id FROM outbox WHERE sink = @sink AND state = 'pending' AND ad_account_id > a.acct
                 ORDER BY ad_account_id LIMIT 1)
         FROM a WHERE a.acct IS NOT NULL
       ) SELECT acct FROM a`,
    ),
    head: p(
      "SELECT id, next_at, lease_owner, lease_until FROM outbox WHERE sink = ? AND state = 'pending' AND ad_account_id = ? ORDER BY id LIMIT 1",
    ),
    // Every join names the account as well as the seq (C112).
    writeDeletion: p(
      `INSERT INTO outbox (sink, ad_account_id, event_seq, request_id, created_at, state, attempts, next_at,
         deletion_request_id, payload)
       VALUES (?, ?, 0, ?, ?, 'pending', 0, ?, ?, ?)`,
    ),
    take: p(
      `SELECT o.id, o.attempts, e.event_name, e.event_id, e.event, o.deletion_request_id, o.payload FROM outbox o
       LEFT JOIN events e ON e.ad_account_id = o.ad_account_id AND e.seq = o.event_seq
       WHERE o.sink = ? AND o.state = 'pending' AND o.ad_account_id = ? AND o.id > ? ORDER BY o.id LIMIT ?`,
    ),
    renew: p(
      `UPDATE outbox SET lease_until = ?
       WHERE sink = ? AND state = 'pending' AND ad_account_id = ? AND lease_owner = ? AND id <= ?`,
    ),
    lease: p(
      `UPDATE outbox SET lease_owner = ?, lease_until = ?
       WHERE id IN (SELECT value FROM json_each(?)) AND ad_account_id = ?`,
    ),
    forgetIds: p('DELETE FROM outbox WHERE id IN (SELECT value FROM json_each(?)) AND ad_account_id = ?'),
    forgetEvents: p(
      'DELETE FROM outbox WHERE ad_account_id = ? AND event_seq IN (SELECT value FROM json_each(?))',
    ),
    delivered: p(
      `UPDATE outbox SET state = 'delivered', attempts = attempts + 1, settled_at = ?, result = ?,
         last_error = NULL, lease_owner = NULL, lease_until = NULL
       WHERE id IN (SELECT value FROM json_each(?)) AND ad_account_id = ? AND lease_owner = ? AND state = 'pending'`,
    ),
    failed: p(
      `UPDATE outbox SET attempts = attempts + 1,
         state = CASE WHEN attempts + 1 >= @max THEN 'dead' ELSE 'pending' END,
         settled_at = @now, last_error = @error, next_at = @retryAt, lease_owner = NULL, lease_until = NULL
       WHERE id IN (SELECT value FROM json_each(@ids)) AND ad_account_id = @account AND lease_owner = @owner
         AND state = 'pending'`,
    ),
    release: p(
      `UPDATE outbox SET lease_owner = NULL, lease_until = NULL
       WHERE id IN (SELECT value FROM json_each(?)) AND ad_account_id = ? AND lease_owner = ? AND state = 'pending'`,
    ),
    // A dead entry goes back in front of its account's later entries, some of which may be out with a
    // deliverer: it carries the latest of their leases (with no owner), so its account is not claimed
    // again, out of order and beside them, before that lease has run out.
    requeue: p(
      `UPDATE outbox SET state = 'pending', attempts = 0, next_at = ?1, settled_at = NULL, lease_owner = NULL,
         lease_until = (SELECT max(o.lease_until) FROM outbox o
                        WHERE o.sink = outbox.sink AND o.ad_account_id = outbox.ad_account_id
                          AND o.state = 'pending' AND o.lease_owner IS NOT NULL AND o.lease_until > ?1)
       WHERE state = 'dead' AND (?2 IS NULL OR sink = ?2)`,
    ),
    // C127: what the upstream answered, kept on the request, by the settlement that delivered its entry.
    deletionAnswered: p(
      `UPDATE deletion_requests SET upstream_status = @status, upstream_processed_at = @processedAt,
         upstream_request_id = @upstreamId
       WHERE ad_account_id = @account AND id = (
         SELECT deletion_request_id FROM outbox
         WHERE id = @entry AND ad_account_id = @account AND state = 'delivered' AND payload IS NOT NULL)`,
    ),
    dropPayload: p(
      "UPDATE outbox SET payload = NULL WHERE id = @entry AND ad_account_id = @account AND state = 'delivered'",
    ),
    // The status of the deletion requests of some entries, from all their entries (one per sink): PENDING
    // while one is still to deliver, CANCELLED while one is dead, else what the upstream answered.
    deletionStatus: p(
      `UPDATE deletion_requests SET
         status = CASE
           WHEN EXISTS (SELECT 1 FROM outbox o WHERE o.ad_account_id = deletion_requests.ad_account_id
                        AND o.deletion_request_id = deletion_requests.id AND o.state = 'pending') THEN 'PENDING'
           WHEN EXISTS (SELECT 1 FROM outbox o WHERE o.ad_account_id = deletion_requests.ad_account_id
                        AND o.deletion_request_id = deletion_requests.id AND o.state = 'dead') THEN 'CANCELLED'
           ELSE coalesce(upstream_status, 'SUBMITTED') END,
         processed_at = CASE
           WHEN EXISTS (SELECT 1 FROM outbox o WHERE o.ad_account_id = deletion_requests.ad_account_id
                        AND o.deletion_request_id = deletion_requests.id AND o.state IN ('pending', 'dead'))
           THEN NULL ELSE upstream_processed_at END
       WHERE ad_account_id = ?1 AND id IN (
         SELECT deletion_request_id FROM outbox
         WHERE ad_account_id = ?1 AND id IN (SELECT value FROM json_each(?2)) AND deletion_request_id IS NOT NULL)`,
    ),
    deletionsRequeued: p(
      `UPDATE deletion_requests SET status = 'PENDING', processed_at = NULL
       WHERE status <> 'PENDING' AND (ad_account_id, id) IN (
         SELECT ad_account_id, deletion_request_id FROM outbox
         WHERE deletion_request_id IS NOT NULL AND state = 'pending')`,
    ),
    stats: p(
      "SELECT sink, state, count(*) AS n, min(id) AS first FROM outbox WHERE state IN ('pending', 'dead') GROUP BY sink, state",
    ),
    createdAt: p('SELECT created_at FROM outbox WHERE id = ?'),
    prune: p("DELETE FROM outbox WHERE state = 'delivered' AND settled_at < ?"),
    ofRequest: p(
      `SELECT o.sink, e.event_name, e.event_id, o.state, o.attempts, o.last_error, o.next_at, o.settled_at, o.result
       FROM outbox o JOIN events e ON e.ad_account_id = o.ad_account_id AND e.seq = o.event_seq
       WHERE o.request_id = ? ORDER BY o.id`,
    ),
  };
}
