// The thread side of ThreadedSqliteStore: owns one SqliteStore and runs the calls posted to it, in order (the
// deliverer's first).
import { workerData } from 'node:worker_threads';
import { fromWireBatch, type WireBatch } from '../threads/event-pack.js';
import { serve, signalReady } from '../threads/serve.js';
import type { BatchWrite } from './interface/events.js';
import { SqliteStore, type SqliteStoreOptions } from './sqlite/sqlite-store.js';

let store: SqliteStore;
signalReady(() => {
  store = new SqliteStore(workerData as SqliteStoreOptions);
  return store.description;
});

/**
 * The deliverer's claims and settlements run before the calls waiting with them (C114): under a steady load
 * of batches, each of them would otherwise wait behind every batch posted before it, and the outbox would
 * fill faster than it drains. The deliverer's own calls keep their order.
 */
const OUTBOX_CALLS = new Set(['claimOutbox', 'extendClaim', 'settleOutbox']);
serve(
  (method, args) => {
    const fn = (store as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>)[method];
    if (typeof fn !== 'function') throw new Error(`no store method ${method}`);
    // A batch arrives with its events packed (ThreadedSqliteStore.commitBatch); everything else as it was sent.
    return fn.apply(
      store,
      method === 'commitBatch' ? [fromWireBatch(args[0] as WireBatch<BatchWrite>)] : args,
    );
  },
  { first: (c) => OUTBOX_CALLS.has(c.method) },
);
