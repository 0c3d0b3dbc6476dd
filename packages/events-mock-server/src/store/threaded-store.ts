import type { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { type CallOptions, Channel } from '../threads/channel.js';
import { toWireBatch } from '../threads/event-pack.js';
import { startWorker } from '../threads/start-worker.js';
import { type RelayedError, ThreadError } from '../threads/thread-error.js';
import type { DirectoryData } from './interface/directory-data.js';
import type { Outbox } from './interface/outbox.js';
import { BadCursorError, CommitOutcomeUnknownError, type Store } from './interface/store.js';
import { DedupLookup } from './sqlite/dedup.js';
import type { SqliteStoreOptions } from './sqlite/sqlite-store.js';

/** The store thread (threads/start-worker.ts says how it boots from source). */
const startThread = (options: SqliteStoreOptions): Worker =>
  startWorker(import.meta.url, 'sqlite-thread', { workerData: options });

/**
 * A bad cursor is the caller's mistake (400), told apart by its class; any other error keeps its name and
 * SQLite code (503 details name it).
 */
const revive = (e: RelayedError): Error =>
  e.name === 'BadCursorError' ? new BadCursorError(e.message) : new ThreadError(e);

/** A batch posted to a thread that died may have been committed before it did (C74). */
const COMMIT: CallOptions = { lost: (e) => new CommitOutcomeUnknownError(e) };

/**
 * The SQLite store on a thread of its own (C11, bench): the same SqliteStore, so the same transactions and
 * durability, but its CPU (B-tree inserts, WAL writes, fsync) no longer blocks the event loop that parses
 * and validates the next batch. Calls run one at a time in the order they were made; each resolves when
 * the thread has finished it, so a commit has returned (and is durable) before its 200 is sent.
 */
export class ThreadedSqliteStore implements Store, Outbox {
  description = 'sqlite';
  readonly #thread: Channel;
  readonly #ready: Promise<void>;
  /** A read-only connection of the event loop for small test-mode lookups (a file store only). */
  #reader: { db: Database.Database; dedup: DedupLookup } | undefined;

  private constructor(options: SqliteStoreOptions) {
    this.#thread = new Channel(startThread(options), { name: 'store thread', revive });
    this.#ready = this.#thread.ready<string>().then((d) => {
      this.description = `${d} (thread)`;
    });
  }

  /**
   * Opens the store on its thread; rejects as SqliteStore's constructor would (bad path, newer schema).
   * `onThread` is handed the thread (tests that stop it mid-commit, C74).
   */
  static async open(
    options: SqliteStoreOptions,
    onThread?: (thread: Worker) => void,
  ): Promise<ThreadedSqliteStore> {
    const s = new ThreadedSqliteStore(options);
    onThread?.(s.#thread.worker);
    try {
      await s.#ready;
      if (options.path !== ':memory:') {
        // Opened after the thread has created the file and switched it to WAL, so it reads beside the writer.
        const db = new Database(options.path, { readonly: true, fileMustExist: true });
        db.pragma('busy_timeout = 5000');
        s.#reader = { db, dedup: new DedupLookup(db) };
      }
    } catch (e) {
      await s.#thread.worker.terminate();
      throw e;
    }
    return s;
  }

  #call<T>(method: keyof Store | keyof Outbox, ...args: unknown[]): Promise<T> {
    return this.#thread.call<T>(method, args, method === 'commitBatch' ? COMMIT : {});
  }

  /** Throws what the store's calls are refused with: a thread that died, or a store closed. */
  #alive(): void {
    const dead = this.#thread.dead;
    if (dead) throw dead;
  }

  ping: Store['ping'] = () => this.#call('ping');
  replaceDirectory = (d: DirectoryData) => this.#call<void>('replaceDirectory', d);
  loadDirectory: Store['loadDirectory'] = async () => {
    const d = await this.#call<DirectoryData>('loadDirectory');
    // Buffers arrive as Uint8Arrays; the directory compares digests as Buffers.
    for (const t of d.tokens) t.sha256 = Buffer.from(t.sha256);
    return d;
  };
  listCustomEventTypes: Store['listCustomEventTypes'] = (...a) => this.#call('listCustomEventTypes', ...a);
  createCustomEventType: Store['createCustomEventType'] = (...a) => this.#call('createCustomEventType', ...a);
  deleteCustomEventType: Store['deleteCustomEventType'] = (...a) => this.#call('deleteCustomEventType', ...a);
  // C132: counted here, on the event loop the deliverer runs on, once the store thread has committed.
  deleteConversions: Store['deleteConversions'] = (...a) =>
    this.#counted(this.#call('deleteConversions', ...a));
  createDeletionRequest: Store['createDeletionRequest'] = (...a) =>
    this.#counted(this.#call('createDeletionRequest', ...a));
  #deletions = 0;
  async #counted<T>(committed: Promise<T>): Promise<T> {
    const r = await committed;
    this.#deletions++;
    return r;
  }
  deletionsCommitted(): number {
    return this.#deletions;
  }
  listDeletionRequests: Store['listDeletionRequests'] = (...a) => this.#call('listDeletionRequests', ...a);
  getDeletionRequest: Store['getDeletionRequest'] = (...a) => this.#call('getDeletionRequest', ...a);
  /**
   * Test mode's dedup lookup (C7) answered on the event loop: one statement per batch, one index probe per
   * key (about 1 µs each), instead of two thread messages whose copies of 1000 keys cost more than the
   * lookup itself (issue 25). WAL gives the reader the last committed state, as the thread would.
   */
  findEarlier: Store['findEarlier'] = async (adAccountId, keys, since) => {
    this.#alive();
    if (this.#reader) return this.#reader.dedup.earlier(adAccountId, keys, since);
    return this.#call('findEarlier', adAccountId, keys, since);
  };
  dryRunBatch: Store['dryRunBatch'] = async (b) => {
    this.#alive();
    if (this.#reader) return this.#reader.dedup.dryRun(b);
    const { adAccountId, receivedAt, dedupSince, events } = b;
    return this.#call('dryRunBatch', { adAccountId, receivedAt, dedupSince, events });
  };
  commitBatch: Store['commitBatch'] = (b) => this.#call('commitBatch', toWireBatch(b));

  recordTagEvents: Store['recordTagEvents'] = (...a) => this.#call('recordTagEvents', ...a);
  listEvents: Store['listEvents'] = (...a) => this.#call('listEvents', ...a);
  report: Store['report'] = (...a) => this.#call('report', ...a);
  reset: Store['reset'] = () => this.#call('reset');
  appendRequests: Store['appendRequests'] = (...a) => this.#call('appendRequests', ...a);
  listRequests: Store['listRequests'] = (...a) => this.#call('listRequests', ...a);
  getRequest: Store['getRequest'] = (...a) => this.#call('getRequest', ...a);
  timeline: Store['timeline'] = (...a) => this.#call('timeline', ...a);
  // C100: the outbox lives in the same file, so it is served by the same thread, in call order.
  routeOutbox: Outbox['routeOutbox'] = (...a) => this.#call('routeOutbox', ...a);
  claimOutbox: Outbox['claimOutbox'] = (...a) => this.#call('claimOutbox', ...a);
  extendClaim: Outbox['extendClaim'] = (...a) => this.#call('extendClaim', ...a);
  settleOutbox: Outbox['settleOutbox'] = (...a) => this.#call('settleOutbox', ...a);
  requeueDeadOutbox: Outbox['requeueDeadOutbox'] = (...a) => this.#call('requeueDeadOutbox', ...a);
  outboxStats: Outbox['outboxStats'] = () => this.#call('outboxStats');
  pruneOutbox: Outbox['pruneOutbox'] = (...a) => this.#call('pruneOutbox', ...a);
  outboxOfRequest: Outbox['outboxOfRequest'] = (...a) => this.#call('outboxOfRequest', ...a);

  async close(): Promise<void> {
    if (this.#thread.dead) return;
    this.#reader?.db.close();
    this.#reader = undefined;
    await this.#call('close').catch(() => {});
    this.#thread.refuse(new Error('store closed'));
    await this.#thread.worker.terminate();
  }
}
