import { type AccessTier, LIMITS } from '@org/events-types';
import type { Database as Db, Statement, Transaction } from 'better-sqlite3';
import Database from 'better-sqlite3';
import {
  bodyMatches,
  DELETION_REQUEST_COLUMNS,
  type DeletionCounts,
  type DeletionRequestDbRow,
  type DeletionRequestRow,
  type DeletionTargets,
  deletionBody,
  deletionRequestIdBase,
  deletionRequestOfRow,
  deletionRequestValues,
  eventMatches,
  processedDeletionRequest,
} from '../common/conversion-deletion.js';
import { foldBatch } from '../common/dedup-fold.js';
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
  WRITE_COLUMN_COUNT,
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
  type EventToStore,
  eventJsonOf,
  type StoredEventRow,
  type TagEventWrite,
} from '../interface/events.js';
import type {
  Outbox,
  OutboxBatch,
  OutboxEntryStatus,
  OutboxExtension,
  OutboxStats,
} from '../interface/outbox.js';
import type {
  RequestLogEntry,
  RequestLogFilter,
  RequestLogRetention,
  RequestLogSummary,
  RequestLogWrite,
  TimelineCount,
} from '../interface/request-log.js';
import type { Store } from '../interface/store.js';
import { DedupLookup, sightingOfRow } from './dedup.js';
import {
  LACKS_CLIENT_REQUEST_ID_SQL,
  LACKS_DELETION_ENTRIES_SQL,
  LACKS_UPSTREAM_ANSWER_SQL,
  REUSES_IDS_SQL,
  SCHEMA_SQL,
  SCHEMA_VERSION,
  UPGRADE_TO_3_SQL,
  UPGRADE_TO_5_SQL,
  UPGRADE_TO_6_SQL,
  UPGRADE_TO_8_DELETIONS_SQL,
  UPGRADE_TO_8_OUTBOX_SQL,
} from './schema.js';
import { SqliteOutbox } from './sqlite-outbox.js';

export type SynchronousLevel = 'FULL' | 'EXTRA' | 'NORMAL';

export interface SqliteStoreOptions {
  /** A file path, or `:memory:` (tests). */
  path: string;
  /**
   * PRAGMA synchronous. FULL (default): in WAL mode every commit fsyncs the WAL before it returns, so a
   * batch answered 200 survives a process kill AND an OS crash or power loss (C11: "a 200 is sent only
   * after the batch is durable"). NORMAL survives a process kill but may lose the last commits on power
   * loss: it is there for benchmarks and throwaway CI runs, and named as such in the README.
   */
  synchronous?: SynchronousLevel;
}

/** Rows per multi-row insert (8 parameters per event row: far below SQLite's variable limit). */
const CHUNK = 64;

/** How often tag events older than the dedup window are deleted, in batches. */
const PRUNE_EVERY = 1000;

/**
 * The embedded store of C11: SQLite through better-sqlite3, WAL journal, one transaction per batch.
 * better-sqlite3 is synchronous, so a batch's dedup check and insert run with nothing else interleaved in
 * this process; BEGIN IMMEDIATE also serializes writers of other processes on the same file.
 */
export class SqliteStore implements Store {
  readonly description: string;
  readonly #db: Db;
  readonly #s: ReturnType<typeof prepare>;
  readonly #commit: Transaction<(b: BatchWrite) => BatchResult>;
  readonly #group: Transaction<
    (bs: BatchWrite[]) => ({ ok: true; value: BatchResult } | { ok: false; error: unknown })[]
  >;
  readonly #queue: { batch: BatchWrite; resolve(r: BatchResult): void; reject(e: unknown): void }[] = [];
  readonly #inserts = new Map<number, Statement>();
  readonly #dedup: DedupLookup;
  readonly #outbox: SqliteOutbox;
  #batches = 0;
  /** Conversion deletions committed (C132). */
  #deletions = 0;

  constructor(options: SqliteStoreOptions) {
    const memory = options.path === ':memory:';
    this.description = memory ? 'sqlite:memory' : `sqlite:${options.path}`;
    this.#db = new Database(options.path);
    try {
      const version = this.#db.pragma('user_version', { simple: true }) as number;
      if (version > SCHEMA_VERSION)
        throw new Error(`${options.path} has schema version ${version}; this server knows ${SCHEMA_VERSION}`);
      // C111: a new file gets larger pages, before its first table and before WAL (which fixes the size).
      if (version === 0) this.#db.pragma(`page_size = ${LIMITS.sqlite_page_size_bytes.value}`);
      if (!memory) this.#db.pragma('journal_mode = WAL');
      this.#db.pragma(`synchronous = ${options.synchronous ?? 'FULL'}`);
      // Another process holding the write lock: wait rather than fail the batch at once.
      this.#db.pragma('busy_timeout = 5000');
      // Dedup lookups probe an index at random keys; SQLite's default 2 MB page cache lets the event rows of
      // every batch evict that index. 16 MB keeps its upper levels: 300,000 stored 1000-event rows commit as
      // fast as with a 64 MB cache plus memory-mapped reads, for 75 MB less RSS (see README, Performance).
      this.#db.pragma('cache_size = -16384');
      this.#db.exec(SCHEMA_SQL);
      if (version === 2) this.#db.exec(UPGRADE_TO_3_SQL);
      // Version 5: seqs that never go back. Decided by the tables themselves (a file of any earlier version).
      if ((this.#db.prepare(REUSES_IDS_SQL).pluck().get() as number) > 0) this.#db.exec(UPGRADE_TO_5_SQL);
      if (this.#db.prepare(LACKS_CLIENT_REQUEST_ID_SQL).pluck().get() === 1) this.#db.exec(UPGRADE_TO_6_SQL);
      if (this.#db.prepare(LACKS_DELETION_ENTRIES_SQL).pluck().get() === 1)
        this.#db.exec(UPGRADE_TO_8_OUTBOX_SQL);
      if (this.#db.prepare(LACKS_UPSTREAM_ANSWER_SQL).pluck().get() === 1)
        this.#db.exec(UPGRADE_TO_8_DELETIONS_SQL);
      this.#db.pragma(`user_version = ${SCHEMA_VERSION}`);
      if (version === 2 && !memory) this.#db.pragma('wal_checkpoint(TRUNCATE)');
      this.#s = prepare(this.#db);
      this.#dedup = new DedupLookup(this.#db);
      this.#outbox = new SqliteOutbox(this.#db, options.synchronous ?? 'FULL');
      this.#commit = this.#db.transaction((b: BatchWrite) => this.#commitBatch(b));
      this.#group = this.#db.transaction((bs: BatchWrite[]) =>
        bs.map((b) => {
          try {
            return { ok: true as const, value: this.#commit(b) };
          } catch (error) {
            return { ok: false as const, error };
          }
        }),
      );
    } catch (e) {
      this.#db.close();
      throw e;
    }
  }

  /** The raw handle, for tests that need to break storage on purpose. */
  get database(): Db {
    return this.#db;
  }

  async ping(): Promise<void> {
    this.#s.ping.get();
  }

  async close(): Promise<void> {
    if (this.#db.open) this.#db.close();
  }

  async replaceDirectory(data: DirectoryData): Promise<void> {
    const s = this.#s;
    this.#db
      .transaction(() => {
        for (const t of ['ad_accounts', 'apps', 'users', 'user_roles', 'tokens'])
          this.#db.prepare(`DELETE FROM ${t}`).run();
        for (const a of data.accounts) s.insAccount.run(a.id, a.name, a.currency, a.ownerUserId);
        for (const a of data.apps) s.insApp.run(a.id, a.name, a.tier);
        for (const u of data.users) {
          s.insUser.run(u.id, u.name);
          for (const r of u.roles) s.insRole.run(u.id, r.adAccountId, r.role);
        }
        for (const t of data.tokens)
          s.insToken.run(
            t.id,
            t.kind,
            t.sha256,
            t.adAccountId,
            t.userId,
            t.appId,
            JSON.stringify(t.scopes),
            t.revoked ? 1 : 0,
          );
      })
      .immediate();
  }

  async loadDirectory(): Promise<DirectoryData> {
    const roles = this.#db.prepare('SELECT user_id, ad_account_id, role FROM user_roles').all() as {
      user_id: string;
      ad_account_id: string;
      role: string;
    }[];
    return {
      accounts: (
        this.#db.prepare('SELECT id, name, currency, owner_user_id FROM ad_accounts').all() as {
          id: string;
          name: string;
          currency: string;
          owner_user_id: string | null;
        }[]
      ).map((a) => ({ id: a.id, name: a.name, currency: a.currency, ownerUserId: a.owner_user_id })),
      apps: (
        this.#db.prepare('SELECT id, name, tier FROM apps').all() as {
          id: string;
          name: string;
          tier: AccessTier;
        }[]
      ).map((a) => ({ ...a })),
      users: (this.#db.prepare('SELECT id, name FROM users').all() as { id: string; name: string }[]).map(
        (u) => ({
          ...u,
          roles: roles
            .filter((r) => r.user_id === u.id)
            .map((r) => ({ adAccountId: r.ad_account_id, role: r.role })),
        }),
      ),
      tokens: (
        this.#db.prepare('SELECT * FROM tokens').all() as {
          id: string;
          kind: StoredTokenKind;
          sha256: Buffer;
          ad_account_id: string | null;
          user_id: string | null;
          app_id: string | null;
          scopes: string;
          revoked: number;
        }[]
      ).map((t) => ({
        id: t.id,
        kind: t.kind,
        sha256: t.sha256,
        adAccountId: t.ad_account_id,
        userId: t.user_id,
        appId: t.app_id,
        scopes: JSON.parse(t.scopes) as string[],
        revoked: t.revoked === 1,
      })),
    };
  }

  async listCustomEventTypes(adAccountId: string): Promise<CustomEventTypeRow[]> {
    return (
      this.#s.listCustom.all(adAccountId) as { name: string; mapped_event_name: string; created_at: number }[]
    ).map((r) => ({ name: r.name, mappedEventName: r.mapped_event_name, createdAt: r.created_at }));
  }

  async createCustomEventType(
    adAccountId: string,
    row: CustomEventTypeRow,
    maxPerAccount: number,
  ): Promise<
    { ok: true; row: CustomEventTypeRow } | { ok: false; reason: 'exists' | 'cap'; existing?: string }
  > {
    const s = this.#s;
    return this.#db
      .transaction(() => {
        const existing = s.getCustom.get(adAccountId, row.name.toLowerCase()) as { name: string } | undefined;
        if (existing) return { ok: false as const, reason: 'exists' as const, existing: existing.name };
        const { n } = s.countCustom.get(adAccountId) as { n: number };
        if (n >= maxPerAccount) return { ok: false as const, reason: 'cap' as const };
        s.insCustom.run(adAccountId, row.name.toLowerCase(), row.name, row.mappedEventName, row.createdAt);
        return { ok: true as const, row };
      })
      .immediate();
  }

  async deleteCustomEventType(adAccountId: string, name: string): Promise<boolean> {
    return this.#s.delCustom.run(adAccountId, name.toLowerCase()).changes > 0;
  }

  async deleteConversions(adAccountId: string, t: DeletionTargets): Promise<DeletionCounts> {
    const counts = this.#db.transaction(() => this.#deleteConversions(adAccountId, t)).immediate();
    this.#deletions++;
    return counts;
  }

  deletionsCommitted(): number {
    return this.#deletions;
  }

  async createDeletionRequest(
    adAccountId: string,
    t: DeletionTargets,
    at: number,
  ): Promise<DeletionRequestRow> {
    const db = this.#db;
    const row = db
      .transaction(() => {
        const removed = this.#deleteConversions(adAccountId, t);
        // C121: the id from the counter row, under the write lock of this IMMEDIATE transaction.
        const id = db
          .prepare('UPDATE deletion_request_ids SET last = max(last + 1, ?) WHERE one = 1 RETURNING last')
          .pluck()
          .get(deletionRequestIdBase(at)) as number;
        // C127: passed on to the sinks that take deletions, as an entry after the account's earlier ones.
        const sinks = this.#outbox.deletionSinks(adAccountId);
        const row = processedDeletionRequest(id, adAccountId, at, removed, sinks.length > 0);
        db.prepare(
          `INSERT INTO deletion_requests (${DELETION_REQUEST_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
        ).run(...deletionRequestValues(row));
        this.#outbox.writeDeletion(sinks, adAccountId, id, at, deletionBody(t));
        return deletionRequestOfRow(row);
      })
      .immediate();
    this.#deletions++;
    return row;
  }

  async listDeletionRequests(adAccountId: string): Promise<DeletionRequestRow[]> {
    const rows = this.#db
      .prepare(
        `SELECT ${DELETION_REQUEST_COLUMNS} FROM deletion_requests WHERE ad_account_id = ? ORDER BY id DESC`,
      )
      .all(adAccountId) as DeletionRequestDbRow[];
    return rows.map(deletionRequestOfRow);
  }

  async getDeletionRequest(adAccountId: string, requestId: string): Promise<DeletionRequestRow | null> {
    const row = this.#db
      .prepare(`SELECT ${DELETION_REQUEST_COLUMNS} FROM deletion_requests WHERE ad_account_id = ? AND id = ?`)
      .get(adAccountId, Number(requestId)) as DeletionRequestDbRow | undefined;
    return row ? deletionRequestOfRow(row) : null;
  }

  /** C91 inside a transaction of the caller. */
  #deleteConversions(adAccountId: string, t: DeletionTargets): DeletionCounts {
    const db = this.#db;
    const events = db.prepare('SELECT seq, event FROM events WHERE ad_account_id = ?').all(adAccountId) as {
      seq: number;
      event: string;
    }[];
    const gone = events.filter((e) => eventMatches(e.event, t)).map((e) => e.seq);
    const seqs = JSON.stringify(gone);
    // The events table is also the dedup index (C6): deleting a row removes its sighting.
    const n = db
      .prepare('DELETE FROM events WHERE ad_account_id = ? AND seq IN (SELECT value FROM json_each(?))')
      .run(adAccountId, seqs).changes;
    // Their outbox entries, in every state: a deleted event is never delivered and never waits (C112).
    const o = this.#outbox.forget(adAccountId, seqs);
    const bodies = db
      .prepare('SELECT seq, body FROM request_log WHERE ad_account_id = ? AND body IS NOT NULL')
      .all(adAccountId) as { seq: number; body: string | Uint8Array }[];
    const dropBody = db.prepare('UPDATE request_log SET body = NULL, body_bytes = 0 WHERE seq = ?');
    let b = 0;
    for (const r of bodies) if (bodyMatches(r.body, t)) b += dropBody.run(r.seq).changes;
    return { events: n, outboxEntries: o, requestBodies: b };
  }

  async findEarlier(
    adAccountId: string,
    keys: readonly DedupKey[],
    since: number,
  ): Promise<Map<string, Earlier>> {
    return this.#dedup.earlier(adAccountId, keys, since);
  }

  async dryRunBatch(b: DryRunBatch): Promise<BatchResult> {
    return this.#dedup.dryRun(b);
  }

  /**
   * Group commit: batches that arrive while the event loop is busy are written in one transaction, each
   * inside its own savepoint (a nested better-sqlite3 transaction). A batch that fails rolls back alone;
   * a failed COMMIT fails them all. Either way every promise settles only after the outcome is durable, so
   * each batch is still all-or-nothing and answered after commit (C11), while concurrent small batches
   * share one WAL commit and fsync instead of paying for one each.
   */
  commitBatch(b: BatchWrite): Promise<BatchResult> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ batch: b, resolve, reject });
      if (this.#queue.length === 1) setImmediate(() => this.#flush());
    });
  }

  #flush(): void {
    const queue = this.#queue.splice(0);
    let results: ({ ok: true; value: BatchResult } | { ok: false; error: unknown })[];
    try {
      results = this.#group.immediate(queue.map((q) => q.batch));
    } catch (e) {
      for (const q of queue) q.reject(e);
      return;
    }
    results.forEach((r, i) => {
      const q = queue[i] as (typeof queue)[number];
      if (r.ok) q.resolve(r.value);
      else q.reject(r.error);
    });
    const last = queue[queue.length - 1];
    this.#batches += queue.length;
    if (last && this.#batches >= PRUNE_EVERY) {
      this.#batches = 0;
      this.#prune(last.batch.dedupSince);
    }
  }

  /**
   * The batch transaction (C6, C11), run with BEGIN IMMEDIATE. Dedup keys are looked up and rows inserted
   * in chunks of multi-row statements: per-statement overhead, not SQLite's work, dominates row-at-a-time
   * loops (see README, Performance).
   */
  #commitBatch(b: BatchWrite): BatchResult {
    const s = this.#s;
    const { duplicates, fresh, intoEarlier, intoFresh } = foldBatch(
      b.events,
      this.#dedup.rows(b.adAccountId, b.events, b.dedupSince),
      sightingOfRow,
      b.receivedAt,
    );
    const counts = new Map<string, { usage: string; processed: number; duplicates: number }>();
    const usages: string[] = [];
    for (const e of b.events) {
      const usage = e.usage.join(',');
      let c = counts.get(e.eventName);
      if (!c) {
        c = { usage, processed: 0, duplicates: 0 };
        counts.set(e.eventName, c);
      }
      if (duplicates.has(e.index)) c.duplicates++;
      else {
        c.processed++;
        usages.push(usage);
      }
    }
    const seqs = this.#insertEvents(b, fresh, usages);
    // C100: in the same transaction, so a 200 implies delivery; nothing at all while no sink is configured.
    this.#outbox.write(b.adAccountId, b.requestId, b.receivedAt, seqs);
    // C6: processed, stored once; the stored row records how many duplicates were folded into it.
    if (intoEarlier.length + intoFresh.length) {
      const folded = new Map<number, number>();
      for (const hit of intoEarlier)
        if (hit.event_seq !== null) folded.set(hit.event_seq, (folded.get(hit.event_seq) ?? 0) + 1);
      for (const i of intoFresh) {
        const seq = seqs[i] as number;
        folded.set(seq, (folded.get(seq) ?? 0) + 1);
      }
      for (const [seq, n] of folded) s.markDuplicate.run(n, seq);
    }
    for (const [name, c] of counts)
      s.upsertCount.run(b.adAccountId, name, c.usage, c.processed, c.duplicates);
    for (const f of b.failures)
      for (const code of f.codes) s.upsertFailure.run(b.adAccountId, f.eventName, code);
    return { duplicates };
  }

  /** Inserts rows in multi-row statements; returns their seqs (rowids are consecutive within a statement). */
  #insertEvents(b: BatchWrite, rows: readonly EventToStore[], usages: readonly string[]): number[] {
    const seqs: number[] = [];
    const json = eventJsonOf(b);
    for (let i = 0; i < rows.length; i += CHUNK) {
      const n = Math.min(CHUNK, rows.length - i);
      const args: (string | number)[] = [];
      for (let j = i; j < i + n; j++) {
        const e = rows[j] as EventToStore;
        args.push(
          b.adAccountId,
          e.eventName,
          e.eventId,
          e.eventTime,
          b.receivedAt,
          b.requestId,
          usages[j] as string,
          json(e),
        );
      }
      const last = Number(this.#insert(n).run(...args).lastInsertRowid);
      for (let j = 0; j < n; j++) seqs.push(last - n + 1 + j);
    }
    return seqs;
  }

  /** Multi-row inserts by row count, prepared once each. */
  #insert(n: number): Statement {
    let st = this.#inserts.get(n);
    if (!st) {
      st = this.#db.prepare(insertSql(n));
      this.#inserts.set(n, st);
    }
    return st;
  }

  async recordTagEvents(events: readonly TagEventWrite[], dedupSince: number): Promise<number> {
    const s = this.#s;
    const n = this.#db
      .transaction(() => {
        let recorded = 0;
        for (const e of events) {
          // The first sighting within the window wins: a tag event seen after an earlier one changes nothing.
          const earlier = this.#dedup
            .rows(e.adAccountId, [e], dedupSince)
            .get(dedupKey(e.eventName, e.eventId));
          if (earlier && earlier.seen_at <= e.eventTime * 1000) continue;
          s.upsertTag.run(e.adAccountId, e.eventName, e.eventId, e.eventTime * 1000, e.eventTime);
          recorded++;
        }
        return recorded;
      })
      .immediate();
    return n;
  }

  async listEvents(f: EventFilter): Promise<{ items: StoredEventRow[]; nextCursor: string | null }> {
    const where: string[] = [];
    const args: (string | number)[] = [];
    const filter = (sql: string, value: string | number | undefined) => {
      if (value === undefined) return;
      where.push(sql);
      args.push(value);
    };
    filter('ad_account_id = ?', f.adAccountId);
    filter('event_name = ?', f.eventName);
    filter('event_id = ?', f.eventId);
    filter('received_at >= ?', f.since);
    filter('received_at < ?', f.until);
    filter('seq < ?', f.cursor === undefined ? undefined : decodeCursor(f.cursor));
    const sql = `SELECT * FROM events ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY seq DESC LIMIT ?`;
    const rows = this.#db.prepare(sql).all(...args, f.limit + 1) as EventRow[];
    return eventPage(rows, f.limit);
  }

  async report(adAccountId: string): Promise<AccountReportData> {
    const stored = this.#db
      .prepare(
        'SELECT event_name, usage, processed, duplicates FROM event_counts WHERE ad_account_id = ? ORDER BY event_name',
      )
      .all(adAccountId) as { event_name: string; usage: string; processed: number; duplicates: number }[];
    const failed = this.#db
      .prepare(
        'SELECT event_name, code, count FROM failure_counts WHERE ad_account_id = ? ORDER BY event_name, code',
      )
      .all(adAccountId) as { event_name: string; code: string; count: number }[];
    return toReport(stored, failed);
  }

  async reset(): Promise<void> {
    this.#db
      .transaction(() => {
        for (const t of [
          'events',
          'tag_events',
          'event_counts',
          'failure_counts',
          'request_log',
          'timeline_counts',
          'outbox',
          // C121: the requests go, their id counter stays (an id is never given twice).
          'deletion_requests',
        ])
          this.#db.prepare(`DELETE FROM ${t}`).run();
      })
      .immediate();
  }

  async appendRequests(entries: readonly RequestLogWrite[], r: RequestLogRetention): Promise<number[]> {
    const s = this.#s;
    return this.#db
      .transaction(() => {
        const seqs = entries.map((e) =>
          Number(s.insRequest.run(...entryValues(e, (b) => (b ? 1 : 0), true)).lastInsertRowid),
        );
        for (const row of timelineRows(entries)) s.upsertTimeline.run(...row);
        // Retention (C60): two range deletes on indexes, a row or two each time.
        s.pruneRequestsByCount.run(r.maxEntries);
        s.pruneRequestsByAge.run(r.now - r.maxAgeMs);
        if ((s.bytesKept.get() as { total: number }).total > r.maxBytes)
          s.pruneRequestsByBytes.run(r.maxBytes);
        s.pruneTimeline.run(r.timelineSince);
        return seqs;
      })
      .immediate();
  }

  async listRequests(
    f: RequestLogFilter,
  ): Promise<{ items: RequestLogSummary[]; nextCursor: string | null }> {
    const w = requestLogWhere(
      f,
      () => '?',
      (col, p) => `instr(${col}, ${p}) > 0`,
      (b) => (b ? 1 : 0),
    );
    const rows = this.#db
      .prepare(`SELECT ${SUMMARY_COLUMNS} FROM request_log ${w.sql} ORDER BY seq DESC LIMIT ?`)
      .all(...(w.args as (string | number)[]), f.limit + 1) as RequestLogRow[];
    return requestPage(rows, f.limit);
  }

  async getRequest(requestId: string, notBefore: number): Promise<RequestLogEntry | null> {
    const row = this.#s.getRequest.get(requestId, notBefore) as RequestLogRow | undefined;
    return row ? toEntry(row) : null;
  }

  async timeline(adAccountId: string, since: number): Promise<TimelineCount[]> {
    return (this.#s.timeline.all(adAccountId, since) as { hour: number; code: string; count: number }[]).map(
      (r) => ({ start: r.hour, code: r.code, count: r.count }),
    );
  }

  async routeOutbox(routes: Parameters<Outbox['routeOutbox']>[0]): Promise<void> {
    this.#outbox.route(routes);
  }

  async claimOutbox(c: Parameters<Outbox['claimOutbox']>[0]): Promise<OutboxBatch[]> {
    return this.#outbox.claim(c);
  }

  async extendClaim(c: OutboxExtension): Promise<OutboxBatch[] | null> {
    return this.#outbox.extend(c);
  }

  async settleOutbox(...a: Parameters<Outbox['settleOutbox']>): Promise<void> {
    this.#outbox.settle(...a);
  }

  async requeueDeadOutbox(now: number, sink?: string): Promise<number> {
    return this.#outbox.requeueDead(now, sink);
  }

  async outboxStats(): Promise<OutboxStats[]> {
    return this.#outbox.stats();
  }

  async pruneOutbox(deliveredBefore: number): Promise<number> {
    return this.#outbox.prune(deliveredBefore);
  }

  async outboxOfRequest(requestId: string): Promise<OutboxEntryStatus[]> {
    return this.#outbox.ofRequest(requestId);
  }

  /** Deletes tag events that can no longer match (older than the window). */
  #prune(since: number): void {
    try {
      this.#s.pruneTags.run(since);
    } catch {
      // Best effort: a busy database is pruned next time.
    }
  }
}

function prepare(db: Db) {
  const p = (sql: string): Statement => db.prepare(sql);
  return {
    ping: p('SELECT 1'),
    insAccount: p('INSERT INTO ad_accounts (id, name, currency, owner_user_id) VALUES (?, ?, ?, ?)'),
    insApp: p('INSERT INTO apps (id, name, tier) VALUES (?, ?, ?)'),
    insUser: p('INSERT INTO users (id, name) VALUES (?, ?)'),
    insRole: p('INSERT INTO user_roles (user_id, ad_account_id, role) VALUES (?, ?, ?)'),
    insToken: p(
      'INSERT INTO tokens (id, kind, sha256, ad_account_id, user_id, app_id, scopes, revoked) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    ),
    listCustom: p(
      'SELECT name, mapped_event_name, created_at FROM custom_event_types WHERE ad_account_id = ? ORDER BY created_at, name_key',
    ),
    getCustom: p('SELECT name FROM custom_event_types WHERE ad_account_id = ? AND name_key = ?'),
    countCustom: p('SELECT count(*) AS n FROM custom_event_types WHERE ad_account_id = ?'),
    insCustom: p(
      'INSERT INTO custom_event_types (ad_account_id, name_key, name, mapped_event_name, created_at) VALUES (?, ?, ?, ?, ?)',
    ),
    delCustom: p('DELETE FROM custom_event_types WHERE ad_account_id = ? AND name_key = ?'),
    upsertTag: p(
      `INSERT INTO tag_events (ad_account_id, event_name, event_id, seen_at, event_time) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (ad_account_id, event_id, event_name) DO UPDATE SET seen_at = excluded.seen_at, event_time = excluded.event_time`,
    ),
    pruneTags: p('DELETE FROM tag_events WHERE seen_at < ?'),
    markDuplicate: p(
      "UPDATE events SET dedup_status = 'deduplicated', duplicates = duplicates + ? WHERE seq = ?",
    ),
    upsertCount: p(
      `INSERT INTO event_counts (ad_account_id, event_name, usage, processed, duplicates) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (ad_account_id, event_name) DO UPDATE SET
         usage = excluded.usage, processed = processed + excluded.processed, duplicates = duplicates + excluded.duplicates`,
    ),
    pruneRequestsByBytes: p(PRUNE_BY_BYTES('?')),
    bytesKept: p(BYTES_KEPT),
    insRequest: p(
      `INSERT INTO request_log (${WRITE_COLUMNS}) VALUES (${Array(WRITE_COLUMN_COUNT).fill('?').join(', ')})`,
    ),
    upsertTimeline: p(
      `INSERT INTO timeline_counts (ad_account_id, hour, code, count) VALUES (?, ?, ?, ?)
       ON CONFLICT (ad_account_id, hour, code) DO UPDATE SET count = count + excluded.count`,
    ),
    pruneRequestsByCount: p('DELETE FROM request_log WHERE seq <= (SELECT max(seq) FROM request_log) - ?'),
    pruneRequestsByAge: p('DELETE FROM request_log WHERE received_at < ?'),
    pruneTimeline: p('DELETE FROM timeline_counts WHERE hour < ?'),
    getRequest: p(
      'SELECT * FROM request_log WHERE request_id = ? AND received_at >= ? ORDER BY seq DESC LIMIT 1',
    ),
    timeline: p(
      'SELECT hour, code, count FROM timeline_counts WHERE ad_account_id = ? AND hour >= ? ORDER BY hour, code',
    ),
    upsertFailure: p(
      `INSERT INTO failure_counts (ad_account_id, event_name, code, count) VALUES (?, ?, ?, 1)
       ON CONFLICT (ad_account_id, event_name, code) DO UPDATE SET count = count + 1`,
    ),
  };
}

function insertSql(n: number): string {
  const rows = Array.from({ length: n }, () => "(?, ?, ?, ?, ?, ?, ?, 'unique', 0, ?)").join(', ');
  return `INSERT INTO events (ad_account_id, event_name, event_id, event_time, received_at, request_id, usage, dedup_status, duplicates, event)
        VALUES ${rows}`;
}
