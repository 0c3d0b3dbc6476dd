import type pg from 'pg';
import type {
  Outbox,
  OutboxBatch,
  OutboxClaim,
  OutboxEntryStatus,
  OutboxOutcome,
  OutboxRoute,
  OutboxState,
  OutboxStats,
} from '../../outbox.js';
import {
  type OutboxStatusRow,
  type ClaimedRow as Row,
  statsOf,
  toBatches,
  toEntryStatus,
} from '../../outbox-rows.js';
import {
  CLAIM_ACCOUNTS,
  CLAIM_BATCH,
  FORGET_EVENTS,
  FORGET_IDS,
  OF_REQUEST,
  PRUNE,
  RELEASE,
  REQUEUE_DEAD,
  SETTLE_DELIVERED,
  SETTLE_FAILED,
  STATS,
} from './outbox-sql.js';

/**
 * The Outbox of C100 on PostgreSQL (migration 5, outbox-sql.ts); PgStore hands its Outbox methods here and
 * writes entries in the batch call for the accounts `sinksFor` names. Several
 * instances share it: a claim locks each account it takes (advisory lock) and its rows (FOR UPDATE SKIP
 * LOCKED) for the claim's transaction, then the lease keeps them.
 */
type ClaimedRow = Row<string>;
type OrphanRow = { id: string; event: null };

export class PgOutbox implements Outbox {
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
        const args = [c.sink, account, now, c.batchSize * c.batchesPerAccount, c.owner, Math.ceil(c.leaseMs)];
        for (;;) {
          const rows = (await client.query(CLAIM_BATCH, args)).rows as (ClaimedRow | OrphanRow)[];
          // Entries whose event is gone (left by a deletion of an earlier version, C112): removed, and the
          // account claimed on from the next entry, so they never hold its head.
          const orphans = rows.filter((r) => r.event === null).map((r) => r.id);
          if (orphans.length) await client.query(FORGET_IDS, [account, orphans]);
          const kept = rows.filter((r): r is ClaimedRow => r.event !== null);
          if (kept.length || !orphans.length) {
            batches.push(...toBatches(c.sink, account, kept, c.batchSize));
            break;
          }
        }
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

  /** Deletes the entries of an account's deleted events, in the deletion's transaction (C112). */
  static async forgetEvents(
    client: pg.PoolClient,
    adAccountId: string,
    seqs: readonly string[],
  ): Promise<number> {
    return (await client.query(FORGET_EVENTS, [adAccountId, seqs])).rowCount ?? 0;
  }

  /** Each outcome in its own statement, in order (each one is whole by itself). */
  async settleOutbox(owner: string, outcomes: OutboxOutcome | readonly OutboxOutcome[]): Promise<void> {
    for (const o of Array.isArray(outcomes) ? outcomes : [outcomes as OutboxOutcome])
      await this.#settle(owner, o);
  }

  async #settle(owner: string, o: OutboxOutcome): Promise<void> {
    const pool = this.#lightPool();
    if (o.kind === 'released') await pool.query(RELEASE, [o.ids, owner, o.adAccountId]);
    else if (o.kind === 'failed')
      // bigint columns: a fractional time (a jittered retry) is refused by PostgreSQL, so times are whole ms.
      await pool.query(SETTLE_FAILED, [
        o.maxAttempts,
        Math.ceil(o.now),
        o.error,
        Math.ceil(o.retryAt),
        o.ids,
        owner,
        o.adAccountId,
      ]);
    else
      await pool.query(SETTLE_DELIVERED, [
        Math.ceil(o.now),
        o.ids,
        o.ids.map((_, i) => (o.results?.[i] ? JSON.stringify(o.results[i]) : null)),
        owner,
        o.adAccountId,
      ]);
  }

  async requeueDeadOutbox(now: number, sink?: string): Promise<number> {
    return (await this.#pool.query(REQUEUE_DEAD, [now, sink ?? null])).rowCount ?? 0;
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
    return (await this.#pool.query(PRUNE, [deliveredBefore])).rowCount ?? 0;
  }

  async outboxOfRequest(requestId: string): Promise<OutboxEntryStatus[]> {
    return ((await this.#pool.query(OF_REQUEST, [requestId])).rows as OutboxStatusRow[]).map(toEntryStatus);
  }
}
