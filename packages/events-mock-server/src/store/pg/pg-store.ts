import { type AccessTier, LIMITS } from '@org/events-types';
import pg from 'pg';
import {
  DELETION_REQUEST_COLUMNS,
  type DeletionCounts,
  type DeletionRequestDbRow,
  type DeletionRequestRow,
  type DeletionTargets,
  deletionRequestOfRow,
} from '../common/conversion-deletion.js';
import { asSighting, foldBatch } from '../common/dedup-fold.js';
import { decodeCursor, type EventRow, eventPage, toReport } from '../common/event-rows.js';
import {
  BYTES_KEPT,
  entryValues,
  PRUNE_BY_BYTES,
  type RequestLogRow,
  requestLogWhere,
  requestPage,
  SUMMARY_COLUMNS,
  timelineRows,
  toEntry,
  WRITE_COLUMNS,
} from '../common/request-log-rows.js';
import type { CustomEventTypeRow } from '../interface/directory.js';
import type { DirectoryData, StoredTokenKind } from '../interface/directory-data.js';
import {
  type AccountReportData,
  type BatchResult,
  type BatchWrite,
  type DedupKey,
  type DryRunBatch,
  dedupKey,
  type Earlier,
  type EventFilter,
  type StoredEventRow,
  type TagEventWrite,
} from '../interface/events.js';
import type { Outbox } from '../interface/outbox.js';
import type {
  RequestLogEntry,
  RequestLogFilter,
  RequestLogRetention,
  RequestLogSummary,
  RequestLogWrite,
  TimelineCount,
} from '../interface/request-log.js';
import { CommitOutcomeUnknownError, type Store } from '../interface/store.js';
import {
  BatchGrouper,
  COMMIT_BATCHES,
  COMMIT_BATCHES_TO,
  type DupRow,
  groupParams,
  splitResults,
} from './batch-group.js';
import { DeletionListener, NOTIFY_DELETION } from './deletion-listener.js';
import { migrate } from './migrate.js';
import { STATEMENT_TIMEOUT_MS } from './migration-ingest.js';
import { PgOutbox } from './outbox/pg-outbox.js';
import { createDeletionRequestTx, deleteConversionsTx } from './pg-delete-conversions.js';

export interface PgStoreOptions {
  /** A libpq connection URL: postgres://user:password@host:port/database?... */
  url: string;
  /** Connections this process keeps at most (default 10); see README, Running more than one instance. */
  poolSize?: number;
  /**
   * Batch calls this process runs at once (default 2); batches arriving meanwhile are grouped into the
   * next call (C83).
   */
  commitCalls?: number;
  /** Called with errors of idle connections (the server was restarted, the network dropped). */
  onIdleError?: (e: Error) => void;
}

/** A database that does not answer a new connection within this is unreachable, for the pools and the listener. */
const CONNECT_TIMEOUT_MS = 5000;

/** int8 as a JavaScript number: ids, times in ms and counters all stay far below 2^53. */
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === pg.types.builtins.INT8
      ? (v: string) => Number(v)
      : pg.types.getTypeParser(oid, format ?? 'text')) as typeof pg.types.getTypeParser,
};

/** Deadlock and serialization failures roll the whole call back; it is safe to run again. */
const RETRYABLE = new Set(['40P01', '40001']);

/**
 * Whether a failed call proves that its transaction was rolled back (C74): the database answered it with an
 * error of the statement. Errors that end the session or the server (connection exceptions 08, operator
 * intervention 57P, system errors 58, internal errors XX) may come after the commit; a connection that
 * broke without an answer proves nothing.
 */
export function provesRollback(e: unknown): boolean {
  return e instanceof pg.DatabaseError && typeof e.code === 'string' && !/^(08|57P|58|XX)/.test(e.code);
}
const ATTEMPTS = 3;

/** How often partitions are created ahead and old sightings dropped (C81), besides at start. */
const MAINTENANCE_EVERY_MS = 3600 * 1000;
/** Batch calls at once per process, and events at most in a call of several batches (C83). */
const COMMIT_CALLS = 2;
const GROUP_EVENTS = 1000;
const WEEK_MS = 7 * 86400 * 1000;
/** A row meeting no partition of its table (the clock moved past the ones made ahead). */
const NO_PARTITION = '23514';

/** Months since the epoch (UTC) of a time in ms: the events partition it goes to. */
function monthOf(ms: number): number {
  const d = new Date(ms);
  return d.getUTCFullYear() * 12 + d.getUTCMonth();
}

/** `postgres://host:5432/db`, never the user or password (logs, /readyz). */
export function describePgUrl(url: string): string {
  try {
    const u = new URL(url);
    return `postgres://${u.host}${u.pathname}`;
  } catch {
    return 'postgres';
  }
}

/**
 * The PostgreSQL store of C11 (C45-C47): the same Store as SQLite, for several instances on one database.
 * Each batch is stored by one call of the `events_commit_batches` function (one round trip, one transaction,
 * durable when it returns), alone or with batches of its account that waited meanwhile (C83); dedup is
 * enforced by the primary key of `dedup_sightings` (C80, C81), so instances racing on an event_id store it
 * once. The pool reconnects by itself: a call that fails while the database is away
 * rejects (503 upstream) with nothing stored, and the next one opens a new connection.
 */
export class PgStore implements Store {
  readonly description: string;
  readonly #pool: pg.Pool;
  #closed = false;
  #maintenance: NodeJS.Timeout | undefined;
  /** Months (of received_at) whose events partition this process made sure of, or is making (C81). */
  readonly #months = new Map<number, Promise<void>>();
  readonly #grouper: BatchGrouper;
  /** The delivery outbox of C100 (migration 5): its methods are this store's Outbox. */
  readonly #outbox: PgOutbox;
  /** Conversion deletions committed (C132). */
  #deletions = 0;
  /** Those of every instance, heard once a sink is routed (C132). */
  #listener: DeletionListener | null = null;
  readonly #url: string;
  readonly #onIdleError: (e: Error) => void;

  private constructor(options: PgStoreOptions) {
    this.description = describePgUrl(options.url);
    this.#url = options.url;
    this.#onIdleError = (e) => options.onIdleError?.(e);
    const poolOf = (max: number, extra: { options?: string } = {}) => {
      const pool = new pg.Pool({
        connectionString: options.url,
        max,
        types,
        application_name: 'events-mock-server',
        connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
        // C81: a batch's claim lives far shorter than the margin that keeps midnight races on one key.
        statement_timeout: STATEMENT_TIMEOUT_MS,
        ...extra,
      });
      // An idle connection that dies must not crash the process; the pool drops it and opens another later.
      pool.on('error', (e) => options.onIdleError?.(e));
      return pool;
    };
    this.#pool = poolOf(options.poolSize ?? 10);
    this.#grouper = new BatchGrouper(
      (group) => this.#commitGroup(group),
      options.commitCalls ?? COMMIT_CALLS,
      GROUP_EVENTS,
    );
    // The deliverer's claims and settlements: per account delivered side by side (by default; more wait for a
    // connection) a settlement and the claim of its next batches at once (C128), and a claim.
    this.#outbox = new PgOutbox(this.#pool, (o) =>
      poolOf(2 * LIMITS.delivery_concurrency.value + 1, { options: o }),
    );
  }

  routeOutbox: Outbox['routeOutbox'] = async (r) => {
    await this.#outbox.routeOutbox(r);
    // C132: a deliverer reads deletions committed by other instances too.
    if (r.length > 0 && this.#listener === null && !this.#closed) {
      this.#listener = new DeletionListener(this.#url, CONNECT_TIMEOUT_MS, this.#onIdleError);
      await this.#listener.start();
    }
  };
  claimOutbox: Outbox['claimOutbox'] = (c) => this.#outbox.claimOutbox(c);
  extendClaim: Outbox['extendClaim'] = (c) => this.#outbox.extendClaim(c);
  settleOutbox: Outbox['settleOutbox'] = (owner, o) => this.#outbox.settleOutbox(owner, o);
  requeueDeadOutbox: Outbox['requeueDeadOutbox'] = (now, sink) => this.#outbox.requeueDeadOutbox(now, sink);
  outboxStats: Outbox['outboxStats'] = () => this.#outbox.outboxStats();
  pruneOutbox: Outbox['pruneOutbox'] = (before) => this.#outbox.pruneOutbox(before);
  outboxOfRequest: Outbox['outboxOfRequest'] = (id) => this.#outbox.outboxOfRequest(id);

  /** Connects, applies pending migrations (C45) and answers the store; rejects when the database is unusable. */
  static async open(options: PgStoreOptions): Promise<PgStore> {
    const s = new PgStore(options);
    try {
      await migrate(s.#pool);
      await s.#maintain();
    } catch (e) {
      await s.#pool.end().catch(() => {});
      throw e;
    }
    s.#maintenance = setInterval(() => s.#maintain().catch(() => {}), MAINTENANCE_EVERY_MS);
    s.#maintenance.unref();
    return s;
  }

  /**
   * Partitions for today and the next two days made ahead, sighting partitions older than the window
   * dropped (C81). A short lock timeout: the partitioned tables' brief exclusive lock must not queue
   * batches behind it; a failed run is repeated at the next interval (and a batch meeting a missing
   * partition makes it).
   */
  async #maintain(times: number[] = []): Promise<void> {
    await this.#tx(async (c) => {
      await c.query("SET LOCAL lock_timeout = '2s'");
      // This month's and, a week ahead, the next month's events partition: a month begins with one made.
      const now = Date.now();
      await c.query('SELECT events_ensure_partitions($1::bigint[])', [[now, now + WEEK_MS, ...times]]);
      if (times.length === 0) await c.query('SELECT events_drop_old_sightings()');
    });
  }

  async #q<R extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<R[]> {
    if (this.#closed) throw new Error('store closed');
    return (await this.#pool.query<R>(text, values)).rows;
  }

  async #tx<T>(work: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    if (this.#closed) throw new Error('store closed');
    for (let attempt = 1; ; attempt++) {
      const c = await this.#pool.connect();
      try {
        await c.query('BEGIN');
        const out = await work(c);
        await c.query('COMMIT');
        c.release();
        return out;
      } catch (e) {
        await c.query('ROLLBACK').catch(() => {});
        // A broken connection is destroyed, not returned to the pool.
        c.release(e instanceof Error && !('code' in e && typeof e.code === 'string') ? e : undefined);
        if (attempt >= ATTEMPTS || !RETRYABLE.has((e as { code?: string }).code ?? '')) throw e;
      }
    }
  }

  async ping(): Promise<void> {
    await this.#q('SELECT 1');
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#maintenance);
    await this.#listener?.close();
    await this.#outbox.close();
    await this.#pool.end();
  }

  async replaceDirectory(data: DirectoryData): Promise<void> {
    await this.#tx(async (c) => {
      // Every instance seeds the same config at start: one at a time.
      await c.query('LOCK TABLE ad_accounts, apps, users, user_roles, tokens IN EXCLUSIVE MODE');
      await c.query(
        'DELETE FROM user_roles; DELETE FROM tokens; DELETE FROM users; DELETE FROM apps; DELETE FROM ad_accounts',
      );
      for (const a of data.accounts)
        await c.query('INSERT INTO ad_accounts (id, name, currency, owner_user_id) VALUES ($1, $2, $3, $4)', [
          a.id,
          a.name,
          a.currency,
          a.ownerUserId,
        ]);
      for (const a of data.apps)
        await c.query('INSERT INTO apps (id, name, tier) VALUES ($1, $2, $3)', [a.id, a.name, a.tier]);
      for (const u of data.users) {
        await c.query('INSERT INTO users (id, name) VALUES ($1, $2)', [u.id, u.name]);
        for (const r of u.roles)
          await c.query('INSERT INTO user_roles (user_id, ad_account_id, role) VALUES ($1, $2, $3)', [
            u.id,
            r.adAccountId,
            r.role,
          ]);
      }
      for (const t of data.tokens)
        await c.query(
          'INSERT INTO tokens (id, kind, sha256, ad_account_id, user_id, app_id, scopes, revoked) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
          [t.id, t.kind, t.sha256, t.adAccountId, t.userId, t.appId, t.scopes, t.revoked],
        );
    });
  }

  async loadDirectory(): Promise<DirectoryData> {
    const [accounts, apps, users, roles, tokens] = await Promise.all([
      this.#q<{ id: string; name: string; currency: string; owner_user_id: string | null }>(
        'SELECT id, name, currency, owner_user_id FROM ad_accounts ORDER BY id',
      ),
      this.#q<{ id: string; name: string; tier: AccessTier }>('SELECT id, name, tier FROM apps ORDER BY id'),
      this.#q<{ id: string; name: string }>('SELECT id, name FROM users ORDER BY id'),
      this.#q<{ user_id: string; ad_account_id: string; role: string }>(
        'SELECT user_id, ad_account_id, role FROM user_roles ORDER BY user_id, ad_account_id',
      ),
      this.#q<{
        id: string;
        kind: StoredTokenKind;
        sha256: Buffer;
        ad_account_id: string | null;
        user_id: string | null;
        app_id: string | null;
        scopes: string[];
        revoked: boolean;
      }>('SELECT * FROM tokens ORDER BY id'),
    ]);
    return {
      accounts: accounts.map((a) => ({
        id: a.id,
        name: a.name,
        currency: a.currency,
        ownerUserId: a.owner_user_id,
      })),
      apps: apps.map((a) => ({ id: a.id, name: a.name, tier: a.tier })),
      users: users.map((u) => ({
        id: u.id,
        name: u.name,
        roles: roles
          .filter((r) => r.user_id === u.id)
          .map((r) => ({ adAccountId: r.ad_account_id, role: r.role })),
      })),
      tokens: tokens.map((t) => ({
        id: t.id,
        kind: t.kind,
        sha256: t.sha256,
        adAccountId: t.ad_account_id,
        userId: t.user_id,
        appId: t.app_id,
        scopes: t.scopes,
        revoked: t.revoked,
      })),
    };
  }

  async listCustomEventTypes(adAccountId: string): Promise<CustomEventTypeRow[]> {
    const rows = await this.#q<{ name: string; mapped_event_name: string; created_at: number }>(
      'SELECT name, mapped_event_name, created_at FROM custom_event_types WHERE ad_account_id = $1 ORDER BY created_at, name_key',
      [adAccountId],
    );
    return rows.map((r) => ({ name: r.name, mappedEventName: r.mapped_event_name, createdAt: r.created_at }));
  }

  async createCustomEventType(
    adAccountId: string,
    row: CustomEventTypeRow,
    maxPerAccount: number,
  ): Promise<
    { ok: true; row: CustomEventTypeRow } | { ok: false; reason: 'exists' | 'cap'; existing?: string }
  > {
    return this.#tx(async (c) => {
      // The cap is per account (C10): creations for one account take turns, across instances too.
      await c.query("SELECT pg_advisory_xact_lock(hashtext('custom_event_types:' || $1))", [adAccountId]);
      const existing = await c.query<{ name: string }>(
        'SELECT name FROM custom_event_types WHERE ad_account_id = $1 AND name_key = $2',
        [adAccountId, row.name.toLowerCase()],
      );
      if (existing.rows[0])
        return { ok: false as const, reason: 'exists' as const, existing: existing.rows[0].name };
      const n = await c.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM custom_event_types WHERE ad_account_id = $1',
        [adAccountId],
      );
      if ((n.rows[0]?.n ?? 0) >= maxPerAccount) return { ok: false as const, reason: 'cap' as const };
      await c.query(
        'INSERT INTO custom_event_types (ad_account_id, name_key, name, mapped_event_name, created_at) VALUES ($1, $2, $3, $4, $5)',
        [adAccountId, row.name.toLowerCase(), row.name, row.mappedEventName, row.createdAt],
      );
      return { ok: true as const, row };
    });
  }

  async deleteCustomEventType(adAccountId: string, name: string): Promise<boolean> {
    const r = await this.#pool.query(
      'DELETE FROM custom_event_types WHERE ad_account_id = $1 AND name_key = $2',
      [adAccountId, name.toLowerCase()],
    );
    return (r.rowCount ?? 0) > 0;
  }

  async deleteConversions(adAccountId: string, t: DeletionTargets): Promise<DeletionCounts> {
    const counts = await this.#tx(async (c) => {
      const r = await deleteConversionsTx(c, adAccountId, t);
      // C132: every instance's deliverer hears of it at the commit.
      await c.query(NOTIFY_DELETION);
      return r;
    });
    this.#deletions++;
    return counts;
  }

  async createDeletionRequest(
    adAccountId: string,
    t: DeletionTargets,
    at: number,
  ): Promise<DeletionRequestRow> {
    const row = await this.#tx(async (c) => {
      const r = await createDeletionRequestTx(
        c,
        adAccountId,
        t,
        at,
        this.#outbox.deletionSinksFor(adAccountId),
      );
      await c.query(NOTIFY_DELETION);
      return r;
    });
    this.#deletions++;
    return row;
  }

  deletionsCommitted(): number {
    return this.#deletions + (this.#listener?.heard ?? 0);
  }

  async listDeletionRequests(adAccountId: string): Promise<DeletionRequestRow[]> {
    const rows = await this.#q<DeletionRequestDbRow>(
      `SELECT ${DELETION_REQUEST_COLUMNS} FROM deletion_requests WHERE ad_account_id = $1 ORDER BY id DESC`,
      [adAccountId],
    );
    return rows.map(deletionRequestOfRow);
  }

  async getDeletionRequest(adAccountId: string, requestId: string): Promise<DeletionRequestRow | null> {
    const rows = await this.#q<DeletionRequestDbRow>(
      `SELECT ${DELETION_REQUEST_COLUMNS} FROM deletion_requests WHERE ad_account_id = $1 AND id = $2`,
      [adAccountId, requestId],
    );
    return rows[0] ? deletionRequestOfRow(rows[0]) : null;
  }

  async findEarlier(
    adAccountId: string,
    keys: readonly DedupKey[],
    since: number,
  ): Promise<Map<string, Earlier>> {
    const out = new Map<string, Earlier>();
    if (keys.length === 0) return out;
    const rows = await this.#q<{
      name: string;
      id: string;
      seen_at: number;
      event_time: number;
      tag: boolean;
    }>(
      // The earliest sighting within the window of each key; an API sighting wins a tie (C6, C81).
      `SELECT k.name, k.id, e.seen_at, e.event_time, e.tag
       FROM unnest($2::text[], $3::text[]) AS k(name, id)
       JOIN LATERAL (
         SELECT s.seen_at, s.event_time, s.event_seq IS NULL AS tag FROM dedup_sightings s
         WHERE s.ad_account_id = $1 AND s.key_hash = events_key($1, k.name, k.id)
           AND s.day BETWEEN events_today() - 2 AND events_today() AND s.seen_at >= $4
         ORDER BY s.seen_at, s.event_seq IS NULL LIMIT 1
       ) e ON true`,
      [adAccountId, keys.map((k) => k.eventName), keys.map((k) => k.eventId), since],
    );
    for (const r of rows)
      out.set(dedupKey(r.name, r.id), {
        source: r.tag ? 'tag' : 'api',
        seenAt: r.seen_at,
        eventTime: r.event_time,
      });
    return out;
  }

  /** The lookup of `findEarlier` and the fold every store shares; the live commit folds in SQL (C46). */
  async dryRunBatch(b: DryRunBatch): Promise<BatchResult> {
    const earlier = await this.findEarlier(b.adAccountId, b.events, b.dedupSince);
    return { duplicates: foldBatch(b.events, earlier, asSighting, b.receivedAt).duplicates };
  }

  async commitBatch(b: BatchWrite): Promise<BatchResult> {
    if (this.#closed) throw new Error('store closed');
    // A month first seen by this process (a clock far from the database's): its partition is made before
    // the batch, so the batch's one call stays the only one (C74 needs the first attempt to be the commit).
    const month = monthOf(b.receivedAt);
    let made = this.#months.get(month);
    if (!made) {
      made = this.#maintain([b.receivedAt]);
      this.#months.set(month, made);
      made.catch(() => this.#months.delete(month));
    }
    await made;
    return this.#grouper.submit(b);
  }

  /** One call over batches of one account (C80, C83): one round trip, one transaction. */
  async #commitGroup(group: BatchWrite[]): Promise<BatchResult[]> {
    const params = groupParams(group);
    // C100: with sinks for the account, the same call writes their outbox entries in its transaction.
    const sinks = this.#outbox.sinksFor(group[0]?.adAccountId ?? '');
    const call = sinks.length ? COMMIT_BATCHES_TO : COMMIT_BATCHES;
    if (sinks.length) params.push(sinks);
    let rows: DupRow[];
    for (let attempt = 1; ; attempt++) {
      if (this.#closed) throw new Error('store closed');
      // Failing to get a connection is certain: nothing was sent (refused, the pool exhausted).
      const c = await this.#pool.connect();
      // A connection that breaks while checked out emits its error here as well as to the query.
      const ignore = () => {};
      c.on('error', ignore);
      try {
        // One statement: its implicit transaction commits when it ends, before the answer is sent.
        rows = (await c.query<DupRow>({ ...call, values: params })).rows;
        c.off('error', ignore);
        c.release();
        break;
      } catch (e) {
        c.off('error', ignore);
        const rolledBack = provesRollback(e);
        // A connection that failed without an answer of the database is destroyed, not pooled.
        c.release(rolledBack ? undefined : (e as Error));
        // Sent, and no answer proves a rollback: the batches may be stored (C74).
        if (!rolledBack) throw new CommitOutcomeUnknownError(e);
        const code = (e as { code?: string }).code ?? '';
        if (attempt >= ATTEMPTS || !(RETRYABLE.has(code) || code === NO_PARTITION)) throw e;
        // Received at in a month without its partition yet (C81): made, and the call runs again.
        if (code === NO_PARTITION) await this.#maintain(group.map((b) => b.receivedAt));
      }
    }
    return splitResults(group, rows);
  }

  async recordTagEvents(events: readonly TagEventWrite[], dedupSince: number): Promise<number> {
    return this.#tx(async (c) => {
      let recorded = 0;
      for (const e of events) {
        // The first sighting within the window wins: a tag event seen after an earlier one changes nothing.
        const r = await c.query(
          `INSERT INTO dedup_sightings AS s (ad_account_id, key_hash, day, seen_at, event_time, event_seq)
           SELECT $1, events_key($1, $2, $3), events_today(), $4, $5, NULL
           WHERE NOT EXISTS (
             SELECT 1 FROM dedup_sightings o
             WHERE o.ad_account_id = $1 AND o.key_hash = events_key($1, $2, $3) AND o.day BETWEEN events_today() - 2 AND events_today()
               AND o.seen_at >= $6 AND o.seen_at <= $4)
           ON CONFLICT (ad_account_id, key_hash, day) DO UPDATE
             SET seen_at = excluded.seen_at, event_time = excluded.event_time, event_seq = NULL`,
          [e.adAccountId, e.eventName, e.eventId, e.eventTime * 1000, e.eventTime, dedupSince],
        );
        recorded += r.rowCount ?? 0;
      }
      return recorded;
    });
  }

  async listEvents(f: EventFilter): Promise<{ items: StoredEventRow[]; nextCursor: string | null }> {
    const where: string[] = [];
    const args: unknown[] = [];
    const filter = (sql: string, value: string | number | undefined) => {
      if (value === undefined) return;
      args.push(value);
      where.push(`${sql} $${args.length}`);
    };
    filter('ad_account_id =', f.adAccountId);
    filter('event_name =', f.eventName);
    filter('event_id =', f.eventId);
    filter('received_at >=', f.since);
    filter('received_at <', f.until);
    filter('seq <', f.cursor === undefined ? undefined : decodeCursor(f.cursor));
    args.push(f.limit + 1);
    const rows = await this.#q<EventRow>(
      `SELECT * FROM events ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY seq DESC LIMIT $${args.length}`,
      args,
    );
    return eventPage(rows, f.limit);
  }

  async report(adAccountId: string): Promise<AccountReportData> {
    const [stored, failed] = await Promise.all([
      // Derived from the stored events (C80), plus what they cannot tell: duplicates of tag sightings.
      this.#q<{ event_name: string; usage: string; processed: number; duplicates: number }>(
        `SELECT event_name, (array_agg(usage ORDER BY seq DESC))[1] AS usage,
                sum(processed)::bigint AS processed, sum(duplicates)::bigint AS duplicates
         FROM (SELECT event_name, usage, seq, 1 AS processed, duplicates FROM events WHERE ad_account_id = $1
               UNION ALL
               SELECT event_name, usage, -1, processed, duplicates FROM event_counts WHERE ad_account_id = $1) x
         GROUP BY event_name ORDER BY event_name`,
        [adAccountId],
      ),
      this.#q<{ event_name: string; code: string; count: number }>(
        `SELECT event_name, code, sum(count)::bigint AS count
         FROM failure_counts WHERE ad_account_id = $1 GROUP BY event_name, code ORDER BY event_name, code`,
        [adAccountId],
      ),
    ]);
    return toReport(stored, failed);
  }

  async reset(): Promise<void> {
    await this.#q(
      // C121: the deletion requests go, their id counter (deletion_request_ids) stays.
      'TRUNCATE events, dedup_sightings, event_counts, failure_counts, request_log, timeline_counts, outbox, outbox_cursors, outbox_deliveries, deletion_requests',
    );
  }

  async appendRequests(entries: readonly RequestLogWrite[], r: RequestLogRetention): Promise<number[]> {
    if (entries.length === 0) return [];
    // One multi-row insert: the columns as arrays, unnested in order (C60).
    const columns = WRITE_COLUMNS.split(', ');
    const values = entries.map((e) => entryValues(e, (b) => b, false));
    // The type of each of WRITE_COLUMNS, in its order.
    const types = [
      'text',
      'text',
      'bigint',
      'text',
      'text',
      'boolean',
      'integer',
      'double precision',
      'integer',
      'integer',
      'integer',
      'integer',
      'text',
      'integer',
      'text',
      'text',
      'boolean',
      'integer',
      'text',
    ];
    const arrays = columns.map((_, i) => values.map((v) => v[i]));
    const timeline = timelineRows(entries);
    const timelineArrays = [0, 1, 2, 3].map((i) => timeline.map((row) => row[i]));
    if (r.prune === false) {
      // C130: without retention, one statement and one round trip (its own implicit transaction).
      const n = types.length;
      const rows = await this.#q<{ seq: number }>(
        `WITH timeline AS (
           INSERT INTO timeline_counts AS t (ad_account_id, hour, code, count)
           SELECT * FROM unnest($${n + 1}::text[], $${n + 2}::bigint[], $${n + 3}::text[], $${n + 4}::bigint[]) ORDER BY 1, 2, 3
           ON CONFLICT (ad_account_id, hour, code) DO UPDATE SET count = t.count + excluded.count)
         INSERT INTO request_log (${WRITE_COLUMNS})
         SELECT * FROM unnest(${types.map((t, i) => `$${i + 1}::${t}[]`).join(', ')})
         RETURNING seq`,
        [...arrays, ...timelineArrays],
      );
      return rows.map((row) => row.seq).sort((a, b) => a - b);
    }
    return this.#tx(async (c) => {
      const inserted = await c.query<{ seq: number }>(
        `INSERT INTO request_log (${WRITE_COLUMNS})
         SELECT * FROM unnest(${types.map((t, i) => `$${i + 1}::${t}[]`).join(', ')})
         RETURNING seq`,
        arrays,
      );
      if (timeline.length)
        await c.query(
          `INSERT INTO timeline_counts AS t (ad_account_id, hour, code, count)
           SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::bigint[]) ORDER BY 1, 2, 3
           ON CONFLICT (ad_account_id, hour, code) DO UPDATE SET count = t.count + excluded.count`,
          timelineArrays,
        );
      // Retention (C60): range deletes on indexes, a row or two each time.
      await c.query('DELETE FROM request_log WHERE seq <= (SELECT max(seq) FROM request_log) - $1', [
        r.maxEntries,
      ]);
      await c.query('DELETE FROM request_log WHERE received_at < $1', [r.now - r.maxAgeMs]);
      const kept = await c.query<{ total: string }>(BYTES_KEPT);
      if (Number(kept.rows[0]?.total ?? 0) > r.maxBytes) await c.query(PRUNE_BY_BYTES('$1'), [r.maxBytes]);
      await c.query('DELETE FROM timeline_counts WHERE hour < $1', [r.timelineSince]);
      return inserted.rows.map((row) => row.seq).sort((a, b) => a - b);
    });
  }

  async listRequests(
    f: RequestLogFilter,
  ): Promise<{ items: RequestLogSummary[]; nextCursor: string | null }> {
    const w = requestLogWhere(
      f,
      (n) => `$${n}`,
      (col, p) => `strpos(${col}, ${p}) > 0`,
      (b) => b,
    );
    const rows = await this.#q<RequestLogRow>(
      `SELECT ${SUMMARY_COLUMNS} FROM request_log ${w.sql} ORDER BY seq DESC LIMIT $${w.args.length + 1}`,
      [...w.args, f.limit + 1],
    );
    return requestPage(rows, f.limit);
  }

  async getRequest(requestId: string, notBefore: number): Promise<RequestLogEntry | null> {
    const rows = await this.#q<RequestLogRow>(
      'SELECT * FROM request_log WHERE request_id = $1 AND received_at >= $2 ORDER BY seq DESC LIMIT 1',
      [requestId, notBefore],
    );
    return rows[0] ? toEntry(rows[0]) : null;
  }

  async timeline(adAccountId: string, since: number): Promise<TimelineCount[]> {
    const rows = await this.#q<{ hour: number; code: string; count: number }>(
      'SELECT hour, code, count FROM timeline_counts WHERE ad_account_id = $1 AND hour >= $2 ORDER BY hour, code',
      [adAccountId, since],
    );
    return rows.map((r) => ({ start: r.hour, code: r.code, count: r.count }));
  }
}
