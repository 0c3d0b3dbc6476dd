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
import { type OutboxStatusRow, statsOf, toEntryStatus } from '../../outbox-rows.js';
import {
  CLAIM_ACCOUNTS,
  CLAIM_BATCH,
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
export class PgOutbox implements Outbox {
  readonly #pool: pg.Pool;
  #routes: readonly OutboxRoute[] = [];

  constructor(pool: pg.Pool) {
    this.#pool = pool;
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
    const client = await this.#pool.connect();
    try {
      await client.query('BEGIN');
      const accounts = (await client.query(CLAIM_ACCOUNTS, [c.sink, c.now, c.maxBatches])).rows as {
        ad_account_id: string;
      }[];
      const batches: OutboxBatch[] = [];
      for (const { ad_account_id: account } of accounts) {
        const rows = (
          await client.query(CLAIM_BATCH, [c.sink, account, c.now, c.batchSize, c.owner, c.leaseMs])
        ).rows as { id: string; attempts: number; event_name: string; event_id: string; event: string }[];
        if (!rows.length) continue;
        // RETURNING gives no order: the batch goes out oldest first.
        rows.sort((a, b) => Number(a.id) - Number(b.id));
        batches.push({
          sink: c.sink,
          adAccountId: account,
          entries: rows.map((r) => ({
            id: Number(r.id),
            attempts: r.attempts,
            eventName: r.event_name,
            eventId: r.event_id,
            event: r.event,
          })),
        });
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

  async settleOutbox(owner: string, o: OutboxOutcome): Promise<void> {
    if (o.kind === 'released') await this.#pool.query(RELEASE, [o.ids, owner]);
    else if (o.kind === 'failed')
      await this.#pool.query(SETTLE_FAILED, [o.maxAttempts, o.now, o.error, o.retryAt, o.ids, owner]);
    else
      await this.#pool.query(SETTLE_DELIVERED, [
        o.now,
        o.ids,
        o.ids.map((_, i) => (o.results?.[i] ? JSON.stringify(o.results[i]) : null)),
        owner,
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
