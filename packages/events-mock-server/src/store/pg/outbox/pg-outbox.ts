import type pg from 'pg';
import {
  type OutboxStatusRow,
  type ClaimedRow as Row,
  statsOf,
  toBatches,
  toEntryStatus,
} from '../../common/outbox-rows.js';
import type {
  Outbox,
  OutboxBatch,
  OutboxClaim,
  OutboxEntryStatus,
  OutboxExtension,
  OutboxOutcome,
  OutboxRoute,
  OutboxState,
  OutboxStats,
  UpstreamResult,
} from '../../interface/outbox.js';
import {
  ADVANCE,
  CLAIM_ACCOUNTS,
  CLAIM_ROWS,
  CLAIMED_UPTO,
  DELETION_ANSWERED,
  DELETION_STATUS,
  DELETIONS_REQUEUED,
  FORGET_EVENTS,
  FORGET_IDS,
  LEASE_ACCOUNT,
  OF_REQUEST,
  OWNED_CURSOR,
  PRUNE,
  RENEW_LEASE,
  REQUEUE_DEAD,
  RUN_LENGTH,
  RUN_RESULTS,
  SETTLE_DELIVERED,
  SETTLE_FAILED,
  SINK_OF,
  STATS,
  UNLEASE,
} from './outbox-sql.js';

/**
 * The Outbox of C100 on PostgreSQL (migration 5, outbox-sql.ts); PgStore hands its Outbox methods here and
 * writes entries in the batch call for the accounts `sinksFor` names. Several
 * instances share it: a claim locks each account it takes (advisory lock) and its rows (FOR UPDATE SKIP
 * LOCKED) for the claim's transaction, then the lease keeps them.
 */
type ClaimedRow = Row<string>;
type OrphanRow = { id: string; event: null; deletion_request_id: null };
/** An entry whose event is gone (C112); an entry of a deletion request names none and is no orphan (C127). */
const isOrphan = (r: ClaimedRow | OrphanRow): r is OrphanRow =>
  r.event === null && r.deletion_request_id === null;

/** What the cursor stands for when the receiver answered per event: processed, nothing more said. */
const plainProcessed = (r: UpstreamResult) =>
  r.status === 'processed' && r.message === null && r.warning === null;

/** The outbox's statements; the deletions it must know of are counted by the store that commits them (C132). */
export class PgOutbox implements Omit<Outbox, 'deletionsCommitted'> {
  readonly #pool: pg.Pool;
  /**
   * Claims and settlements go through connections of their own, opened at the first claim (a server without
   * a deliverer opens none), whose commits do not wait for the WAL flush (C114): a crash of PostgreSQL may
   * undo the last moments of them, and their entries are then delivered again (at least once, C100).
   */
  readonly #lightPool: () => pg.Pool;
  #light: pg.Pool | undefined;
  #routes: readonly OutboxRoute[] = [];

  constructor(pool: pg.Pool, openLightPool: (options: string) => pg.Pool) {
    this.#pool = pool;
    this.#lightPool = () => {
      this.#light ??= openLightPool('-c synchronous_commit=off');
      return this.#light;
    };
  }

  /** Closes the connections of claims and settlements (the store closes its own pool). */
  async close(): Promise<void> {
    await this.#light?.end();
  }

  /** The sinks whose entries the batch transaction writes for an account (none: call nothing). */
  sinksFor(adAccountId: string): string[] {
    return this.#routes
      .filter((r) => r.adAccounts === null || r.adAccounts.includes(adAccountId))
      .map((r) => r.sink);
  }

  /** The sinks a conversion deletion request of the account is passed on to (C127). */
  deletionSinksFor(adAccountId: string): string[] {
    return this.#routes
      .filter((r) => r.deletions && (r.adAccounts === null || r.adAccounts.includes(adAccountId)))
      .map((r) => r.sink);
  }

  async routeOutbox(routes: readonly OutboxRoute[]): Promise<void> {
    this.#routes = routes;
  }

  async claimOutbox(c: OutboxClaim): Promise<OutboxBatch[]> {
    const client = await this.#lightPool().connect();
    try {
      await client.query('BEGIN');
      const now = Math.floor(c.now);
      const accounts = (await client.query(CLAIM_ACCOUNTS, [c.sink, now, c.maxAccounts])).rows as {
        ad_account_id: string;
      }[];
      const batches: OutboxBatch[] = [];
      for (const { ad_account_id: account } of accounts) {
        const rows = await this.#claimAccount(client, c, account, now, c.batchSize * c.batchesPerAccount);
        batches.push(...toBatches(c.sink, account, rows ?? [], c.batchSize));
      }
      await client.query('COMMIT');
      return batches;
    } catch (e) {
      await client.query('ROLLBACK').catch(() => {});
      throw e;
    } finally {
      client.release();
    }
  }

  /**
   * C128: the owner's claim of an account goes on after `afterId`, its lease renewed (one row); once its
   * lease ended (its last settlement reached the end of what it was given), a claim of the account alone.
   */
  async extendClaim(c: OutboxExtension): Promise<OutboxBatch[] | null> {
    const client = await this.#lightPool().connect();
    try {
      await client.query('BEGIN');
      const now = Math.floor(c.now);
      const account = c.adAccountId;
      const held = (await client.query(RENEW_LEASE, [account, c.sink, c.owner, now + Math.ceil(c.leaseMs)]))
        .rows[0] as { delivered_upto: string } | undefined;
      let rows: ClaimedRow[] | null;
      if (held) {
        const after = Math.max(c.afterId, Number(held.delivered_upto));
        rows = await this.#rows(client, c.sink, account, String(after), c.limit);
        // Never past an entry waiting for its retry (a failure ends an owner's run, so none is expected).
        const due = rows.findIndex((r) => Number((r as ClaimedRow & { next_at: string }).next_at) > now);
        if (due >= 0) rows = rows.slice(0, due);
        if (rows.length) await client.query(CLAIMED_UPTO, [account, c.sink, (rows.at(-1) as ClaimedRow).id]);
      } else rows = await this.#claimAccount(client, c, account, now, c.limit);
      await client.query('COMMIT');
      return rows === null ? null : toBatches(c.sink, account, rows, c.batchSize);
    } catch (e) {
      await client.query('ROLLBACK').catch(() => {});
      throw e;
    } finally {
      client.release();
    }
  }

  /**
   * The account's oldest entries after `after`, by the pending index with their events; entries whose event
   * is gone (left by a deletion of an earlier version, C112) are removed on the way, so they never hold it.
   */
  async #rows(
    client: pg.PoolClient,
    sink: string,
    account: string,
    after: string,
    limit: number,
  ): Promise<(ClaimedRow & { next_at: string })[]> {
    for (;;) {
      const rows = (await client.query(CLAIM_ROWS, [sink, account, after, limit])).rows as ((
        | ClaimedRow
        | OrphanRow
      ) & { next_at: string })[];
      const orphans = rows.filter(isOrphan).map((r) => r.id);
      if (orphans.length) await client.query(FORGET_IDS, [account, orphans]);
      const kept = rows.filter((r): r is ClaimedRow & { next_at: string } => !isOrphan(r));
      if (kept.length || !orphans.length) return kept;
    }
  }

  /**
   * Leases one account and reads its next entries; null when another claim leased it, none when it is not
   * due.
   */
  async #claimAccount(
    client: pg.PoolClient,
    c: { sink: string; owner: string; leaseMs: number },
    account: string,
    now: number,
    limit: number,
  ): Promise<ClaimedRow[] | null> {
    const leased = await client.query(LEASE_ACCOUNT, [
      account,
      c.sink,
      c.owner,
      now + Math.ceil(c.leaseMs),
      now,
    ]);
    const upto = (leased.rows[0] as { delivered_upto: string } | undefined)?.delivered_upto;
    if (upto === undefined) return null;
    const kept = await this.#rows(client, c.sink, account, upto, limit);
    // The head is checked again in this statement's snapshot: a failure settled since step 1 may have
    // pushed it into the future.
    if (!kept.length || Number((kept[0] as { next_at: string }).next_at) > now) {
      await client.query(UNLEASE, [account, c.sink, c.owner]);
      return [];
    }
    await client.query(CLAIMED_UPTO, [account, c.sink, (kept.at(-1) as ClaimedRow).id]);
    return kept;
  }

  /** Deletes the entries of an account's deleted events, in the deletion's transaction (C112). */
  static async forgetEvents(
    client: pg.PoolClient,
    adAccountId: string,
    seqs: readonly string[],
  ): Promise<number> {
    return (await client.query(FORGET_EVENTS, [adAccountId, seqs])).rowCount ?? 0;
  }

  /**
   * Each outcome in a transaction of its own, in order. Only an owner that still holds the account's lease
   * settles; the lease ends with the outcome that reaches the claim's last entry.
   */
  async settleOutbox(owner: string, outcomes: OutboxOutcome | readonly OutboxOutcome[]): Promise<void> {
    for (const o of Array.isArray(outcomes) ? outcomes : [outcomes as OutboxOutcome]) {
      if (!o.ids.length) continue;
      const client = await this.#lightPool().connect();
      try {
        await client.query('BEGIN');
        await this.#settle(client, owner, o);
        await client.query('COMMIT');
      } catch (e) {
        await client.query('ROLLBACK').catch(() => {});
        throw e;
      } finally {
        client.release();
      }
    }
  }

  async #settle(client: pg.PoolClient, owner: string, o: OutboxOutcome): Promise<void> {
    const account = o.adAccountId;
    const sink = (await client.query(SINK_OF, [account, o.ids])).rows[0]?.sink as string | undefined;
    if (sink === undefined) return;
    const cursor = (await client.query(OWNED_CURSOR, [account, sink, owner])).rows[0] as
      | { delivered_upto: string; claimed_upto: string | null }
      | undefined;
    // The lease passed to another owner: its entries are left alone.
    if (!cursor) return;
    const last = Math.max(...o.ids);
    if (o.kind === 'failed') {
      // bigint columns: a fractional time (a jittered retry) is refused by PostgreSQL, so times are whole ms.
      await client.query(SETTLE_FAILED, [
        o.maxAttempts,
        Math.ceil(o.now),
        o.error,
        Math.ceil(o.retryAt),
        o.ids,
        account,
      ]);
      // A deletion request whose entry went dead says so (C127).
      await client.query(DELETION_STATUS, [account, o.ids]);
    } else if (o.kind === 'delivered') {
      const results = o.ids.map((_, i) => o.results?.[i] ?? null);
      const run = (await client.query(RUN_LENGTH, [account, sink, cursor.delivered_upto, last, o.ids]))
        .rows[0] as { n: number; ours: number };
      if (run.n === run.ours) {
        // The account's next run: the cursor passes it (C114), and only results saying more are written.
        await client.query(ADVANCE, [account, sink, last, Math.ceil(o.now), o.results !== undefined]);
        // Where the receiver answered per event, an event it said nothing of keeps a JSON null.
        const telling = o.results
          ? results.flatMap((r, i) => (r === null || !plainProcessed(r) ? [i] : []))
          : [];
        if (telling.length)
          await client.query(RUN_RESULTS, [
            account,
            telling.map((i) => o.ids[i]),
            telling.map((i) => JSON.stringify(results[i])),
          ]);
      } else
        await client.query(SETTLE_DELIVERED, [
          Math.ceil(o.now),
          o.ids,
          results.map((r) => (r ? JSON.stringify(r) : null)),
          account,
        ]);
      if (o.deletions?.length) {
        // C127: the entries of deletion requests are marked one by one (their request's status reads them),
        // the upstream's answer kept on the request, the body dropped.
        for (const d of o.deletions)
          await client.query(DELETION_ANSWERED, [
            account,
            d.entryId,
            Math.ceil(o.now),
            d.status,
            d.processedAt === null ? null : Math.ceil(d.processedAt),
            d.upstreamRequestId,
          ]);
        await client.query(DELETION_STATUS, [account, o.deletions.map((d) => d.entryId)]);
      }
    }
    if (cursor.claimed_upto === null || last >= Number(cursor.claimed_upto))
      await client.query(UNLEASE, [account, sink, owner]);
  }

  async requeueDeadOutbox(now: number, sink?: string): Promise<number> {
    const client = await this.#pool.connect();
    try {
      await client.query('BEGIN');
      const n = (await client.query(REQUEUE_DEAD, [now, sink ?? null])).rowCount ?? 0;
      // Requeued entries of deletion requests: PENDING again (C127).
      if (n) await client.query(DELETIONS_REQUEUED);
      await client.query('COMMIT');
      return n;
    } catch (e) {
      await client.query('ROLLBACK').catch(() => {});
      throw e;
    } finally {
      client.release();
    }
  }

  async outboxStats(): Promise<OutboxStats[]> {
    const rows = (await this.#pool.query(STATS)).rows as {
      sink: string;
      state: OutboxState;
      n: number;
      oldest: string | null;
    }[];
    return statsOf(rows, (r) => (r.oldest === null ? null : Number(r.oldest)));
  }

  async pruneOutbox(deliveredBefore: number): Promise<number> {
    return ((await this.#pool.query(PRUNE, [deliveredBefore])).rows[0] as { n: number }).n;
  }

  async outboxOfRequest(requestId: string): Promise<OutboxEntryStatus[]> {
    return ((await this.#pool.query(OF_REQUEST, [requestId])).rows as OutboxStatusRow[]).map(toEntryStatus);
  }
}
